package federate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
)

// groupSpecs are runs of one shared instance (different algorithms,
// seeds, privacy and link), for each context generator, with T long
// enough for several windows when the window is cut small.
func groupSpecs(gen string) []Spec {
	var specs []Spec
	for k, alg := range []string{AlgFedLinUCB, AlgLDP, AlgSDPAmp, AlgLDPLinUCB, AlgRandom} {
		s := smallSpec(alg)
		s.T = 150
		s.Seed = uint64(20 + k)
		s.Synthetic.SharedContexts = true
		s.Synthetic.ContextGen = gen
		if gen == ContextsNumPy {
			s.Synthetic.K = 9 // K > d with the fixed basis
			s.Synthetic.Seed = 2
		}
		specs = append(specs, s)
	}
	return specs
}

// TestContextFeedGroup: runs of one instance driven as a group over a
// shared feed (windows of 7 rounds, so T = 150 spans 22 of them) give
// results bit-identical to the same runs drawing their own contexts, for
// every generator, and the group key tells the instances apart.
// Mutation control: a feed producing its silos in reverse order fails.
func TestContextFeedGroup(t *testing.T) {
	for _, gen := range []string{ContextsFast, ContextsChaCha8, ContextsNumPy} {
		specs := groupSpecs(gen)
		var want [][]uint64
		for _, s := range specs {
			want = append(want, resultBits(mustRun(t, s)))
		}
		f, err := NewContextFeed(specs[0])
		if err != nil {
			t.Fatal(err)
		}
		f.rounds = 7
		got := make([][]uint64, len(specs))
		errs := make([]error, len(specs))
		var runs []func(context.Context)
		for k, s := range specs {
			runs = append(runs, func(ctx context.Context) {
				res, err := Run(ctx, s)
				if err != nil {
					errs[k] = err
					return
				}
				got[k] = resultBits(res)
			})
		}
		gt := DriveGroup(context.Background(), f, runs)
		for k := range specs {
			if errs[k] != nil {
				t.Fatalf("%s run %d: %v", gen, k, errs[k])
			}
			if !slices.Equal(got[k], want[k]) {
				t.Errorf("%s run %d (%s): grouped result differs from its own", gen, k, specs[k].Algorithm)
			}
		}
		if len(gt.Runs) != len(specs) || gt.Stream <= 0 {
			t.Errorf("%s: times %+v", gen, gt)
		}
	}
	a, _ := SharedContextsKey(groupSpecs(ContextsFast)[0])
	for _, change := range []func(*Spec){
		func(s *Spec) { s.Synthetic.Seed++ },
		func(s *Spec) { s.T++ },
		func(s *Spec) { s.M++ },
		func(s *Spec) { s.Synthetic.K++ },
		func(s *Spec) { s.Synthetic.ContextGen = ContextsChaCha8 },
		func(s *Spec) { s.Synthetic.FixedBasis = false },
		func(s *Spec) { s.Synthetic.Theta = SyntheticTheta(s.Synthetic.D, 9) },
	} {
		s := groupSpecs(ContextsFast)[0]
		change(&s)
		if b, ok := SharedContextsKey(s); !ok || b == a {
			t.Errorf("a different instance has the same key %s", b)
		}
	}
	s := groupSpecs(ContextsFast)[0]
	s.Synthetic.SharedContexts = false
	if _, ok := SharedContextsKey(s); ok {
		t.Error("per-run contexts have a shared key")
	}
}

// TestContextFeedMismatch: a run whose contexts are not the feed's
// refuses it.
func TestContextFeedMismatch(t *testing.T) {
	specs := groupSpecs(ContextsFast)
	f, err := NewContextFeed(specs[0])
	if err != nil {
		t.Fatal(err)
	}
	other := specs[1]
	other.Synthetic.Seed++
	var runErr error
	DriveGroup(context.Background(), f, []func(context.Context){func(ctx context.Context) { _, runErr = Run(ctx, other) }})
	if runErr == nil {
		t.Fatal("a run of another instance accepted the feed")
	}
}

// TestContextFeedCancel: cancelling a group stops its runs, which panic
// with ErrFeedStopped or return the context's error; DriveGroup returns.
func TestContextFeedCancel(t *testing.T) {
	specs := groupSpecs(ContextsFast)
	f, err := NewContextFeed(specs[0])
	if err != nil {
		t.Fatal(err)
	}
	f.rounds = 5
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outcome := make([]string, len(specs))
	var runs []func(context.Context)
	for k, s := range specs {
		runs = append(runs, func(ctx context.Context) {
			defer func() {
				if v := recover(); v != nil {
					if e, ok := v.(error); ok && errors.Is(e, ErrFeedStopped) {
						outcome[k] = "stopped"
						return
					}
					panic(v)
				}
			}()
			if k == 1 {
				cancel()
			}
			_, err := Run(ctx, s)
			outcome[k] = fmt.Sprint(err)
		})
	}
	DriveGroup(ctx, f, runs)
	for k, o := range outcome {
		if o != "stopped" && !errors.Is(ctx.Err(), context.Canceled) {
			t.Errorf("run %d: %s", k, o)
		}
		if o == "" || o == "<nil>" {
			t.Errorf("run %d finished after the group was cancelled: %q", k, o)
		}
	}
}
