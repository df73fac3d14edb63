package bco

import (
	"fmt"
	"math"
	"strings"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/internal/fmath"
)

// Algorithm describes one algorithm of the family. The registry wraps
// these entries; the list below is the one place that names them.
type Algorithm struct {
	Name    string // sweep-file name, e.g. "ldp-one-point"
	Display string // name in plots and summaries
	Summary string // one line for help texts and docs
	Trust   string // core.TrustNone or core.TrustLocal
	Points  int    // loss evaluations per user and round: 1 or 2
	// Step is its step size schedule: the step of round t from the
	// tuning (Tuned: the tuned constant, or 1/(mu t) on strongly convex
	// losses). The synthetic and the document runs both take it from here.
	Step Step
	// Params are its own sweep keys, under its [[algorithm]] table.
	Params []core.Param
	// Uses are the generic keys it reads; a grid over any other key plans
	// it once.
	Uses []string
}

// Private reports whether the algorithm's reports carry privacy noise.
func (a *Algorithm) Private() bool { return a.Trust != core.TrustNone }

var (
	stepScale = core.Param{Key: "step_scale", Doc: "multiplier on the tuned step size eta", Default: 1, Min: 1e-6, Max: 1e6}
	// exploreScale multiplies the exploration radius delta (one-point) or
	// rho (two-point); the shrinkage of the body follows it.
	exploreScale = core.Param{Key: "explore_scale", Doc: "multiplier on the tuned exploration radius (delta, or rho for two-point)", Default: 1, Min: 1e-6, Max: 1e6}
	// slidesTuning selects how ldp-one-point tunes its base algorithm
	// (tuneSlides); Late: runs pinned before it keep their ids.
	slidesTuning = core.Param{Key: "tuning", Doc: "0: the base algorithm tuned for the noisy report's second moment C^2 + sigma^2; 1: the slides' black-box reduction (Theorem 1): the non-private tuning, fed the report divided by kappa = (C + sigma sqrt(2 ln(2T/delta))) / C", Default: 0, Min: 0, Max: 1, Integer: true, Late: true}
	analytic     = core.Param{Key: "analytic", Doc: "1: calibrate sigma exactly (Balle & Wang's analytic Gaussian); 0: the slides' sigma = 2 B sqrt(2 ln(1.25/delta)) / eps", Default: 0, Min: 0, Max: 1, Integer: true}
)

var genericKeys = []string{"T", "M", "B", "seed", "checkpoint_every"}

// Step is a step size schedule: the step of round t (1, 2, ..., T) of a
// run tuned as tu (its tuned constant step Eta, its strong-convexity
// modulus Mu, 0 when the loss class has none, and the entry's step_scale).
type Step func(t, T int, tu StepTuning) float64

// StepTuning is what a step schedule reads of a run's tuning.
type StepTuning struct {
	Eta       float64 // the tuned constant step (when Mu == 0)
	Mu        float64 // the modulus the run is tuned with (0: not strongly convex)
	StepScale float64 // the entry's step_scale
}

// Tuned is the slides' schedule: the tuned constant step, or
// step_scale/(mu t) on strongly convex losses.
func Tuned(t, T int, tu StepTuning) float64 {
	if tu.Mu > 0 {
		return tu.StepScale / (tu.Mu * float64(t))
	}
	return tu.Eta
}

