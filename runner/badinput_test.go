package runner

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// The sweep-file bad-input cases of the second attack round (issue 20,
// items R4b to R4j, SF6, SF7): an explicit value is validated as given,
// never replaced by a default, and the error names the key.

// badBase is a small valid sweep; each case edits one line.
const badBase = `name = "bad input"
seeds = 2

[[instance]]
name = "syn"
kind = "synthetic"
d = 4
k = 10

[[algorithm]]
name = "fedlinucb"

[grid]
M = [3]
B = [5]
T = [20]
`

// mustFailKey parses cfg and checks that it is refused with an error
// naming key.
func mustFailKey(t *testing.T, cfg, key string) {
	t.Helper()
	_, err := ParseConfig([]byte(cfg), t.TempDir())
	var ke *KeyError
	if !errors.As(err, &ke) || ke.Key != key {
		t.Fatalf("error %v, want one naming %s", err, key)
	}
}

func edit(t *testing.T, old, new string) string {
	t.Helper()
	if !strings.Contains(badBase, old) {
		t.Fatalf("%q not in the base sweep", old)
	}
	return strings.Replace(badBase, old, new, 1)
}

// TestR4bNegativeSeeds: first_seed = -1 and an instance seed = -1 are
// errors naming the key (they used to wrap to 2^64 - 1).
func TestR4bNegativeSeeds(t *testing.T) {
	mustFailKey(t, edit(t, "seeds = 2", "seeds = 2\nfirst_seed = -1"), "first_seed")
	mustFailKey(t, edit(t, "k = 10", "k = 10\nseed = -1"), "instance[0].seed")
}

// TestR4cFirstSeedZero: first_seed = 0 is seed 0 (a valid seed); absent,
// the first seed is 1.
func TestR4cFirstSeedZero(t *testing.T) {
	seeds := func(cfg string) []uint64 {
		var s []uint64
		for _, r := range mustPlan(t, cfg).Runs {
			s = append(s, r.Spec.Seed)
		}
		slices.Sort(s)
		return s
	}
	if got := seeds(edit(t, "seeds = 2", "seeds = 2\nfirst_seed = 0")); !slices.Equal(got, []uint64{0, 1}) {
		t.Errorf("first_seed = 0 plans seeds %v, want [0 1]", got)
	}
	if got := seeds(badBase); !slices.Equal(got, []uint64{1, 2}) {
		t.Errorf("no first_seed plans seeds %v, want [1 2]", got)
	}
}

// TestR4gCheckpointEveryZero: checkpoint_every = 0 is an error naming it
// (it used to mean every B rounds).
func TestR4gCheckpointEveryZero(t *testing.T) {
	mustFailKey(t, edit(t, "seeds = 2", "seeds = 2\ncheckpoint_every = 0"), "checkpoint_every")
	if p := mustPlan(t, edit(t, "seeds = 2", "seeds = 2\ncheckpoint_every = 4")); p.Runs[0].Spec.Every != 4 {
		t.Errorf("checkpoint_every = 4 planned every %d", p.Runs[0].Spec.Every)
	}
}

// TestR4hAlphaZero: alpha = [0] is an error naming grid.alpha[0] (it used
// to become 0.01).
func TestR4hAlphaZero(t *testing.T) {
	mustFailKey(t, edit(t, "T = [20]", "T = [20]\nalpha = [0.05, 0]"), "grid.alpha[1]")
}

// TestR4iRewardZeroZero: reward = [0, 0] is an error naming
// advanced.reward (it used to become [0, 1]).
func TestR4iRewardZeroZero(t *testing.T) {
	mustFailKey(t, badBase+"\n[advanced]\nreward = [0, 0]\n", "advanced.reward")
	mustFailKey(t, badBase+"\n[advanced]\nreward = [0.5]\n", "advanced.reward")
}

// TestR4jSyncThresholdZero: FedUCB's sync_threshold is a parameter of its
// own: 0 is a value (a synchronisation whenever a silo observed anything),
// recorded as given, not the default; a negative value is an error naming
// it; absent, the default T ln(MT)/(dM) is filled in and recorded.
func TestR4jSyncThresholdZero(t *testing.T) {
	fed := edit(t, `name = "fedlinucb"`, `name = "feducb"`) + "eps = [1]\ndelta = [0.1]\n"
	fed = strings.Replace(fed, "[grid]", "[grid]", 1)
	zero := strings.Replace(fed, `name = "feducb"`, "name = \"feducb\"\nsync_threshold = 0", 1)
	p := mustPlan(t, zero)
	if v, ok := p.Runs[0].Spec.Params["sync_threshold"]; !ok || v != 0 {
		t.Errorf("sync_threshold = 0 planned %v (present %v)", v, ok)
	}
	rec := p.Runs[0].Record("x")
	if rec.Params["sync_threshold"] != 0 || !strings.Contains(p.Runs[0].Group, "sync_threshold=0") {
		t.Errorf("sync_threshold = 0 not recorded: params %v, group %q", rec.Params, p.Runs[0].Group)
	}
	mustFailKey(t, strings.Replace(fed, `name = "feducb"`, "name = \"feducb\"\nsync_threshold = -1", 1), "algorithm[0].sync_threshold")
	p = mustPlan(t, fed)
	if v := p.Runs[0].Spec.Params["sync_threshold"]; !(v > 0) {
		t.Errorf("absent sync_threshold planned %v, want the default", v)
	}
}

// TestSF6SF7DegenerateTheta: a given theta* that is all zero (regret
// identically 0), absurdly large or non-finite, or empty, is refused
// naming the key, as `prep fit` refuses an all-zero fit.
func TestSF6SF7DegenerateTheta(t *testing.T) {
	for _, theta := range []string{"[0, 0, 0, 0]", "[1e300, 1e300, 1e300, 1e300]", "[1, 2, nan, 0]", "[1, inf, 0, 0]", "[]", "[1, 2]"} {
		t.Run(theta, func(t *testing.T) {
			mustFailKey(t, edit(t, "k = 10", "k = 10\ntheta = "+theta), "instance[0].theta")
		})
	}
	mustPlan(t, edit(t, "k = 10", "k = 10\ntheta = [0.5, -0.2, 0, 0.1]"))
}

// TestExplicitZerosOfInstance: d = 0 and k = 0 are errors naming the key
// (the spec reads 0 as absent, so the kind checks the value as given).
func TestExplicitZerosOfInstance(t *testing.T) {
	mustFailKey(t, edit(t, "d = 4", "d = 0"), "instance[0].d")
	mustFailKey(t, edit(t, "k = 10", "k = 0"), "instance[0].k")
	mustFailKey(t, badBase+"\n[advanced]\nR = 0\n", "advanced.R")
	mustFailKey(t, badBase+"\n[advanced]\ncrs = 0\n", "advanced.crs")
}
