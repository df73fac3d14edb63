package mab

import (
	"math"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/internal/fmath"
)

// Algorithm describes one entry of the family: batched successive
// elimination with one privacy protocol, or a Policy of another shape
// (UCB1). An entry is declarative: its noise (what is added, and where)
// and its batch schedule, or its policy, say how it runs and how it is
// accounted; no code chooses behaviour by its name.
type Algorithm struct {
	Name    string // sweep-file name, e.g. "dist-rdp-se"
	Display string // label in plots and tables
	Summary string // one line for help texts
	Trust   string // core.TrustNone, core.TrustCentral, core.TrustLocal, core.TrustDistributed
	Model   string // privacy model of the noise: "", "pure", "rdp" or "zcdp"
	Noise   Noise
	// Schedule gives batch b's users per active arm: the run and the
	// accountant both call it.
	Schedule Schedule
	Params   []core.Param
	// Uses lists the generic keys the algorithm reads (of eps, delta, T,
	// seed); a grid value for another generic key does not change its run.
	Uses []string
	// Policy, set for an entry that is not batched successive
	// elimination, builds its rule (Schedule is then unset); the family
	// plays it on the run's reward stream. A private policy entry declares
	// its Noise (mechanism and sampler) and its policy states its own
	// claim (a PrivatePolicy).
	Policy func(PolicySetup) (Policy, error)
}

// Noise declares an entry's privacy noise: its law (Kind) and where it is
// added (Placement). The protocol and the accountant are chosen by it.
type Noise struct {
	Kind      string // NoiseNone, NoiseLaplaceGrid, NoiseDLap, NoisePolya, NoiseSkellam, NoiseDGauss
	Placement string // "" (no noise), PlaceCentral, PlaceLocal or PlaceShares
	Mechanism string // the claim's mechanism name (runs.arrow's calibration)
	// Sampler is the sampler that draws it by short name (a core.Sampler*
	// constant, as every family records it: runs.arrow's sampler);
	// SamplerNote says how, in the claim's note.
	Sampler     string
	SamplerNote string
}

// Noise kinds and placements.
const (
	NoiseNone        = ""
	NoiseLaplaceGrid = "laplace-grid" // Laplace(1/eps) on the 2^-20 grid: the exact discrete Laplace of an integer sum of sensitivity 2^20
	NoiseDLap        = "dlap"         // discrete Laplace exp(-eps/g) on an integer sum of sensitivity g
	NoisePolya       = "polya"        // Polya shares summing to a discrete Laplace
	NoiseSkellam     = "skellam"      // Skellam shares
	NoiseDGauss      = "dgauss"       // discrete Gaussian shares

	PlaceCentral = "central" // the server (or analyser) adds the noise to a sum
	PlaceLocal   = "local"   // every user adds it to her own message
	PlaceShares  = "shares"  // every user adds a share; SecAgg sums them (distributed)
)

// Schedule is a batch schedule: the users per active arm of batch b
// (b = 1, 2, ...) when k arms are active, before the cap at T, from the
// run's eps and the entry's parameters. It must grow with b.
type Schedule func(b, k int, eps float64, params map[string]float64) float64

// Geometric is the paper's schedule: n_b = growth^b.
func Geometric(b, k int, eps float64, params map[string]float64) float64 {
	return fmath.Pow(params["growth"], float64(b))
}

// AccuracyHalving is Sajed & Sheffet's (DP-SE's) schedule: batch b is
// sized for accuracy D = accuracy_base^-b,
// 1 + floor(max(32 ln(8 k b^2/conf)/D^2, 8 ln(4 k b^2/conf)/(D eps))).
func AccuracyHalving(b, k int, eps float64, params map[string]float64) float64 {
	return dpseBatch(b, k, params["accuracy_base"], eps, params["conf"])
}

