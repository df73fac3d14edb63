package federate

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/federate/accountant"
	"github.com/fedbandit/fedbandit/federate/tree"
)

// Algorithm describes one algorithm of the simulator. The list returned by
// Algorithms is the one place that names algorithms: sweep validation,
// plans, plots, summaries and help texts consult it. docs/extending.md
// walks through adding an entry.
type Algorithm struct {
	// Name is the algorithm's name in sweep files, Spec.Algorithm and the
	// output tables, e.g. "ldp".
	Name string
	// Display is its name in plots and summaries, e.g. "LDP-FedLinUCB".
	Display string
	// Summary is one line for help texts and docs.
	Summary string
	// Trust is who must be trusted with users' raw data (core.TrustNone,
	// core.TrustLocal, ...): the trust model its privacy claim states.
	Trust string
	// Mechanism names the noise mechanism of its releases ("" for a
	// non-private algorithm), recorded in its privacy claim.
	Mechanism string
	// Params are its own parameters (sweep keys under its [[algorithm]]
	// table, Spec.Params in a spec): key, doc, default and range. An
	// explicit value is checked against the range and never replaced.
	Params []core.Param
	// Uses lists the generic keys (GenericKeys) whose value changes its
	// runs. A key it does not use is set to its absent value in its specs
	// (Spec.Canonical), so a grid over that key plans its runs once.
	Uses []string
	// paramDefault, when set, gives the default of a parameter whose
	// default depends on the run (FedUCB's sync_threshold on T, M and d);
	// ok is false when it cannot be known yet (d of unloaded data).
	paramDefault func(s Spec, key string) (v float64, ok bool)
	// Model is the accountant's privacy model of its releases
	// (accountant.ModelNone for a non-private algorithm): it decides how
	// the noise is calibrated and what privacy a run records.
	Model string
	// Protocols are the protocols by which it can send silo statistics
	// to the server, the default first (ProtocolP, ProtocolPAlt). Empty
	// for an algorithm that never communicates.
	Protocols []string
	// Learns is false for a policy that chooses actions without learning
	// (no statistics, no synchronisation, no noise): eps, delta,
	// relation, protocol, lazy, preset, alpha, R, crs and gram_noise do
	// not apply to it.
	Learns bool
	// validate checks what is specific to the algorithm on a spec with
	// defaults filled (nil: nothing beyond the common checks); a
	// *FieldError names the field at fault.
	validate func(s Spec) error
	// LocalNoise is true when every user's summand is noised before the
	// silo uses it (local DP for users): whatever the learner does with
	// the noisy reports is post-processing, so the eager-learner caveat
	// does not apply, and the lazy key does not either.
	LocalNoise bool
	// AdaptiveSchedule is true when the algorithm's synchronisation times
	// depend on the data: a synchronisation may follow any round (its
	// calibration covers a tree over all T rounds), and its runs are not
	// certified (the schedule itself leaks).
	AdaptiveSchedule bool
	// EveryRound is true when the algorithm updates its statistics after
	// every round whatever B (the super agent): B does not apply and its
	// runs record B = 1.
	EveryRound bool
	// Relation is the one neighbouring relation its guarantee is stated
	// for ("" when the spec's relation applies): the relation key does
	// not apply to it and its runs record this one.
	Relation string
	// glmModel, when set, is the privacy model of its generalized-linear
	// variant, used on instances with a logistic link.
	glmModel string
	// newParts builds the learner, schedule and protocol of one run
	// (parts.go).
	newParts func(su runSetup) (parts, error)
}

// Private reports whether the algorithm's releases carry privacy noise.
func (a *Algorithm) Private() bool { return a.Model != accountant.ModelNone }

// NeedsLazy reports whether the algorithm's guarantee holds only with the
// lazy learner: a private learner with a fixed schedule whose silos would
// otherwise act on their own non-private statistics (docs/privacy.md 2.1).
// Not for local noise (the silo only sees noisy reports) nor an adaptive
// schedule (not certified whatever the learner).
func (a *Algorithm) NeedsLazy() bool {
	return a.Private() && a.Learns && !a.LocalNoise && !a.AdaptiveSchedule
}

