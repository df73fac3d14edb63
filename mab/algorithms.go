package mab

import (
	"math"

	"github.com/fedbandit/fedbandit/core"
)

// Algorithm describes one entry of the family: batched successive
// elimination with one privacy protocol.
type Algorithm struct {
	Name    string // sweep-file name, e.g. "dist-rdp-se"
	Display string // label in plots and tables
	Summary string // one line for help texts
	Trust   string // core.TrustNone, core.TrustCentral, core.TrustLocal, core.TrustDistributed
	Model   string // privacy model of the claim: "", "pure", "rdp" or "zcdp"
	Params  []core.Param
	// Uses lists the generic keys the algorithm reads (of eps, delta, T,
	// seed); a grid value for another generic key does not change its run.
	Uses []string
}

// Parameters shared by every entry (each entry lists the ones it takes).
var (
	paramConf = core.Param{Key: "conf", Doc: "confidence level delta of the elimination (and of the SecAgg accuracy tau)", Default: 0.1, Min: 1e-12, Max: 0.999}
	paramCrs  = core.Param{Key: "crs", Doc: "multiplier of the confidence width (the script's crs)", Default: 1, Min: 0, Max: math.Inf(1)}
	paramGrow = core.Param{Key: "growth", Doc: "batch b has growth^b users per active arm", Default: 4, Min: 2, Max: 64, Integer: true}
	paramS    = core.Param{Key: "S", Doc: "scale factor of the precision, g = ceil(S eps sqrt(N))", Default: 10, Min: 1, Max: 1000}
	paramRef  = core.Param{Key: "reference_code", Doc: "1: the authors' script's noise (DP-SE: one Laplace draw shared by all arms; Dist-DP-SE: the Polya Gamma scale inverted), never certified", Default: 0, Min: 0, Max: 1, Integer: true}
	paramUser = core.Param{Key: "per_user", Doc: "1: every user draws her noise share; 0: the batch's total noise is drawn once (same law)", Default: 0, Min: 0, Max: 1, Integer: true}
)

// Algorithms lists the family's entries in the order of the paper's
// Figure 4. Defaults are those of the authors' script (conf 0.1, crs 1,
// batches 4^b, DP-SE's D = 2^-b) and of the paper (S = 10).
var Algorithms = []Algorithm{
	{Name: "se", Display: "SE", Summary: "batched successive elimination, non-private (Hoeffding widths)",
		Trust: core.TrustNone, Params: []core.Param{paramConf, paramCrs, paramGrow}, Uses: []string{"T", "seed"}},
	{Name: "dp-se", Display: "DP-SE", Summary: "Sajed & Sheffet (2019): central Laplace(1/eps) on each arm's batch sum, pure DP",
		Trust: core.TrustCentral, Model: "pure",
		Params: []core.Param{paramConf, paramCrs, {Key: "growth", Doc: "the batch is sized for accuracy D = growth^-b", Default: 2, Min: 2, Max: 64, Integer: true}, paramRef},
		Uses:   []string{"eps", "T", "seed"}},
	{Name: "cdp-se", Display: "CDP-SE", Summary: "Appendix G.1: SecAgg of the encoded rewards, the analyser adds discrete Laplace noise, central pure DP",
		Trust: core.TrustCentral, Model: "pure", Params: []core.Param{paramConf, paramCrs, paramGrow}, Uses: []string{"eps", "T", "seed"}},
	{Name: "ldp-se", Display: "LDP-SE", Summary: "Appendix G.2: every user adds discrete Laplace noise to her encoded reward, local pure DP",
		Trust: core.TrustLocal, Model: "pure", Params: []core.Param{paramConf, paramCrs, paramGrow}, Uses: []string{"eps", "T", "seed"}},
	{Name: "dist-dp-se", Display: "Dist-DP-SE", Summary: "Theorem 1: Polya shares under SecAgg, discrete Laplace in total, distributed pure DP",
		Trust: core.TrustDistributed, Model: "pure", Params: []core.Param{paramConf, paramCrs, paramGrow, paramUser, paramRef}, Uses: []string{"eps", "T", "seed"}},
	{Name: "dist-rdp-se", Display: "Dist-RDP-SE", Summary: "Theorem 2: Skellam shares under SecAgg, distributed Renyi DP",
		Trust: core.TrustDistributed, Model: "rdp", Params: []core.Param{paramConf, paramCrs, paramGrow, paramS, paramUser}, Uses: []string{"eps", "delta", "T", "seed"}},
	{Name: "dist-cdp-se", Display: "Dist-CDP-SE", Summary: "Appendix E: discrete Gaussian shares under SecAgg, distributed concentrated DP",
		Trust: core.TrustDistributed, Model: "zcdp", Params: []core.Param{paramConf, paramCrs, paramGrow, paramS}, Uses: []string{"eps", "delta", "T", "seed"}},
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
