// Package federate simulates federated linear contextual bandits: M silos
// playing LinUCB on their own users, a server that aggregates their batch
// statistics every B rounds, and the privacy protocols of Zhou & Chowdhury
// (ICLR 2024) between them.
package federate

import (
	"sync"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/federate/accountant"
	"github.com/fedbandit/fedbandit/internal/vec"
)

// Algorithm names.
const (
	// AlgFedLinUCB is non-private FedLinUCB with a fixed batch B.
	AlgFedLinUCB = "fedlinucb"
	// AlgLDP is Private-FedLinUCB under silo-level local DP.
	AlgLDP = "ldp"
	// AlgSDPAmp is Private-FedLinUCB under shuffle DP by amplification.
	AlgSDPAmp = "sdp-amp"
)

// Protocol names (how noisy tree nodes reach the server).
const (
	// ProtocolP is paper Algorithm 2: silos send noisy p-sum nodes, the
	// server sums them per level and publishes prefix sums.
	ProtocolP = "P"
	// ProtocolPAlt is paper Algorithm 4: each silo publishes its own noisy
	// prefix sum and the server adds them.
	ProtocolPAlt = "P_alt"
)

// Instance kinds.
const (
	InstanceSynthetic = "synthetic"
	InstanceLTR       = "ltr"
)

// SyntheticSpec parameterises the paper's Gaussian instance (section 5 of
// protocol.md).
type SyntheticSpec struct {
	D          int     `json:"D"`          // feature dimension (10)
	K          int     `json:"K"`          // actions per silo per round (100)
	NoiseVar   float64 `json:"NoiseVar"`   // variance of the Gaussian reward noise (0.25)
	FixedBasis bool    `json:"FixedBasis"` // the published code's fixed basis-like first d actions
	// Seed draws theta* (and fixed actions); separate from the run seed so
	// that many runs can share one instance.
	Seed uint64 `json:"Seed"`
	// SharedContexts draws contexts from the instance seed (one instance
	// for all runs, as the published code did) instead of the run seed.
	SharedContexts bool `json:"SharedContexts"`
	// ContextGen chooses the generator of the contexts' Gaussian
	// coordinates: ContextsFast (default when empty), ContextsChaCha8 or
	// ContextsNumPy (the published code's instance, theta* included).
	ContextGen string `json:"ContextGen"`
	// Theta, when given, is theta* itself (length D) instead of the one
	// the instance seed draws.
	Theta []float64 `json:"Theta,omitempty"`
	// Link is the reward model: "" (LinkIdentity: mean x.theta* plus
	// Gaussian noise of variance NoiseVar) or LinkLogistic (mean
	// 1/(1+exp(-x.theta*)), Bernoulli rewards, NoiseVar 0).
	Link string `json:"Link,omitempty"`
}

// Reward links of the synthetic instance.
const (
	// LinkIdentity is the linear model (the empty Link means it).
	LinkIdentity = "identity"
	// LinkLogistic is the logistic model with Bernoulli rewards, under
	// which ldp-linucb uses its generalized-linear learner (LDP-GLOC).
	LinkLogistic = "logistic"
)