// GenericKeys are the sweep keys shared by the family's algorithms whose
// use an algorithm declares (Algorithm.Uses): the privacy targets and
// relation, the learner's protocol, lazy flag, preset, confidence level,
// beta_t constants, Gram-noise convention and noise sampler, and the batch
// size.
var GenericKeys = []string{"eps", "delta", "relation", "protocol", "lazy", "preset", "alpha", "R", "crs", "gram_noise", "noise", "B"}

// UsesKey reports whether the generic key changes the algorithm's runs.
func (a *Algorithm) UsesKey(key string) bool { return slices.Contains(a.Uses, key) }

// Param returns the declaration of the algorithm's parameter key.
func (a *Algorithm) Param(key string) (core.Param, bool) {
	i := slices.IndexFunc(a.Params, func(p core.Param) bool { return p.Key == key })
	if i < 0 {
		return core.Param{}, false
	}
	return a.Params[i], true
}

// Keys the algorithms declare in Uses, composed: a learner's keys (with
// the batch size), a private algorithm's targets and relation.
var (
	learnerKeys = []string{"protocol", "lazy", "preset", "alpha", "R", "crs", "gram_noise", "B"}
	privateKeys = []string{"eps", "delta", "relation"}
	// noiseKeys are the keys of an algorithm with a choice of noise
	// sampler (Spec.Noise): the Gaussian releases' floating-point or exact
	// discrete Gaussian, P_TVec's gonum or exact binomial.
	noiseKeys = []string{"noise"}
)

func uses(lists ...[]string) []string { return slices.Concat(lists...) }

func without(keys []string, drop ...string) []string {
	return slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return slices.Contains(drop, k) })
}