var algorithms = []*Algorithm{
	{
		Name: "one-point", Display: "One-point BCO", Trust: core.TrustNone, Points: 1, Step: Tuned,
		Summary: "Flaxman, Kalai & McMahan's one-point gradient estimate with projected gradient descent, tuned per loss class (non-private)",
		Params:  []core.Param{stepScale, exploreScale},
		Uses:    genericKeys,
	},
	{
		Name: "ldp-one-point", Display: "LDP one-point BCO", Trust: core.TrustLocal, Points: 1, Step: Tuned,
		Summary: "Algorithm 1 of Huang et al.: each user adds N(0, sigma^2) to the loss she reports, around the one-point method",
		Params:  []core.Param{stepScale, exploreScale, analytic, slidesTuning},
		Uses:    append([]string{"eps", "delta"}, genericKeys...),
	},
	{
		Name: "two-point", Display: "Two-point BCO", Trust: core.TrustNone, Points: 2, Step: Tuned,
		Summary: "Agarwal, Dekel & Xiao's two-point gradient estimate with the slides' step, exploration radius and shrinkage (non-private)",
		Params:  []core.Param{stepScale, exploreScale},
		Uses:    genericKeys,
	},
	{
		Name: "ldp-two-point", Display: "LDP two-point BCO", Trust: core.TrustLocal, Points: 2, Step: Tuned,
		Summary: "Algorithm 2 of Huang et al.: each user reports f(x1) - f(x2) + n^T (x1 - x2), n ~ N(0, sigma^2 I)",
		Params:  []core.Param{stepScale, exploreScale, analytic},
		Uses:    append([]string{"eps", "delta"}, genericKeys...),
	},
}

// Algorithms returns the family's algorithms in the order plots list them.
func Algorithms() []*Algorithm { return algorithms }

// Lookup returns the named algorithm.
func Lookup(name string) (*Algorithm, error) {
	for _, a := range algorithms {
		if a.Name == name {
			return a, nil
		}
	}
	names := make([]string, len(algorithms))
	for i, a := range algorithms {
		names[i] = a.Name
	}
	return nil, fmt.Errorf("algorithm %q: not a bco algorithm (want one of %s)", name, strings.Join(names, ", "))
}

// tuning is one silo's step size schedule, exploration radius and the
// radius of the shrunk body its iterates stay in.
type tuning struct {
	delta     float64 // exploration radius (delta, or rho for two-point)
	eta       float64 // constant step (when mu == 0)
	mu        float64 // the strong-convexity modulus tuned with (0: none)
	stepScale float64
	shrink    float64 // iterates stay in the ball of this radius
	scale     float64 // gradient estimate = scale * report * u
}

// step returns the step size of round t of T by the entry's schedule.
func (tu *tuning) step(alg *Algorithm, t, T int) float64 {
	return alg.Step(t, T, StepTuning{Eta: tu.eta, Mu: tu.mu, StepScale: tu.stepScale})
}

// tuneRun is the tuning of a run of alg (both the synthetic and the
// document runs): the slides' reduction when its tuning key is 1 (only
// ldp-one-point declares it), else tune for reports of second moment
// C^2 + sigma^2. The entry's step schedule reads it (tuning.step).
func tuneRun(alg *Algorithm, params map[string]float64, class string, d int, R, C, G, beta, mu, sigma float64, T int, delta float64) tuning {
	var tu tuning
	if params["tuning"] == 1 {
		kappa := Kappa(C, sigma, T, delta)
		tu = tuneSlides(class, d, R, C, G, beta, mu, kappa, T, params["step_scale"], params["explore_scale"])
	} else {
		// The one-point report's second moment is at most C^2 + sigma^2;
		// the two-point method keeps the slides' parameters whatever the
		// noise.
		Ct := math.Sqrt(float64(C*C) + float64(sigma*sigma))
		tu = tune(alg.Points, class, d, R, Ct, G, beta, mu, T, params["step_scale"], params["explore_scale"])
	}
	return tu
}

