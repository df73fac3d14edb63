//go:build mutation

package federate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/internal/mutation"
)

// mutationAuditSpecs are the configurations the audit's mutation suite
// runs: the three tree mechanisms, lazy, under exact, at T = 4B (the action
// pair's three levels are the whole transcript).
var mutationAuditSpecs = []Spec{
	{Algorithm: AlgLDP, Eps: 1, Delta: 0.1, B: 25, T: 100, Lazy: true},
	{Algorithm: AlgSDPVec, Eps: 1, Delta: 0.1, B: 25, T: 100, Lazy: true},
	{Algorithm: AlgSuperAgent, Eps: 1, Delta: 0.1, T: 100},
	{Algorithm: AlgLDP, Eps: 1, Delta: 0.1, B: 25, T: 100, Lazy: true, Noise: NoiseDiscrete},
}

// auditVerdicts audits every configuration of mutationAuditSpecs (4000
// trials, false-alarm rate 1% each) and returns their verdicts, an error
// (the audit fails closed) counting as one.
func auditVerdicts(t *testing.T) []string {
	var out []string
	for _, s := range mutationAuditSpecs {
		o := AuditOptions{Trials: 4000, Seed: 1, Config: s.Algorithm + s.Noise, Alpha: 0.01, SigmaScale: 1}
		r, err := Audit(context.Background(), s, o)
		switch {
		case errors.Is(err, ErrDegenerate):
			out = append(out, s.Algorithm+": ERROR: "+err.Error())
		case err != nil:
			t.Fatalf("%s: %v", s.Algorithm, err)
		default:
			out = append(out, s.Algorithm+": "+r.Verdict)
		}
	}
	return out
}

// TestMutationAudit is the audit's part of the privacy mutation suite
// (docs/privacy.md 2.3; run by .ci/mutations with -tags mutation): on
// unmodified code the audit passes every configuration; under each
// mutation it can see, some configuration is flagged (a violation, a wrong
// noise scale, dependent noises, or an error). The table is logged.
func TestMutationAudit(t *testing.T) {
	for _, v := range auditVerdicts(t) {
		if !strings.HasSuffix(v, ": pass") {
			t.Errorf("unmodified code: %s", v)
		}
	}
	for _, m := range []string{"M1", "M2", "M3", "M4", "M8", "M9", "M10", "M11", "M12", "M15", "M16", "P5-13", "I42-lin-cal", "I42-lin-wire", "I42-lin-rand"} {
		restore := mutation.Set(m)
		vs := auditVerdicts(t)
		restore()
		caught := ""
		for _, v := range vs {
			if !strings.HasSuffix(v, ": pass") {
				caught = v
				break
			}
		}
		if caught == "" {
			t.Errorf("%s: not caught by the audit (%s)", m, strings.Join(vs, "; "))
			continue
		}
		if len(caught) > 160 {
			caught = caught[:160] + "..."
		}
		fmt.Printf("%-4s caught by run audit: %s\n", m, caught)
	}
}
