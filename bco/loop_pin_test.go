package bco

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/fedbandit/fedbandit/core"
)

// curveDigest hashes every bit of a result that a sweep records from a
// run: the checkpoints' round, pseudo and realised regret, the counters
// and the claim's delivered eps.
func curveDigest(h interface{ Write([]byte) (int, error) }, r *core.Result) {
	var b [8]byte
	put := func(u uint64) {
		binary.LittleEndian.PutUint64(b[:], u)
		h.Write(b[:])
	}
	for _, c := range r.Curve {
		put(uint64(c.Round))
		put(math.Float64bits(c.Pseudo))
		put(math.Float64bits(c.Realised))
	}
	put(uint64(r.Syncs))
	put(uint64(r.Scalars))
	put(math.Float64bits(r.Privacy.DeliveredEps))
	fmt.Fprint(h, r.HindsightNote)
}

// TestRoundLoopPinned: the results of the family's two runs, synthetic
// (every algorithm, loss class and sequence, with and without the slides'
// tuning) and on documents (every algorithm, loss and order), are the
// bits they were before the two Round methods became one loop (digests
// computed at 270ce5d, before that change): every shipped bco sweep's
// results stay what they were. Mutation controls, run: counting the
// played loss of the synthetic run across silos into one round sum (the
// document run's order of additions) changes the synthetic digest; no
// checkpoint at T on documents changes the document digest; averaging at
// t%B == 1 changes both.
func TestRoundLoopPinned(t *testing.T) {
	ctx := context.Background()
	h := sha256.New()
	for _, alg := range Algorithms() {
		for _, loss := range Losses {
			for _, seq := range []string{Stochastic, Drifting} {
				for _, tuning := range []float64{0, 1} {
					if tuning == 1 && !slices.Contains(alg.Params, slidesTuning) {
						continue
					}
					s := spec(alg.Name, loss, 600, 3)
					s.Instance.D = 4
					s.Instance.Sequence = seq
					if seq == Drifting {
						s.Instance.Period = 97
					}
					s.M, s.B, s.Every = 3, 7, 50
					if tuning == 1 {
						s.Params = map[string]float64{"tuning": 1}
					}
					r, err := Run(ctx, s)
					if err != nil {
						t.Fatal(err)
					}
					curveDigest(h, r)
				}
			}
		}
	}
	const wantSynthetic = "14172383f4015b2507043876dbc20d6320974c7e82dad03fe9b0e58d6aafdb3d"
	if got := fmt.Sprintf("%x", h.Sum(nil)); got != wantSynthetic {
		t.Errorf("synthetic runs' digest %s, want %s", got, wantSynthetic)
	}
	h.Reset()
	data := randomLTR(rand.New(rand.NewPCG(5, 9)), 40, 4)
	for _, alg := range Algorithms() {
		for _, loss := range LTRLosses {
			for _, order := range []string{OrderDataset, OrderShuffled} {
				s := LTRSpec{Algorithm: alg.Name, Eps: 1, Delta: 0.01, M: 3, B: 7, T: 300, Every: 40, Seed: 3,
					Instance: LTRInstance{Data: data, Radius: 1, Loss: loss, Order: order, Seed: 2}}
				r, err := RunLTR(ctx, s)
				if err != nil {
					t.Fatal(err)
				}
				curveDigest(h, r)
			}
		}
	}
	const wantLTR = "ee5e952d56af83b13f1035d3e74644d769c891857da5b02259b4c8c353c7ba3c"
	if got := fmt.Sprintf("%x", h.Sum(nil)); got != wantLTR {
		t.Errorf("document runs' digest %s, want %s", got, wantLTR)
	}
}
