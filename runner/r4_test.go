package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestR4_14NonFiniteEpsOfMabAndBco: NaN or an infinite eps or delta in a mab
// or bco sweep is an error naming grid.eps[i] / grid.delta[i] and the
// value, as for the linear family (it was "encode run spec: json:
// unsupported value: NaN", no file and no key).
func TestR4_14NonFiniteEpsOfMabAndBco(t *testing.T) {
	for fam, cfg := range map[string]string{"mab": genericMAB, "bco": genericBCO} {
		eps := "eps = [1]"
		if fam == "bco" {
			eps = "eps = [1, 2]"
		}
		for _, c := range []struct{ old, new, key, val string }{
			{eps, "eps = [nan]", "grid.eps[0]", "eps = NaN"},
			{eps, "eps = [inf]", "grid.eps[0]", "eps = +Inf"},
			{eps, "eps = [1, -inf]", "grid.eps[1]", "eps = -Inf"},
			{"delta = [1e-5]", "delta = [nan]", "grid.delta[0]", "delta = NaN"},
			{"delta = [1e-5]", "delta = [inf]", "grid.delta[0]", "delta = +Inf"},
		} {
			_, err := ParseConfig([]byte(strings.Replace(cfg, c.old, c.new, 1)), t.TempDir())
			if err == nil || !strings.Contains(err.Error(), c.key+": "+c.val) || !strings.Contains(err.Error(), "want a finite value > 0") {
				t.Errorf("%s %s: %v, want %s: %s", fam, c.new, err, c.key, c.val)
			}
		}
	}
}

// TestR4_09R4_25EmptyListsRefused: an explicit empty list in [grid] (or an
// algorithm's eps / delta) is an error naming the key, never the default
// (relation, noise) nor a zero (M, B, alpha).
func TestR4_09R4_25EmptyListsRefused(t *testing.T) {
	for _, c := range []struct{ old, new, key string }{
		{"T = [100]", "T = [100]\nrelation = []", "grid.relation"},
		{"T = [100]", "T = [100]\nnoise = []", "grid.noise"},
		{"M = [5]", "M = []", "grid.M"},
		{"B = [10]", "B = []", "grid.B"},
		{"T = [100]", "T = [100]\nalpha = []", "grid.alpha"},
		{"T = [100]", "T = []", "grid.T"},
		{"eps = [1, 5]", "eps = []", "grid.eps"},
		{`preset = "reference-code"`, "preset = \"reference-code\"\neps = []", "algorithm[0].eps"},
	} {
		_, err := ParseConfig([]byte(strings.Replace(base, c.old, c.new, 1)), t.TempDir())
		if err == nil || !strings.Contains(err.Error(), c.key+": an empty list") {
			t.Errorf("%s: %v, want %s: an empty list", c.new, err, c.key)
		}
	}
}

// TestR4_23CollectLockMessage: a collect that meets the lock says another
// sweep or collect holds DIR/.lock; the hint about sweeps collecting
// follows only that error, not one of making the lock file.
func TestR4_23CollectLockMessage(t *testing.T) {
	dir := t.TempDir()
	release := holdSweep(t, dir)
	_, err := Collect(dir)
	if rerr := release(); rerr != nil {
		t.Fatal(rerr)
	}
	if err == nil || !strings.Contains(err.Error(), "another sweep or collect holds "+filepath.Join(dir, ".lock")) || !strings.Contains(err.Error(), "a sweep collects the tables itself") {
		t.Errorf("collect during a sweep: %v", err)
	}
	ro := t.TempDir()
	os.MkdirAll(filepath.Join(ro, "runs"), 0o755)
	os.WriteFile(filepath.Join(ro, ResultsMarker), nil, 0o644)
	os.Mkdir(filepath.Join(ro, ".lock"), 0o755) // the lock file cannot be opened
	if _, err := Collect(ro); err == nil || strings.Contains(err.Error(), "a sweep collects") {
		t.Errorf("lock file not openable: %v, want an error without the hint", err)
	}
}

// TestR4_24InlineArrayOfTables: instance = [{...}] and algorithm = [{...}]
// (valid TOML, the same document as [[instance]] tables) plan as the
// [[instance]] form does.
func TestR4_24InlineArrayOfTables(t *testing.T) {
	inline := "name = \"inline\"\nseeds = 1\ninstance = [{name = \"a\", kind = \"mab\", gap = 0.5}]\nalgorithm = [{name = \"se\"}]\ngrid = {T = [100]}\n"
	tables := "name = \"inline\"\nseeds = 1\n[[instance]]\nname = \"a\"\nkind = \"mab\"\ngap = 0.5\n[[algorithm]]\nname = \"se\"\n[grid]\nT = [100]\n"
	a, err := ParseConfig([]byte(inline), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b, err := ParseConfig([]byte(tables), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pa, err := a.Configurations()
	if err != nil {
		t.Fatal(err)
	}
	pb, _ := b.Configurations()
	if len(a.Instances) != 1 || len(a.Algorithms) != 1 || len(pa) != len(pb) {
		t.Errorf("inline: %d instances, %d algorithms, %d configurations; tables: %d", len(a.Instances), len(a.Algorithms), len(pa), len(pb))
	}
}
