package mab

import (
	"flag"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/internal/mutation"
)

var powerTable = flag.Bool("power", false, "TestAuditPower: print the audit's power table")

// The audit passes every private entry at the claim its run records and
// catches the same release with half the noise scale (the mutation,
// injected through the protocol's test hook). Each audit covers two arm
// slots (the varying user on the second), both modes of the entries that
// have two, the joint release (slot 1 - slot 0) and, for LDP-SE, the
// varying user's message at the batch's g. False-alarm rate 1e-6 for a
// pass. Delta 0.01 for the Renyi and concentrated entries: at 1e-5 their
// claims are too loose for half the noise to exceed them at this many
// trials (docs/mab.md, "Audit power").
func TestAudit(t *testing.T) {
	if testing.Short() {
		t.Skip("audit: 2 x 20000 releases per mode and case")
	}
	cases := []struct {
		alg   string
		delta float64
		n     int
	}{
		{"dp-se", 0, 16},
		{"dist-dp-se", 0, 16},
		{"cdp-se", 0, 16},
		{"ldp-se", 0, 16},
		{"dist-rdp-se", 0.01, 16},
		{"dist-cdp-se", 0.01, 16},
	}
	for _, c := range cases {
		t.Run(c.alg, func(t *testing.T) {
			for _, weaken := range []uint64{1, 2} {
				res, err := Audit(AuditSpec{Algorithm: c.alg, Eps: 1, Delta: c.delta, N: c.n, Trials: 20000, Seed: 1, Alpha: 1e-6, NoiseDivisor: weaken})
				if err != nil {
					t.Fatal(err)
				}
				if mutation.Enabled && weaken == 2 {
					// Under a mutation the question is whether the honest
					// release fails: half the noise is flagged anyway.
					continue
				}
				t.Logf("%s weaken %d: lower eps %.3f (%s), claimed %.3f (delta %g), ceiling %.3f: %s", c.alg, weaken, res.LowerEps, res.Release, res.Claimed, res.Delta, res.Ceiling, res.Verdict)
				if weaken == 1 && res.Verdict != VerdictPass {
					t.Errorf("%s: audit did not pass the honest release: %s, lower bound %.3f, claimed %.3f", c.alg, res.Verdict, res.LowerEps, res.Claimed)
				}
				if weaken == 2 && res.Verdict != VerdictViolation {
					t.Errorf("%s: audit did not flag a release with half the noise scale: %s, lower bound %.3f, claimed %.3f", c.alg, res.Verdict, res.LowerEps, res.Claimed)
				}
			}
		})
	}
}

// The audit fails closed: a claim at or above the largest bound its trials
// can reach is inconclusive (never a pass), with the trials that would be
// needed, even for a noiseless release; a delta outside (0, 1) is refused.
func TestAuditFailsClosed(t *testing.T) {
	// Paper preset, eps 1.5, delta 1e-5: the claim is 7.59, above the
	// ceiling of 4000 trials (about 6); noise divided by 1000.
	res, err := Audit(AuditSpec{Algorithm: "dist-rdp-se", Eps: 1.5, Delta: 1e-5, Params: map[string]float64{"paper_eps": 1}, N: 25, Trials: 4000, Seed: 1, Alpha: 0.01, NoiseDivisor: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if res.Pass || res.Verdict == VerdictPass || !(res.Claimed >= res.Ceiling) || res.Verdict != VerdictInconclusive {
		t.Errorf("noiseless release, claim %.3f, ceiling %.3f: verdict %s", res.Claimed, res.Ceiling, res.Verdict)
	}
	if res.TrialsNeeded <= 4000 || !(ceiling(res.TrialsNeeded, 0.01/(4*64*4), res.Delta) > res.Claimed) || ceiling(res.TrialsNeeded-1, 0.01/(4*64*4), res.Delta) > res.Claimed {
		t.Errorf("trials needed %d for claim %.3f", res.TrialsNeeded, res.Claimed)
	}
	// The ceiling at the CLI's defaults (4000 trials, alpha 0.01/256, one
	// release): ln(T / ln(256/alpha)) to first order, 5.98 (the review's F2).
	if c := ceiling(4000, 0.01/256, 0); math.Abs(c-5.975) > 0.01 {
		t.Errorf("ceiling at 4000 trials: %.4f, want 5.975", c)
	}
	for _, d := range []float64{0, -1e-5, 1, 1.5, math.NaN()} {
		if _, err := Audit(AuditSpec{Algorithm: "dist-cdp-se", Eps: 1, Delta: d, N: 16, Trials: 1000, Alpha: 0.01}); err == nil || !strings.Contains(err.Error(), "delta") {
			t.Errorf("delta %v: %v", d, err)
		}
	}
	if _, err := Audit(AuditSpec{Algorithm: "cdp-se", Eps: 1, Delta: math.NaN(), N: 16, Trials: 1000, Alpha: 0.01}); err == nil {
		t.Errorf("pure entry, delta NaN: accepted")
	}
	// A batch size the run does not have is refused, not audited.
	if _, err := Audit(AuditSpec{Algorithm: "dist-rdp-se", Eps: 1, Delta: 0.01, N: 10, T: 1000, Trials: 1000, Alpha: 0.01}); err == nil || !strings.Contains(err.Error(), "not a batch") {
		t.Errorf("N = 10 at T = 1000: %v", err)
	}
}

// TestAuditPower prints the audit's power table (docs/mab.md, "Audit
// power"): for every private entry at eps 1, n = 16, two arm slots, alpha
// 0.01 (the CLI's), the lower bound with the noise's scale multiplied by
// f, and which f are flagged. Run by hand:
// go test -run TestAuditPower -v ./mab/ -args -power
func TestAuditPower(t *testing.T) {
	if !*powerTable {
		t.Skip("the power table: -args -power (a few minutes)")
	}
	fs := [][2]uint64{{1, 1}, {9, 10}, {8, 10}, {7, 10}, {6, 10}, {5, 10}, {4, 10}, {3, 10}}
	for _, c := range []struct {
		alg   string
		delta float64
	}{{"dp-se", 0}, {"cdp-se", 0}, {"ldp-se", 0}, {"dist-dp-se", 0}, {"dist-rdp-se", 0.01}, {"dist-rdp-se", 1e-5}, {"dist-cdp-se", 0.01}, {"dist-cdp-se", 1e-5}} {
		for _, trials := range []int{4000, 40000} {
			row := fmt.Sprintf("| `%s` | %g | %d |", c.alg, c.delta, trials)
			first := ""
			for _, f := range fs {
				res, err := Audit(AuditSpec{Algorithm: c.alg, Eps: 1, Delta: c.delta, N: 16, Trials: trials, Seed: 7, Alpha: 0.01, NoiseDivisor: f[1], noiseBoost: f[0]})
				if err != nil {
					t.Fatal(err)
				}
				if f[0] == 1 {
					row = fmt.Sprintf("%s %.3f | %.2f |", row, res.Claimed, res.Ceiling)
				}
				mark := ""
				if res.Verdict == VerdictViolation {
					mark = "*"
					if first == "" {
						first = fmt.Sprintf("%.1f", float64(f[0])/float64(f[1]))
					}
				}
				row = fmt.Sprintf("%s %.2f%s |", row, res.LowerEps, mark)
			}
			if first == "" {
				first = "none >= 0.3"
			}
			fmt.Printf("%s %s |\n", row, first)
		}
	}
}