// Parameters shared by every entry (each entry lists the ones it takes).
var (
	paramConf  = core.Param{Key: "conf", Doc: "confidence level delta of the elimination (and of the SecAgg accuracy tau)", Default: 0.1, Min: 1e-12, Max: 0.999}
	paramCrs   = core.Param{Key: "crs", Doc: "multiplier of the confidence width (the script's crs)", Default: 1, Min: 0, Max: math.Inf(1)}
	paramGrow  = core.Param{Key: "growth", Doc: "batch b has growth^b users per active arm", Default: 4, Min: 2, Max: 64, Integer: true}
	paramAcc   = core.Param{Key: "accuracy_base", Doc: "batch b is sized for accuracy D = accuracy_base^-b (Sajed & Sheffet's schedule)", Default: 2, Min: 2, Max: 64, Integer: true}
	paramS     = core.Param{Key: "S", Doc: "scale factor of the precision, g = ceil(S eps sqrt(N))", Default: 10, Min: 1, Max: 1000}
	paramRef   = core.Param{Key: "reference_code", Doc: "1: the authors' script's noise (DP-SE: one Laplace draw shared by all arms; Dist-DP-SE: the Polya Gamma scale inverted), never certified", Default: 0, Min: 0, Max: 1, Integer: true}
	paramPaper = core.Param{Key: "paper_eps", Doc: "1: eps is the paper's Renyi (Theorem 2) or zCDP (rho = eps^2/2) parameter, the preset of the paper's figures, and the claim states what it gives at delta; 0: eps is the target (eps, delta)-DP and the noise is calibrated to it", Default: 0, Min: 0, Max: 1, Integer: true, Pinned: &paperPinned}
	paramUser  = core.Param{Key: "per_user", Doc: "1: every user draws her noise share; 0: the batch's total noise is drawn once (same law)", Default: 0, Min: 0, Max: 1, Integer: true}
)

// paperPinned is paper_eps's pinned value: runs made before the key
// existed had eps as the paper's parameter, so paper_eps = 1 keeps their
// ids, and the default, eps as the target, gives runs ids of their own.
var paperPinned = 1.0