// algorithms is the registry, in the order plots and tables list them.
var algorithms = []*Algorithm{
	{
		Name: AlgFedLinUCB, Display: "FedLinUCB", Model: accountant.ModelNone, Trust: core.TrustNone,
		Uses:      learnerKeys,
		Summary:   "non-private FedLinUCB: silos send their exact batch statistics every B rounds",
		Protocols: []string{ProtocolP, ProtocolPAlt}, Learns: true,
		newParts: federatedLinUCB,
	},
	{
		Name: AlgLDP, Display: "LDP-FedLinUCB", Model: accountant.ModelLDP,
		Trust: core.TrustLocal, Mechanism: "tree-gaussian", Uses: uses(privateKeys, learnerKeys, noiseKeys),
		Summary:   "Private-FedLinUCB under silo-level local DP: each silo privatises its statistics (tree mechanism)",
		Protocols: []string{ProtocolP, ProtocolPAlt}, Learns: true,
		newParts: federatedLinUCB,
	},
	{
		Name: AlgSDPAmp, Display: "SDP-FedLinUCB", Model: accountant.ModelSDPAmp,
		Trust: core.TrustShuffle, Mechanism: "tree-gaussian-shuffled", Uses: uses(privateKeys, learnerKeys, noiseKeys),
		Summary: "Private-FedLinUCB under shuffle DP by amplification: protocol P with a shuffler and smaller noise",
		// Shuffle amplification is defined for protocol P only.
		Protocols: []string{ProtocolP}, Learns: true,
		newParts: federatedLinUCB,
	},
	{
		Name: AlgSDPVec, Display: "SDP-FedLinUCB (vector sum)", Model: accountant.ModelSDPVec,
		Trust: core.TrustShuffle, Mechanism: "tree-vecsum-binomial", Uses: uses(without(privateKeys, "relation"), learnerKeys, noiseKeys),
		Summary: "Private-FedLinUCB under shuffle DP through the vector-sum protocol P_TVec: every tree node is P_Vec's binomial-noise sum of its users' encoded summands over all silos",
		// P_TVec is protocol P's tree with P_Vec nodes; the shuffle
		// model's neighbouring datasets differ in one user's data.
		Protocols: []string{ProtocolP}, Learns: true, Relation: accountant.ReplaceOne,
		newParts: vecSumParts,
		validate: func(s Spec) error {
			if s.T%s.B != 0 {
				return &FieldError{Field: "T", Msg: fmt.Sprintf("T = %d with sdp-vec: want a multiple of B = %d (every tree node holds 2^j B M users)", s.T, s.B)}
			}
			if s.GramNoise != tree.Symmetrised {
				return &FieldError{Field: "GramNoise", Msg: "GramNoise with sdp-vec: its noise is binomial on each packed entry"}
			}
			return nil
		},
	},
	{
		Name: AlgSuperAgent, Display: "Super agent (central JDP)", Model: accountant.ModelCentral,
		Trust: core.TrustCentral, Mechanism: "tree-gaussian", Uses: uses(privateKeys, without(learnerKeys, "lazy", "B"), noiseKeys),
		Summary: "super single agent under central joint DP (Shariff & Sheffet 2018): one trusted learner over all M T users, one tree mechanism, updated every round; the benchmark for the shuffle protocols",
		// Its curator is central: no silo-level protocol to choose.
		Protocols: []string{ProtocolP}, Learns: true, EveryRound: true,
		newParts: superAgentParts,
	},
	{
		Name: AlgFedUCB, Display: "FedUCB", Model: accountant.ModelFedUCB,
		Trust: core.TrustLocal, Mechanism: "tree-gaussian", Uses: uses(privateKeys, learnerKeys, noiseKeys),
		Params:       fedUCBParams,
		paramDefault: fedUCBThreshold,
		Summary:      "FedUCB (Dubey & Pentland 2020): a synchronisation when a silo's log-det condition fires on its own data, tree-based noise; never certified (the schedule leaks)",
		// FedUCB's silos send their noisy cumulative statistics.
		Protocols: []string{ProtocolPAlt}, Learns: true, AdaptiveSchedule: true,
		newParts: fedUCBParts,
		validate: validateFedUCB,
	},
	{
		Name: AlgFedUCBNonPrivate, Display: "FedUCB (non-private)", Model: accountant.ModelNone, Trust: core.TrustNone,
		Uses:         learnerKeys,
		Params:       fedUCBParams,
		paramDefault: fedUCBThreshold,
		Summary:      "FedUCB without noise (Dubey & Pentland 2020, the non-private curves of their Figure 1 B): the same log-det schedule, the silos' exact statistics",
		Protocols:    []string{ProtocolPAlt}, Learns: true, AdaptiveSchedule: true,
		newParts: fedUCBParts,
		validate: validateFedUCB,
	},
	{
		Name: AlgDisLinUCB, Display: "DisLinUCB", Model: accountant.ModelNone, Trust: core.TrustNone,
		Uses:         learnerKeys,
		Params:       disLinUCBParams,
		paramDefault: disLinUCBDefault,
		Summary:      "DisLinUCB (Wang et al., ICLR 2020): a synchronisation when a silo's (t - t_last) log(det V_t / det V_last) exceeds D, exact statistics (non-private); each_silo = 1: only the triggering silos upload and download",
		Protocols:    []string{ProtocolPAlt}, Learns: true, AdaptiveSchedule: true,
		newParts: disLinUCBParts,
		validate: validateDisLinUCB,
	},
	{
		Name: AlgLDPLinUCB, Display: "LDP-LinUCB", Model: accountant.ModelUserLDP,
		Trust: core.TrustLocal, Mechanism: "user-gaussian", Uses: uses(without(privateKeys, "relation"), without(learnerKeys, "lazy"), noiseKeys),
		Summary:   "LDP-LinUCB (Zheng et al. 2020): every user noises her own x x^T and x y before the silo sees them (local DP for users); silos share the noisy sums every B rounds; on a logistic-link instance its generalized-linear variant LDP-GLOC",
		Protocols: []string{ProtocolP}, Learns: true, LocalNoise: true,
		glmModel: accountant.ModelUserLDPGLM,
		newParts: ldpLinUCBParts,
	},
	{
		Name: AlgRandom, Display: "Uniform random", Model: accountant.ModelNone, Trust: core.TrustNone,
		Uses:    []string{"B"},
		Summary: "plays a uniformly random action every round (learns nothing): the level of no learning",
		Learns:  false, newParts: uniformRandom,
		validate: func(s Spec) error {
			if s.Lazy {
				return &FieldError{Field: "Lazy", Msg: fmt.Sprintf("Lazy with %s: it has no learner", s.Algorithm)}
			}
			return nil
		},
	},
	{
		Name: AlgEpsGreedy, Display: "eps-greedy FedLinUCB", Model: accountant.ModelNone, Trust: core.TrustNone,
		Summary:   "non-private FedLinUCB whose silos play a uniformly random action with probability explore (explore = 0: FedLinUCB, 1: the random policy's actions)",
		Protocols: []string{ProtocolP, ProtocolPAlt}, Learns: true, Uses: learnerKeys,
		Params: []core.Param{{Key: "explore", Default: 0.1, Min: 0, Max: 1,
			Doc: "probability that a silo plays a uniformly random action instead of its UCB choice"}},
		newParts: epsGreedyParts,
	},
}

