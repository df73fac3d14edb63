package bco

import (
	"context"
	"testing"
)

// BenchmarkRun measures a 10^6-round run at d = 10 (one silo): the
// issue's target is well under a second on one core.
func BenchmarkRun(b *testing.B) {
	for _, alg := range []string{"ldp-one-point", "ldp-two-point"} {
		for _, loss := range []string{LossAbsolute, LossQuadraticAbs} {
			b.Run(alg+"/"+loss, func(b *testing.B) {
				s := spec(alg, loss, 1_000_000, 1)
				for b.Loop() {
					if _, err := Run(context.Background(), s); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
