package bco

import (
	"context"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestStepDeclaredPerEntry: every entry declares its step schedule, and
// both runs (synthetic losses, documents) take the step from it: an
// entry whose schedule doubles the tuned one plays exactly as its model
// with step_scale doubled (every tuned step is linear in step_scale, and
// doubling is exact in binary), on a convex, a strongly convex and a
// document loss, one and two points. Mutation control: tuning.step
// calling Tuned instead of the entry's schedule fails it (tried
// 2026-12-02).
func TestStepDeclaredPerEntry(t *testing.T) {
	for _, a := range Algorithms() {
		if a.Step == nil {
			t.Errorf("%s: no step schedule", a.Name)
		}
	}
	saved := algorithms
	defer func() { algorithms = saved }()
	double := func(t, T int, tu StepTuning) float64 { return 2 * Tuned(t, T, tu) }
	for _, model := range []string{"one-point", "ldp-two-point"} {
		m, _ := Lookup(model)
		e := *m
		e.Name, e.Step = model+"-double", double
		algorithms = append(append([]*Algorithm(nil), saved...), &e)
		for _, loss := range []string{LossAbsolute, LossQuadratic} {
			s := spec(e.Name, loss, 500, 1)
			s.M, s.B = 2, 10
			got, err := Run(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			s.Algorithm, s.Params = model, map[string]float64{"step_scale": 2}
			want, _ := Run(context.Background(), s)
			s.Params = nil
			plain, _ := Run(context.Background(), s)
			got.WallSeconds, want.WallSeconds, plain.WallSeconds = 0, 0, 0
			if !reflect.DeepEqual(got, want) || reflect.DeepEqual(got, plain) {
				t.Errorf("%s on %s: the doubled schedule is not step_scale 2 (pseudo %v, %v; step_scale 1 %v)", e.Name, loss, got.Pseudo, want.Pseudo, plain.Pseudo)
			}
		}
		data := randomLTR(rand.New(rand.NewPCG(2, 2)), 40, 4)
		ls := LTRSpec{Algorithm: e.Name, Eps: 1, Delta: 1e-5, M: 2, B: 3, T: 60, Every: 7, Seed: 3,
			Instance: LTRInstance{Data: data, Radius: 0.4, Loss: LTRLosses[0], Order: OrderShuffled, Seed: 5}}
		got, err := RunLTR(context.Background(), ls)
		if err != nil {
			t.Fatal(err)
		}
		ls.Algorithm, ls.Params = model, map[string]float64{"step_scale": 2}
		want, _ := RunLTR(context.Background(), ls)
		ls.Params = nil
		plain, _ := RunLTR(context.Background(), ls)
		got.WallSeconds, want.WallSeconds, plain.WallSeconds = 0, 0, 0
		if !reflect.DeepEqual(got, want) || reflect.DeepEqual(got, plain) {
			t.Errorf("%s on documents: the doubled schedule is not step_scale 2", e.Name)
		}
	}
}
