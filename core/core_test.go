package core

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// constant has regret 1 (pseudo) and 2 (realised) every round and a sync
// every 3 rounds.
type constant struct{ t, syncs int }

func (c *constant) Round(t int) (float64, float64) {
	c.t = t
	if t%3 == 0 {
		c.syncs++
	}
	return 1, 2
}
func (c *constant) Counters() (int, int64) { return c.syncs, int64(5 * c.syncs) }

func TestDriveCheckpoints(t *testing.T) {
	res, err := Drive(context.Background(), &constant{}, 10, 4)
	if err != nil {
		t.Fatal(err)
	}
	want := []Checkpoint{{4, 4, 8, 1}, {8, 8, 16, 2}, {10, 10, 20, 3}}
	if len(res.Curve) != len(want) {
		t.Fatalf("curve %v, want %v", res.Curve, want)
	}
	for i := range want {
		if res.Curve[i] != want[i] {
			t.Errorf("checkpoint %d = %v, want %v", i, res.Curve[i], want[i])
		}
	}
	if res.Pseudo != 10 || res.Realised != 20 || res.Syncs != 3 || res.Scalars != 15 {
		t.Errorf("totals %+v", res)
	}
}

// metered is constant reporting a metric of its own.
type metered struct{ constant }

func (m *metered) Metrics(t int) map[string]float64 {
	return map[string]float64{"half": float64(t) / 2}
}

// clash reports the metric Drive records itself.
type clash struct{ constant }

func (c *clash) Metrics(int) map[string]float64 { return map[string]float64{ScalarsSentColumn: 1} }

// TestDriveRecordsCommunication: at every checkpoint Drive records the
// scalars sent so far (Problem.Counters), for every problem, beside a
// Metered problem's own metrics; its value at T is the result's Scalars.
// A problem reporting that column itself is refused. Mutation control
// (tried 2026-12-02): recording the syncs there fails it.
func TestDriveRecordsCommunication(t *testing.T) {
	for _, p := range []Problem{&constant{}, &metered{}} {
		res, err := Drive(context.Background(), p, 10, 4)
		if err != nil {
			t.Fatal(err)
		}
		got := res.Metrics[ScalarsSentColumn]
		if want := []float64{5, 10, 15}; !slices.Equal(got, want) || got[len(got)-1] != float64(res.Scalars) {
			t.Errorf("%T: scalars sent %v, want %v (Scalars %d)", p, got, want, res.Scalars)
		}
		if _, ok := p.(*metered); ok && !slices.Equal(res.Metrics["half"], []float64{2, 4, 5}) {
			t.Errorf("the problem's own metric: %v", res.Metrics["half"])
		}
	}
	if _, err := Drive(context.Background(), &clash{}, 10, 4); err == nil || !strings.Contains(err.Error(), ScalarsSentColumn) {
		t.Errorf("a problem reporting %s: %v", ScalarsSentColumn, err)
	}
}

type nan struct{ constant }

func (n *nan) Round(t int) (float64, float64) {
	if t == 7 {
		return math.NaN(), 0
	}
	return 0, 0
}

func TestDriveRefuses(t *testing.T) {
	if _, err := Drive(context.Background(), &nan{}, 10, 5); !errors.Is(err, ErrNonFinite) {
		t.Errorf("NaN regret: err = %v, want ErrNonFinite", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Drive(ctx, &constant{}, 10, 5); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
	for _, c := range []struct{ T, every int }{{0, 1}, {10, 0}, {-1, 1}} {
		if _, err := Drive(context.Background(), &constant{}, c.T, c.every); err == nil {
			t.Errorf("T=%d every=%d accepted", c.T, c.every)
		}
	}
}

func TestParamResolve(t *testing.T) {
	ps := []Param{{Key: "explore", Default: 0.1, Min: 0, Max: 1}, {Key: "S", Default: 10, Min: 1, Max: math.Inf(1), Integer: true}}
	got, err := Resolve(ps, map[string]float64{"explore": 0})
	if err != nil || got["explore"] != 0 || got["S"] != 10 {
		t.Fatalf("Resolve = %v, %v: an explicit 0 must stay 0", got, err)
	}
	for _, bad := range []map[string]float64{{"explore": -0.1}, {"explore": math.NaN()}, {"S": 1.5}, {"S": 0}, {"nope": 1}} {
		if _, err := Resolve(ps, bad); err == nil {
			t.Errorf("Resolve(%v) accepted", bad)
		}
	}
}

func TestPrivacyCheck(t *testing.T) {
	ok := Privacy{Trust: TrustDistributed, TargetEps: 1, TargetDelta: 1e-6, DeliveredEps: 1, DeliveredDelta: 1e-6, Certified: true}
	if err := ok.Check(); err != nil {
		t.Error(err)
	}
	over := ok
	over.DeliveredEps = 1.01
	if over.Check() == nil {
		t.Error("delivered eps above target accepted")
	}
	silent := Privacy{Trust: TrustLocal}
	if silent.Check() == nil {
		t.Error("uncertified claim without a reason accepted")
	}
	if (Privacy{}).Private() || (Privacy{Trust: TrustNone}).Private() {
		t.Error("non-private claim reported private")
	}
}

// TestCertificationRule: the one rule every family's claim passes
// through. A delivered eps at the target plus the 1e-9 relative slack is
// within it; 1e-6 relative above (and a delta above) is not, and Certify
// then records the claim not certified, +Inf, with the bound in its note;
// a claim within its target, or already not certified, is unchanged.
func TestCertificationRule(t *testing.T) {
	for _, c := range []struct {
		eps, delta, te, td float64
		want               bool
	}{
		{1, 1e-6, 1, 1e-6, true},
		{1 + 0.9e-9, 0, 1, 0, true},
		{1 + 1e-6, 0, 1, 0, false},       // P5-21: a 1e-3 slack would pass it
		{6.78, 0.01, 6.775, 0.01, false}, // 0.07% above
		{1, 2e-6, 1, 1e-6, false},
		{math.Inf(1), 0, 1, 0, false},
		{math.NaN(), 0, 1, 0, false},
		{-1, 0, 1, 0, false},
	} {
		if got := WithinTarget(c.eps, c.delta, c.te, c.td); got != c.want {
			t.Errorf("WithinTarget(%v, %v, %v, %v) = %v, want %v", c.eps, c.delta, c.te, c.td, got, c.want)
		}
	}
	over := Privacy{Trust: TrustLocal, TargetEps: 8, TargetDelta: 0.1, DeliveredEps: 10.0527, DeliveredDelta: 0.1, Certified: true, Note: "the paper sigma"}
	got := over.Certify()
	if got.Certified || !math.IsInf(got.DeliveredEps, 1) || got.Note != "NOT CERTIFIED: the noise delivers (eps, delta) = (10.0527, 0.1), above the target (8, 0.1); the paper sigma" || got.Check() != nil {
		t.Errorf("over target: %+v (%v)", got, got.Check())
	}
	if over.Check() == nil {
		t.Error("Check accepted a certified claim above its target")
	}
	within := over
	within.DeliveredEps = 8
	if within.Certify() != within {
		t.Errorf("within target: %+v", within.Certify())
	}
	not := Privacy{Trust: TrustLocal, TargetEps: 1, DeliveredEps: math.Inf(1), Note: "why"}
	if not.Certify() != not {
		t.Errorf("not certified: %+v", not.Certify())
	}
}