// fedUCBParams are the parameters of FedUCB, private and not: the
// threshold D and the communication regime that sets it.
var fedUCBParams = []core.Param{
	{Key: "sync_threshold", Default: math.NaN(), Min: 0, Max: math.MaxFloat64,
		Doc: "log-det threshold D: silo i asks for a synchronisation when its log det growth exceeds D/(t - t_last), D = 0 after every round; default T ln(MT)/(dM); absent (null) with a regime, which sets D"},
	{Key: "regime", Default: RegimeNone, Min: 0, Max: RegimeMT, Integer: true, Late: true,
		Doc: "communication regime of Dubey & Pentland's Figure 1 B, which sets D: 1 n = O(M^1.5) (D = T ln(MT)/(dM)), 2 n = O(M log T) (D = 2Td/(ln(1 + T/d) + 1)), 3 n = O(M T) (every round), for the run's T, M and d; 0 (default): D is sync_threshold"},
}

// Algorithms returns the registry, in display order. The entries are
// shared: do not modify them.
func Algorithms() []*Algorithm { return algorithms }

// AlgorithmNames returns the registered names, in display order.
func AlgorithmNames() []string {
	names := make([]string, len(algorithms))
	for i, a := range algorithms {
		names[i] = a.Name
	}
	return names
}

// LookupAlgorithm returns the registered algorithm called name, or an
// error listing the known names.
func LookupAlgorithm(name string) (*Algorithm, error) {
	for _, a := range algorithms {
		if a.Name == name {
			return a, nil
		}
	}
	if name == "" {
		return nil, fmt.Errorf("no algorithm given: want one of %s", quoteList(AlgorithmNames()))
	}
	return nil, fmt.Errorf("unknown algorithm %q: want one of %s", name, quoteList(AlgorithmNames()))
}

// AlgorithmOrder returns the display position of the algorithm called
// name (after every registered one if it is not registered).
func AlgorithmOrder(name string) int {
	if i := slices.IndexFunc(algorithms, func(a *Algorithm) bool { return a.Name == name }); i >= 0 {
		return i
	}
	return len(algorithms)
}

// DisplayName returns the display name of the algorithm called name (the
// name itself if it is not registered).
func DisplayName(name string) string {
	if a, err := LookupAlgorithm(name); err == nil {
		return a.Display
	}
	return name
}

func quoteList(v []string) string {
	q := make([]string, len(v))
	for i, s := range v {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// Kernels names the kernels this build runs on this machine: "avx2+fma"
// (the assembly kernels) or "go" (their portable twins, e.g. under -tags
// purego). Speeds measured with one do not apply to the other.
func Kernels() string { return kern.Name }