// Algorithms lists the family's entries in the order of the paper's
// Figure 4. Defaults are those of the authors' script (conf 0.1, crs 1,
// batches 4^b, DP-SE's D = 2^-b) and of the paper (S = 10).
var Algorithms = []Algorithm{
	{Name: "se", Display: "SE", Summary: "batched successive elimination, non-private (Hoeffding widths)",
		Trust: core.TrustNone, Schedule: Geometric, Params: []core.Param{paramConf, paramCrs, paramGrow}, Uses: []string{"T", "seed"}},
	{Name: "dp-se", Display: "DP-SE", Summary: "Sajed & Sheffet (2019): central Laplace(1/eps) on each arm's batch sum (exact, on a 2^-20 grid), pure DP",
		Trust: core.TrustCentral, Model: "pure", Schedule: AccuracyHalving,
		Noise:  Noise{Kind: NoiseLaplaceGrid, Placement: PlaceCentral, Mechanism: "laplace-central", Sampler: core.SamplerDiscreteLaplace, SamplerNote: "exact discrete Laplace (CKS20) on the 2^-20 grid"},
		Params: []core.Param{paramConf, paramCrs, paramAcc, paramRef},
		Uses:   []string{"eps", "T", "seed"}},
	{Name: "cdp-se", Display: "CDP-SE", Summary: "Appendix G.1: SecAgg of the encoded rewards, the analyser adds discrete Laplace noise, central pure DP",
		Trust: core.TrustCentral, Model: "pure", Schedule: Geometric,
		Noise:  Noise{Kind: NoiseDLap, Placement: PlaceCentral, Mechanism: "dlap-central-secagg", Sampler: core.SamplerDiscreteLaplace, SamplerNote: "exact discrete Laplace (CKS20)"},
		Params: []core.Param{paramConf, paramCrs, paramGrow}, Uses: []string{"eps", "T", "seed"}},
	{Name: "ldp-se", Display: "LDP-SE", Summary: "Appendix G.2: every user adds discrete Laplace noise to her encoded reward, local pure DP",
		Trust: core.TrustLocal, Model: "pure", Schedule: Geometric,
		Noise:  Noise{Kind: NoiseDLap, Placement: PlaceLocal, Mechanism: "dlap-local", Sampler: core.SamplerDiscreteLaplace, SamplerNote: "exact discrete Laplace (CKS20)"},
		Params: []core.Param{paramConf, paramCrs, paramGrow}, Uses: []string{"eps", "T", "seed"}},
	{Name: "dist-dp-se", Display: "Dist-DP-SE", Summary: "Theorem 1: Polya shares under SecAgg, discrete Laplace in total, distributed pure DP",
		Trust: core.TrustDistributed, Model: "pure", Schedule: Geometric,
		Noise:  Noise{Kind: NoisePolya, Placement: PlaceShares, Mechanism: "polya-secagg", Sampler: core.SamplerDiscreteLaplace, SamplerNote: "exact discrete Laplace (CKS20) for the batch's total"},
		Params: []core.Param{paramConf, paramCrs, paramGrow, paramUser, paramRef}, Uses: []string{"eps", "T", "seed"}},
	{Name: "dist-rdp-se", Display: "Dist-RDP-SE", Summary: "Theorem 2: Skellam shares under SecAgg, distributed Renyi DP",
		Trust: core.TrustDistributed, Model: "rdp", Schedule: Geometric,
		Noise:  Noise{Kind: NoiseSkellam, Placement: PlaceShares, Mechanism: "skellam-secagg", Sampler: core.SamplerSkellam, SamplerNote: "exact Skellam (two exact Poissons)"},
		Params: []core.Param{paramConf, paramCrs, paramGrow, paramS, paramUser, paramPaper}, Uses: []string{"eps", "delta", "T", "seed"}},
	{Name: "dist-cdp-se", Display: "Dist-CDP-SE", Summary: "Appendix E: discrete Gaussian shares under SecAgg, distributed concentrated DP",
		Trust: core.TrustDistributed, Model: "zcdp", Schedule: Geometric,
		Noise:  Noise{Kind: NoiseDGauss, Placement: PlaceShares, Mechanism: "dgauss-secagg", Sampler: core.SamplerDiscreteGaussian, SamplerNote: "exact discrete Gaussian (CKS20)"},
		Params: []core.Param{paramConf, paramCrs, paramGrow, paramS, paramPaper}, Uses: []string{"eps", "delta", "T", "seed"}},
	{Name: "ucb1", Display: "UCB1", Summary: "Auer et al. (2002): the arm of largest mean + c sqrt(2 ln n / n_a) each round, non-private (not batched)",
		Trust: core.TrustNone, Policy: newUCB1, Params: []core.Param{paramC}, Uses: []string{"T", "seed"}},
	{Name: "dp-ucb", Display: "DP-UCB", Summary: "Mishra & Thakurta (2015), Private UCB: UCB1 on each arm's reward sum released by tree-based aggregation (Chan, Shi & Song 2011) with discrete Laplace noise at a trusted server, central pure DP (not batched)",
		Trust: core.TrustCentral, Model: "pure", Policy: newDPUCB,
		Noise:  Noise{Kind: NoiseLaplaceGrid, Placement: PlaceCentral, Mechanism: "laplace-tree-central", Sampler: core.SamplerDiscreteLaplace, SamplerNote: "exact discrete Laplace (CKS20) on the 2^-20 grid"},
		Params: []core.Param{paramC}, Uses: []string{"eps", "T", "seed"}},
}

// Lookup returns the entry named name.
func Lookup(name string) (Algorithm, bool) {
	for _, a := range Algorithms {
		if a.Name == name {
			return a, true
		}
	}
	return Algorithm{}, false
}