// Spec fully specifies one simulation run. Together with the content
// hashes of its data it determines the run's identity and its output bytes.
//
// Run ids hash the JSON of Spec (and the synthetic instance hash that of
// SyntheticSpec), so the JSON names are pinned: the fields below keep
// their names as they are. A new field must carry `json:"name,omitempty"`
// so that its zero value leaves every existing id unchanged
// (runner.TestRunIDsPinned and TestSpecJSONTags enforce both).
type Spec struct {
	Instance  string                  `json:"Instance"`  // InstanceSynthetic or InstanceLTR
	Synthetic SyntheticSpec           `json:"Synthetic"` // used when Instance == InstanceSynthetic
	LTR       *LTRData                `json:"LTR"`       // used when Instance == InstanceLTR (shared, read-only)
	Algorithm string                  `json:"Algorithm"` // AlgFedLinUCB, AlgLDP or AlgSDPAmp
	Protocol  string                  `json:"Protocol"`  // ProtocolP (default) or ProtocolPAlt
	Lazy      bool                    `json:"Lazy"`      // paper Algorithm 8: act on synchronised statistics only
	Preset    string                  `json:"Preset"`    // accountant.PresetExact (default), PresetPaper or PresetReferenceCode
	Eps       float64                 `json:"Eps"`       // target epsilon (private algorithms)
	Delta     float64                 `json:"Delta"`     // target delta (private algorithms)
	Relation  string                  `json:"Relation"`  // accountant.AddRemove (default) or accountant.ReplaceOne
	M         int                     `json:"M"`         // silos
	T         int                     `json:"T"`         // rounds per silo
	B         int                     `json:"B"`         // batch size
	Alpha     float64                 `json:"Alpha"`     // UCB confidence level (default 0.01)
	Every     int                     `json:"Every"`     // checkpoint spacing in rounds (default B); the last round is always recorded
	Seed      uint64                  `json:"Seed"`      // run seed: every random stream of the run derives from it
	Calib     *accountant.Calibration `json:"Calib"`     // optional override; normally computed from the spec

	// R and Crs are the beta_t constants (reward-noise scale and
	// multiplier). Zero means the instance default: synthetic R =
	// sqrt(NoiseVar) and Crs = 1; ltr LTRData.R and LTRData.Crs (1 and 0.1
	// when those are zero).
	R   float64 `json:"R"`
	Crs float64 `json:"Crs"`
	// GramNoise is the Gram-noise convention: tree.Symmetrised (default,
	// the published code's (Z+Z^T)/2) or tree.UpperIID.
	GramNoise string `json:"GramNoise"`
	// RewardLo, RewardHi is the interval observed rewards are clamped to
	// before they enter any statistic (default [0, 1]). Private algorithms
	// need max(|RewardLo|, |RewardHi|) <= 1 so that the bias stream has
	// sensitivity 1. Feature vectors are always projected to ||x|| <= 1.
	RewardLo float64 `json:"RewardLo"`
	RewardHi float64 `json:"RewardHi"`
	// NoClip disables the clamping of rewards (the published code does not
	// clamp). A private run without the clamp is recorded as not
	// certified: its bias stream has no bounded sensitivity.
	NoClip bool `json:"NoClip"`
	// Params are the algorithm's own parameters (Algorithm.Params) by
	// key, e.g. {"explore": 0.1}. An absent key takes its default
	// (WithDefaults); a present one is checked against the declared range
	// and never replaced: explore = 0 is pure greedy. encoding/json sorts
	// the keys, so the run id does not depend on the map's order.
	Params map[string]float64 `json:"Params,omitempty"`
	// Noise is the sampler of the privacy noise of the algorithms with
	// Gaussian releases (Algorithm.Uses lists "noise"): NoiseGaussian, the
	// fast floating-point Gaussian (the empty value means it; its
	// guarantee covers the mechanism in exact arithmetic only), or
	// NoiseDiscrete, the exact discrete Gaussian on the grid
	// accountant.Grid(sigma), each user's contribution rounded to the grid
	// before it is summed, whose guarantee covers this implementation too
	// (docs/privacy.md, "The discrete Gaussian"). Absent from the JSON when
	// empty, so that no existing run id changes.
	Noise string `json:"Noise,omitempty"`
	// Dubey parameterises the Dubey & Pentland instance (Instance ==
	// InstanceDubey; nil otherwise). Shared, read-only.
	Dubey *DubeySpec `json:"Dubey,omitempty"`
}

// Noise samplers (Spec.Noise).
const (
	// NoiseGaussian is the floating-point Gaussian sampler: fast, not a
	// secure deployment.
	NoiseGaussian = accountant.NoiseGaussian
	// NoiseDiscrete is the exact discrete Gaussian on a power-of-two grid.
	NoiseDiscrete = accountant.NoiseDiscrete
)

