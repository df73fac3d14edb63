package federate

import (
	"context"
	"testing"
	"time"
)

// TestR7dAuditHugeEps (attack round 2, R7d): `run audit --eps 1e200`
// hung in the accountant's gdpMu; the audit now returns, under a deadline.
//
// Mutation control (run 2026-11-25): with federate/accountant/gdp.go of
// the base (unguarded margin, unbounded halving) this test fails by its
// deadline.
func TestR7dAuditHugeEps(t *testing.T) {
	for _, alg := range []string{AlgLDP, AlgSDPAmp} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		done := make(chan error, 1)
		go func() {
			_, err := Audit(ctx, Spec{Algorithm: alg, Eps: 1e200, Delta: 0.1, B: 25, Lazy: true, Preset: "exact"}, AuditOptions{Trials: 100, Alpha: 0.01, Seed: 1, SigmaScale: 1})
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s: %v", alg, err)
			}
		case <-ctx.Done():
			t.Fatalf("%s: the audit at eps 1e200 did not return", alg)
		}
		cancel()
	}
}
