package federate

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fedbandit/fedbandit/internal/fmath"
	"github.com/fedbandit/fedbandit/internal/rng"
	"github.com/fedbandit/fedbandit/internal/vec"
)

// InstanceDubey is the instance of Dubey & Pentland's experiments
// (NeurIPS 2020, Section 4.4): theta* fixed in the unit ball, each round K
// unit actions of which K-1 have mean reward in [0.5, 0.6] and one, the
// optimal, in [0.7, 0.8] (a gap of at least 0.1), Bernoulli rewards.
const InstanceDubey = "dubey"

// The ranges of the Dubey & Pentland instance's means (Section 4.4:
// "for K-1 actions 0.5 <= <x, theta> <= 0.6 and for the optimal x*,
// 0.7 <= <x*, theta> <= 0.8").
const (
	DubeySubLo, DubeySubHi = 0.5, 0.6
	DubeyOptLo, DubeyOptHi = 0.7, 0.8
)

// DubeySpec parameterises the Dubey & Pentland instance.
type DubeySpec struct {
	D int `json:"D"` // feature dimension (>= 2)
	K int `json:"K"` // actions per silo per round (>= 2)
	// Seed draws theta*; the actions come from each run's own streams.
	Seed uint64 `json:"Seed"`
}

// Bounds of the instance's size, as the synthetic kind's.
const (
	MaxDubeyD       = MaxSyntheticD
	MaxDubeyActions = MaxSyntheticContexts
)

// Check checks the instance's parameters as they are (no defaults); every
// error is a *FieldError naming the field ("Dubey.D", "Dubey.K").
func (y DubeySpec) Check() error {
	bad := func(field, format string, a ...any) error {
		return &FieldError{Field: field, Msg: fmt.Sprintf(format, a...)}
	}
	if y.D < 2 || y.D > MaxDubeyD {
		return bad("Dubey.D", "Dubey.D = %d, want 2 to %d (an action is the optimal direction plus a component orthogonal to theta*)", y.D, MaxDubeyD)
	}
	if y.K < 2 {
		return bad("Dubey.K", "Dubey.K = %d actions, want >= 2 (one optimal, K-1 suboptimal)", y.K)
	}
	if float64(y.K)*float64(y.D) > MaxDubeyActions {
		return bad("Dubey.K", "Dubey.K = %d actions of dimension D = %d: want K D at most %g (a round's actions are K D numbers)", y.K, y.D, float64(MaxDubeyActions))
	}
	return nil
}

// DubeyKey returns the root key of a Dubey & Pentland instance's theta*.
func DubeyKey(seed uint64) rng.Key { return rng.NewKey("fedbandit/dubey-instance", seed) }

// DubeyTheta returns theta* of the instance with dimension d and seed:
// uniform in the unit ball conditioned on ||theta*|| >= DubeyOptHi (0.8),
// which the instance needs (an action of norm <= 1 has mean <x, theta*>
// <= ||theta*||, and the optimal one's reaches 0.8). Its direction is a
// normalised Gaussian vector, its radius (0.8^d + U (1 - 0.8^d))^(1/d),
// both from the stream rng.New(DubeyKey(seed), "theta").
func DubeyTheta(d int, seed uint64) []float64 {
	r := rng.New(DubeyKey(seed), "theta")
	theta := make([]float64, d)
	for j := range theta {
		theta[j] = r.NormFloat64()
	}
	n := math.Sqrt(dot(theta, theta))
	lo := fmath.Pow(DubeyOptHi, float64(d))
	radius := fmath.Exp(fmath.Log(lo+float64((1-lo)*r.Float64())) / float64(d))
	for j := range theta {
		theta[j] = float64(theta[j]/n) * radius
	}
	return theta
}