// LTRData is a learning-to-rank bandit instance prepared from a dataset:
// per query, the learner's view of each document and its mean reward, and
// the queries owned by each silo. It is built once and shared read-only by
// all concurrent runs.
type LTRData struct {
	Name string // human-readable description (dataset, feature set, model)
	Dim  int    // d, the learner's feature dimension
	// Queries: X is n x d row-major (the learner's view: each document's
	// feature vector divided by its L2 norm), Mu the mean reward of each
	// document under the reward model.
	Queries []LTRQuery
	// Silos[i] lists the indices into Queries owned by silo i.
	Silos [][]int
	// NoiseStd is the standard deviation of Gaussian reward noise (0 for
	// the noiseless reference model).
	NoiseStd float64
	// Bernoulli is the reward law: a document's reward is Bernoulli(Mu)
	// (a click with probability Mu: every Mu in [0, 1], NoiseStd 0)
	// instead of Mu plus Gaussian noise. It is data of the instance, set
	// by the kind that computed Mu, so that a kind with another law needs
	// no simulator edit.
	Bernoulli bool
	// R and Crs are the beta_t constants of the instance (1 and 0.1 in the
	// paper's learning-to-rank experiments).
	R, Crs float64
	// Hash is a content hash of everything above, part of run identities.
	Hash string
	// Note warns about the instance (e.g. a theta* whose lasso fit did not
	// converge); sweeps copy it into calibration_note. Not part of Hash.
	Note string

	// The queries' X in panel layout (the UCB kernel's), built once on
	// first use and shared by all runs (and by instances that share the
	// queries: see ShareQueries).
	store *panelStore
	// storeOnce guards the creation of store (panelStore, ShareQueries).
	storeOnce sync.Once
}

// panelStore holds the panel-layout copy of a query set's X.
type panelStore struct {
	once   sync.Once
	panels [][]float64
}

// ShareQueries makes l use from's queries (which must be identical to
// l's: the caller checks) and the panel copy built from them, so that
// instances differing only in their partition hold the documents once.
// Call it before any run uses l.
func (l *LTRData) ShareQueries(from *LTRData) {
	st := from.panelStore()
	l.Queries = from.Queries
	l.storeOnce.Do(func() {})
	l.store = st
}

// panelStore returns l's panel store, creating an empty one on first use.
func (l *LTRData) panelStore() *panelStore {
	l.storeOnce.Do(func() { l.store = &panelStore{} })
	return l.store
}

// Bytes is the memory the instance holds once runs have used it: X and Mu
// and the panel-layout copy of X that the UCB kernel reads (built on first
// use), 8 bytes per value.
func (l *LTRData) Bytes() int64 {
	var n int64
	for _, q := range l.Queries {
		n += int64(len(q.X) + len(q.Mu) + vec.PanelLen(len(q.Mu), l.Dim))
	}
	return 8 * n
}

// panel returns query q's documents in panel layout. Safe for concurrent
// use: the first call converts every query.
func (l *LTRData) panel(q int) panel {
	st := l.panelStore()
	st.once.Do(func() {
		st.panels = make([][]float64, len(l.Queries))
		for i, qq := range l.Queries {
			n := len(qq.Mu)
			st.panels[i] = make([]float64, vec.PanelLen(n, l.Dim))
			vec.ToPanel(st.panels[i], qq.X, n, l.Dim)
		}
	})
	return panel{x: st.panels[q], n: len(l.Queries[q].Mu)}
}

// LTRQuery is one query: its documents are the actions.
type LTRQuery struct {
	X  []float64 // n*Dim, row-major
	Mu []float64 // n mean rewards
}

// Checkpoint is the state of the regret curves after Round rounds (rounds
// per silo; regrets summed over silos): the core's.
type Checkpoint = core.Checkpoint

// Result is everything a run records: what every family records
// (core.Result: the curve, totals, counters and the privacy claim) and
// what is the linear family's own.
type Result struct {
	core.Result
	SiloPseudo   []float64 // per-silo pseudo-regret totals at T
	SiloRealised []float64 // per-silo realised-regret totals at T
	Calibration  accountant.Calibration
	BetaT        float64 // beta at the last round
	NonPD        int     // times a noisy V was not positive definite (and how it was handled: see docs)
}