// tune returns the tuning of a one-point or two-point method for a loss
// class on the ball of radius R in R^d over T rounds, for reports whose
// second moment is at most Ct^2 (Ct^2 = C^2 + sigma^2 for the one-point
// report with noise sigma).
//
// One-point (docs/bco.md derives each line): the smoothed loss's bias is
// at most G delta per round (Lipschitz) or beta delta^2 / 2 (smooth), the
// shrunk body costs G delta per round where the optimum is on the
// boundary, and the gradient estimate (d / delta) report u has second
// moment at most (d Ct / delta)^2. Minimising the standard online
// gradient descent bound over eta and delta gives
//
//	convex:          delta ~ T^-1/4, eta = R delta / (d Ct sqrt T), regret ~ T^3/4
//	smooth:          delta ~ T^-1/6, eta as above,                   regret ~ T^2/3
//	strongly convex: eta_t = 1 / (mu t), delta ~ (ln T / T)^1/3,     regret ~ T^2/3
//	s.c. + smooth:   eta_t = 1 / (mu t), delta ~ (ln T / T)^1/4,     regret ~ sqrt(T ln T)
//
// Two-point, the slides' parameters: eta = 1 / sqrt T (eta_t = 1 / (mu t)
// when strongly convex), rho = ln T / T, shrinkage xi = rho / R.
// Every delta is capped at R/2.
func tune(points int, class string, d int, R, Ct, G, beta, mu float64, T int, stepS, exploreS float64) tuning {
	fd, fT := float64(d), float64(T)
	lnT := fmath.Log(math.Max(fT, 2))
	strongly := class == ClassStrongly || class == ClassStronglySmooth
	tu := tuning{stepScale: stepS}
	if strongly {
		tu.mu = mu
	}
	if points == 2 {
		tu.delta = lnT / fT
		if !strongly {
			tu.eta = stepS / math.Sqrt(fT)
		}
	} else {
		switch class {
		case ClassConvex:
			tu.delta = math.Sqrt(R*fd*Ct/(3*G)) * fmath.Pow(fT, -0.25)
		case ClassSmooth:
			tu.delta = math.Cbrt(R*fd*Ct/(2*beta)) * fmath.Pow(fT, -1.0/6)
		case ClassStrongly:
			tu.delta = math.Cbrt(fd * fd * Ct * Ct * (1 + lnT) / (6 * mu * G * fT))
		case ClassStronglySmooth:
			tu.delta = math.Sqrt(math.Sqrt(fd * fd * Ct * Ct * (1 + lnT) / (mu * beta * fT)))
		}
	}
	tu.delta = math.Min(exploreS*tu.delta, R/2)
	if points == 2 {
		tu.scale = fd / (2 * tu.delta)
	} else {
		tu.scale = fd / tu.delta
		if !strongly {
			tu.eta = stepS * R * tu.delta / (fd * Ct * math.Sqrt(fT))
		}
	}
	tu.shrink = R - tu.delta
	return tu
}

// Kappa is the factor by which the slides' reduction (Algorithm 1 and its
// Theorem) divides a one-point report: kappa = B' / C with B' = C + sigma
// sqrt(2 ln(2T / delta)), the range that holds every noisy report f + Z_t,
// Z_t ~ N(0, sigma^2), of T rounds with probability at least 1 - delta
// (P(|Z| > s) <= 2 exp(-s^2 / (2 sigma^2)) for each, and a union bound).
// Since sigma ~ sqrt(ln(1/delta)) / eps, B' - C ~ sqrt(ln(1/delta)
// ln(T/delta)) / eps <= ln(T/delta) / eps: the factor of the slides' bound.
func Kappa(C, sigma float64, T int, delta float64) float64 {
	return (C + float64(sigma*math.Sqrt(2*fmath.Log(2*float64(T)/delta)))) / C
}

// tuneSlides is the tuning of the slides' black-box reduction for a
// one-point method: the base algorithm runs unchanged, tuned as for the
// non-private problem (reports bounded by C; Lipschitz G and smoothness
// beta, which remain upper bounds for the rescaled losses (f + Z_t) /
// kappa), and receives the report divided by kappa, which puts it in
// [-C, C] with probability 1 - delta. Its regret on the rescaled losses is
// the non-private bound, and the regret on the true losses kappa times
// that: linear in kappa, hence ~ 1/eps, for the convex and smooth
// classes. The one constant the rescaling invalidates is the modulus:
// (f + Z_t) / kappa is (mu / kappa)-strongly convex, so the strongly
// convex classes are tuned with mu / kappa, and their bounds grow as
// kappa^(4/3) and kappa^(3/2) (docs/bco.md).
func tuneSlides(class string, d int, R, C, G, beta, mu, kappa float64, T int, stepS, exploreS float64) tuning {
	tu := tune(1, class, d, R, C, G, beta, mu/kappa, T, stepS, exploreS)
	tu.scale /= kappa
	return tu
}