// The Dubey & Pentland kind.
var dubeyKind = &instanceKind{
	defaults: func(s *Spec) {
		if s.R == 0 {
			s.R = 0.5 // Bernoulli rewards are 1/2-sub-Gaussian
		}
		if s.Crs == 0 {
			s.Crs = 1
		}
	},
	dim: func(s Spec) int {
		if s.Dubey == nil {
			return 0
		}
		return s.Dubey.D
	},
	dimField: "Dubey.D",
	glm:      func(Spec) bool { return false },
	validate: func(s Spec, _ *Algorithm) error {
		if s.Dubey == nil {
			return &FieldError{Field: "Dubey", Msg: "Instance \"dubey\" without its parameters (Spec.Dubey is nil)"}
		}
		return s.Dubey.Check()
	},
	build: func(s Spec, runKey rng.Key) instance { return newDubey(*s.Dubey, s.M, runKey) },
}

// dubey is the instance: each silo draws its round's actions from its own
// stream rng.New(runKey, "silo", i, "dubey-actions"): the optimal
// action's index (uniform), then per action its mean (uniform in its
// range) and d Gaussians whose component orthogonal to theta*, normalised,
// is the action's direction orthogonal to theta*. An action with mean mu
// is x = (mu/||theta*||) u + sqrt(1 - (mu/||theta*||)^2) z, u = theta* /
// ||theta*||, z a unit vector orthogonal to u: ||x|| = 1 and <x, theta*> =
// mu (up to rounding; the recorded mean is mu itself).
type dubey struct {
	d, k   int
	unit   []float64 // theta* / ||theta*||
	norm   float64   // ||theta*||
	silos  []*rand.Rand
	set    actionSet
	rows   []float64 // the round's actions, row-major
	g      []float64 // scratch
	panelX []float64
}

func newDubey(y DubeySpec, m int, runKey rng.Key) *dubey {
	theta := DubeyTheta(y.D, y.Seed)
	in := &dubey{d: y.D, k: y.K, norm: math.Sqrt(dot(theta, theta)), unit: make([]float64, y.D),
		rows: make([]float64, y.K*y.D), g: make([]float64, y.D), panelX: make([]float64, vec.PanelLen(y.K, y.D))}
	for j, v := range theta {
		in.unit[j] = v / in.norm
	}
	in.silos = make([]*rand.Rand, m)
	for i := range in.silos {
		in.silos[i] = rng.New(runKey, "silo", i, "dubey-actions")
	}
	in.set = actionSet{panels: []panel{{x: in.panelX, n: y.K}}, mu: make([]float64, vec.PanelLen(y.K, 1)), n: y.K}
	return in
}

func (in *dubey) noiseStd() float64 { return 0 }

func (in *dubey) bernoulli() bool { return true }

func (in *dubey) next(i int) *actionSet {
	r := in.silos[i]
	d := in.d
	opt := r.IntN(in.k)
	for a := 0; a < in.k; a++ {
		lo, hi := DubeySubLo, DubeySubHi
		if a == opt {
			lo, hi = DubeyOptLo, DubeyOptHi
		}
		mu := lo + float64((hi-lo)*r.Float64())
		in.set.mu[a] = mu
		in.orthogonal(r)
		c := mu / in.norm
		s := math.Sqrt(1 - float64(c*c))
		row := in.rows[a*d : (a+1)*d]
		for j := range row {
			row[j] = float64(c*in.unit[j]) + float64(s*in.g[j])
		}
	}
	vec.ToPanel(in.panelX, in.rows, in.k, d)
	return &in.set
}

// orthogonal fills in.g with a unit vector orthogonal to theta*: d
// Gaussians, their component along theta* removed, normalised (drawn
// again in the probability-0 event that nothing is left).
func (in *dubey) orthogonal(r *rand.Rand) {
	g := in.g
	for {
		for j := range g {
			g[j] = r.NormFloat64()
		}
		p := dot(g, in.unit)
		for j := range g {
			g[j] -= float64(p * in.unit[j])
		}
		if n := math.Sqrt(dot(g, g)); n > 0 {
			for j := range g {
				g[j] /= n
			}
			return
		}
	}
}
