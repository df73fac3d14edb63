package bco

import "testing"

// TestHindsightCostCountsEveryCheckpoint: the absolute loss's hindsight
// cost is the sum over the checkpoints (every `every` rounds below T, and
// T) of the documents seen, min(M t, n), times d^2 and the measured
// seconds per document and d^2; the squared loss adds nothing. Checked
// against the checkpoints counted one by one.
func TestHindsightCostCountsEveryCheckpoint(t *testing.T) {
	const n, d = 1000, 3
	data := &LTRData{D: d, X: make([]float64, n*d), Y: make([]float64, n)}
	abs := LTRInstance{Data: data, Radius: 1, Loss: LossAbsolute, Order: OrderDataset}
	for _, c := range []struct{ M, T, every int }{
		{1, 10, 1}, {1, 10, 3}, {7, 1000, 10}, {100, 1000, 1000}, {3, 5000, 7}, {1, 1, 1}, {50, 999, 100},
	} {
		var docs float64
		for r := 1; r <= c.T; r++ {
			if r%c.every == 0 || r == c.T {
				docs += float64(min(c.M*r, n))
			}
		}
		sec, bytes := abs.HindsightCost(c.M, c.T, c.every)
		want := absoluteSecondsPerDocD2 * docs * d * d
		if diff := sec - want; diff > 1e-12*want || diff < -1e-12*want {
			t.Errorf("%+v: %g s, want %g (%g documents over the checkpoints)", c, sec, want, docs)
		}
		if m := int64(min(c.M*c.T, n)); bytes != 8*m*(d+8)+8*d*d {
			t.Errorf("%+v: %d bytes, want %d", c, bytes, 8*m*(d+8)+8*d*d)
		}
	}
	sq := abs
	sq.Loss = LossSquared
	if sec, bytes := sq.HindsightCost(7, 1000, 10); sec != 0 || bytes != 0 {
		t.Errorf("squared: %g s, %d bytes, want 0", sec, bytes)
	}
}
