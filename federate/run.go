package federate

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/federate/accountant"
	"github.com/fedbandit/fedbandit/federate/tree"
	"github.com/fedbandit/fedbandit/internal/mutation"
	"github.com/fedbandit/fedbandit/internal/rng"
	"github.com/fedbandit/fedbandit/internal/vec"
)

// Run simulates one run of spec and returns everything it records. It is
// single-threaded and deterministic: the same spec gives a bit-identical
// Result (except WallSeconds) whatever GOMAXPROCS or the number of runs
// executing concurrently. It checks ctx between rounds and returns
// ctx.Err() (wrapped) if the context is cancelled.
//
// Spec fields left empty take the defaults of Spec.WithDefaults; the
// calibration (sigma, Lambda, beta_t, delivered privacy) comes from
// accountant.Calibrate unless spec.Calib overrides it.
func Run(ctx context.Context, spec Spec) (*Result, error) {
	return run(ctx, spec, hooks{})
}

// run is Run with the tests' hooks.
func run(ctx context.Context, spec Spec, h hooks) (*Result, error) {
	start := time.Now()
	sm, err := build(spec, h)
	if err != nil {
		return nil, fmt.Errorf("federate.Run: %w", err)
	}
	s := sm.s
	if err := attachFeed(ctx, s, sm.inst); err != nil {
		return nil, fmt.Errorf("federate.Run: %w", err)
	}
	var p core.Problem = sm
	if h.metrics != nil {
		p = metered{sm, h.metrics}
	}
	cr, err := core.Drive(ctx, p, s.T, s.Every)
	if err != nil {
		return nil, fmt.Errorf("federate.Run: %w", err)
	}
	res := sm.result(*cr)
	res.WallSeconds = time.Since(start).Seconds()
	for i := range res.SiloPseudo {
		if p, r := res.SiloPseudo[i], res.SiloRealised[i]; math.IsNaN(p+r) || math.IsInf(p+r, 0) {
			return nil, fmt.Errorf("federate.Run: silo %d ended with non-finite regret (pseudo %v, realised %v): the instance's mean rewards are not finite or too large", i, p, r)
		}
	}
	return res, nil
}

// build makes a run's simulator as Run does: the spec with its defaults,
// validated, calibrated, its claim certified, the simulator wired to that
// calibration (the tests that measure what a run draws build it here).
func build(spec Spec, h hooks) (*sim, error) {
	s := spec.WithDefaults()
	if err := s.Validate(); err != nil {
		return nil, err
	}
	cal, err := calibration(s)
	if err != nil {
		return nil, err
	}
	return newSim(s, certify(s, implementationNote(s, cal)), h)
}

// Uncertified returns why the accountant's guarantee does not hold for a
// run of the spec as simulated, or "" if it does. The accountant's
// guarantee assumes that each user contributes one bounded summand to the
// released statistics: it fails when rewards are not clamped (NoClip) and
// under the eager learner with B > 1, where one user's reward changes the
// actions, hence the summands, of the later users of the batch
// (docs/privacy.md section 2.1). Non-private algorithms claim nothing.
func (s Spec) Uncertified() string {
	alg, err := LookupAlgorithm(s.Algorithm)
	if err != nil || !alg.Private() {
		return ""
	}
	var why []string
	if s.NoClip {
		why = append(why, "rewards are not clamped (no_clip), so one user's reward is unbounded in the bias stream")
	}
	if alg.AdaptiveSchedule {
		why = append(why, "the synchronisation schedule depends on the data (whether a silo synchronises reveals its users' contexts; Zhou & Chowdhury 2024, Section 3)")
	} else if alg.NeedsLazy() && !s.Lazy && s.B > 1 && !mutation.On("M13") {
		why = append(why, "the eager learner (lazy = false) with B > 1 lets one user's reward move the later users' summands of the batch (docs/privacy.md 2.1)")
	}
	return strings.Join(why, "; ")
}

// claim is the run's privacy claim in the core's terms: the algorithm's
// trust model and mechanism, the spec's targets and relation, and what the
// calibration delivers, certified by core's rule (Privacy.Certify: not
// when certify marked it otherwise or the delivered eps is above the
// target, as with the paper preset of ldp-linucb at (8, 0.1)).
func (s Spec) claim(cal *accountant.Calibration) core.Privacy {
	alg, err := LookupAlgorithm(s.Algorithm)
	if err != nil || !alg.Private() {
		p := core.Privacy{Trust: core.TrustNone}
		if cal != nil {
			p.Note = cal.Note
		}
		return p
	}
	mech, sampler := alg.Mechanism, core.SamplerGaussian
	if s.Noise == NoiseDiscrete {
		mech, sampler = strings.Replace(mech, "gaussian", "discrete-gaussian", 1), core.SamplerDiscreteGaussian
	}
	if strings.Contains(mech, "binomial") {
		sampler = core.SamplerBinomial
	}
	delivered := cal.DeliveredEps
	if mutation.On("P5-24") { // the record capped at the target
		delivered = math.Min(delivered, s.Eps)
	}
	return core.Privacy{
		Trust: alg.Trust, Mechanism: mech, Sampler: sampler, Relation: s.Relation,
		TargetEps: s.Eps, TargetDelta: s.Delta,
		DeliveredEps: delivered, DeliveredDelta: cal.DeliveredDelta,
		Certified: !math.IsInf(delivered, 0) && !math.IsNaN(delivered),
		Note:      cal.Note,
	}.Certify()
}

// certify records a run that the accountant's guarantee does not cover
// (Spec.Uncertified) as not certified: delivered eps +Inf, and a note that
// says why and what the mechanism alone would deliver.
func certify(s Spec, cal *accountant.Calibration) *accountant.Calibration {
	why := s.Uncertified()
	if why == "" {
		return cal
	}
	c := *cal
	c.Note = fmt.Sprintf("NOT CERTIFIED: %s; with one bounded summand per user the noise would deliver eps %.6g at delta %g", why, c.DeliveredEps, c.DeliveredDelta)
	if cal.Note != "" {
		c.Note += "; " + cal.Note
	}
	c.DeliveredEps = math.Inf(1)
	c.Amplified = false
	return &c
}

// insecureNote is what the record of a run with floating-point Gaussian
// noise says of its implementation (docs/privacy.md, "The discrete
// Gaussian").
const insecureNote = "floating-point Gaussian sampler: the guarantee covers the mechanism in exact arithmetic, not this implementation, which is not a secure deployment (floating-point attacks; noise = \"discrete\" is)"

// implementationNote adds to the calibration's note what its guarantee
// covers when the algorithm's releases are Gaussian: the discrete
// sampler's note (the accountant's) says that it covers this
// implementation; the floating-point sampler's, that it does not.
func implementationNote(s Spec, cal *accountant.Calibration) *accountant.Calibration {
	alg, err := LookupAlgorithm(s.Algorithm)
	if err != nil || !alg.Private() || !alg.UsesKey("noise") {
		return cal
	}
	note := insecureNote
	switch {
	case s.binomialNoise() && s.Noise == NoiseDiscrete:
		note = exactBinomialNote
	case s.binomialNoise():
		note = gonumBinomialNote
	case s.Noise == NoiseDiscrete:
		return cal // the accountant's DiscreteNote says it
	}
	c := *cal
	if c.Note == "" {
		c.Note = note
	} else {
		c.Note += "; " + note
	}
	return &c
}

// RecordedNoise is the sampler (Spec.Noise) a run's calibration note
// names: NoiseDiscrete where it carries the discrete accountant's note or
// P_TVec's exact-sampler note, "" (the floating-point default) otherwise.
// runs.arrow has no column for it; this is how a row's label recovers it.
func RecordedNoise(note string) string {
	if strings.Contains(note, accountant.DiscreteNote) || strings.Contains(note, exactBinomialNote) {
		return NoiseDiscrete
	}
	return ""
}

// What the record of a P_TVec run says of its binomial sampler
// (docs/privacy.md, "Exact binomial sampler").
const (
	gonumBinomialNote = "binomial noise from gonum's sampler, accurate but not exact at large node sizes: the guarantee covers the mechanism in exact arithmetic, not this implementation (noise = \"discrete\": the exact sampler)"
	exactBinomialNote = "binomial noise from the exact sampler (internal/dpnoise, integer arithmetic): the guarantee covers the mechanism and this implementation's noise"
)

// calibration returns spec.Calib if set (after checking that it was made
// for this spec, and with its delivered guarantee recomputed from its own
// sigma, so that an edited sigma never keeps the old claim) or calibrates
// the spec with the accountant.
func calibration(s Spec) (*accountant.Calibration, error) {
	req := s.Request()
	if s.Calib == nil {
		c, err := accountant.Calibrate(req)
		if err != nil {
			return nil, err
		}
		return c, nil
	}
	c := *s.Calib
	r := c.Request
	if r.Model != req.Model || r.M != req.M || r.T != req.T || r.B != req.B || r.D != req.D {
		return nil, fmt.Errorf("%w: Calib was made for model %q, M=%d, T=%d, B=%d, d=%d; the spec has %q, M=%d, T=%d, B=%d, d=%d",
			ErrInvalidSpec, r.Model, r.M, r.T, r.B, r.D, req.Model, req.M, req.T, req.B, req.D)
	}
	if r.Noise != req.Noise {
		return nil, fmt.Errorf("%w: Calib was made for noise %q; the spec has %q", ErrInvalidSpec, r.Noise, req.Noise)
	}
	private := req.Model != accountant.ModelNone
	if private && (r.Eps != req.Eps || r.Delta != req.Delta || r.Relation != req.Relation) {
		return nil, fmt.Errorf("%w: Calib was made for eps %v, delta %v, relation %q; the spec has eps %v, delta %v, relation %q",
			ErrInvalidSpec, r.Eps, r.Delta, r.Relation, req.Eps, req.Delta, req.Relation)
	}
	if want := accountant.Kappa(accountant.NumBatches(req.T, req.B)); c.Kappa != want {
		return nil, fmt.Errorf("%w: Calib has kappa = %d, the spec's tree has %d levels", ErrInvalidSpec, c.Kappa, want)
	}
	if !(c.Lambda > 0) || math.IsInf(c.Lambda, 0) || !(c.Sigma >= 0) || math.IsInf(c.Sigma, 0) {
		return nil, fmt.Errorf("%w: Calib has Lambda = %v, Sigma = %v", ErrInvalidSpec, c.Lambda, c.Sigma)
	}
	if b := c.Beta(req.T); !(b > 0) || math.IsInf(b, 0) {
		return nil, fmt.Errorf("%w: Calib has beta_T = %v (is its Width set?)", ErrInvalidSpec, b)
	}
	if private && c.Sigma == 0 {
		return nil, fmt.Errorf("%w: Calib has Sigma = 0 for private model %q", ErrInvalidSpec, req.Model)
	}
	if private {
		mu, err := accountant.MuFor(req, c.Sigma, c.Kappa)
		if err != nil {
			return nil, fmt.Errorf("%w: Calib: %w", ErrInvalidSpec, err)
		}
		eps, amp, note, err := accountant.DeliveredFor(req, c.Sigma, c.Kappa)
		if err != nil {
			return nil, fmt.Errorf("%w: Calib: %w", ErrInvalidSpec, err)
		}
		if ok, err := accountant.CertifiesFor(req, c.Sigma, c.Kappa); err == nil && ok && eps > req.Eps {
			eps = req.Eps // the bisection's last ulps, as Calibrate
		}
		c.Mu, c.DeliveredEps, c.DeliveredDelta, c.Amplified = mu, eps, req.Delta, amp
		c.Note = "calibration given by the caller (Spec.Calib); delivered guarantee recomputed from its sigma"
		if note != "" {
			c.Note += "; " + note
		}
	}
	return &c, nil
}

// noiseFactory returns the noise source of silo i's stream ("gram" or
// "bias"), whose entries have the given standard deviations. Tests inject
// their own; production uses newGaussianNoise.
type noiseFactory func(i int, stream string, std []float64) tree.Noise

// hooks are test instruments; all nil in production.
type hooks struct {
	// noise overrides the privacy-noise sources.
	noise noiseFactory
	// played observes every decision: round t, silo i, chosen arm.
	played func(t, i, arm int)
	// sent observes every silo->server message: batch k, silo i, stream
	// ("gram" or "bias"), the message (valid during the call only).
	sent func(k, i int, stream string, msg []float64)
	// schedule replaces the algorithm's schedule (mutation controls only).
	schedule schedule
	// published observes what synchronisation k publishes (W_syn packed,
	// U_syn): the release every party sees, read by the audit.
	published func(k int, wsyn, usyn []float64)
	// metrics makes Run's problem a core.Metered one reporting these
	// curve metrics (TestRunKeepsMetrics: Run keeps what core.Drive
	// records).
	metrics func(t int) map[string]float64
}

// metered is the simulator reporting curve metrics of its own.
type metered struct {
	*sim
	metrics func(t int) map[string]float64
}

// Metrics reports the curve metrics of round t.
func (m metered) Metrics(t int) map[string]float64 { return m.metrics(t) }

// gaussianNoise is the production noise source of silo i's stream: its
// own ChaCha8 stream rng.Derive(runKey, "silo", i, stream).
func gaussianNoise(runKey rng.Key, i int, stream string, std []float64) tree.Noise {
	if mutation.On("M10") {
		std = scaledStd(std, 0.5)
	}
	if mutation.On("P5-12") { // every silo on silo 0's tree noise
		i = 0
	}
	return &tree.Gaussian{R: rng.New(runKey, "silo", i, stream), Std: std}
}

// discreteNoise is the secure noise source of silo i's stream: the exact
// discrete Gaussian on the grid gamma (tree.Discrete), from the same
// stream as gaussianNoise's.
func discreteNoise(runKey rng.Key, i int, stream string, std []float64, gamma float64) tree.Noise {
	if mutation.On("M16") {
		std = scaledStd(std, 0.5)
	}
	return tree.NewDiscrete(rng.New(runKey, "silo", i, stream), std, gamma)
}

// scaledStd returns a copy of the standard deviations std multiplied by f
// (the audit's --sigma-scale and the halved-noise mutations).
func scaledStd(std []float64, f float64) []float64 {
	out := make([]float64, len(std))
	for e, v := range std {
		out[e] = v * f
	}
	return out
}

// Calibrate calibrates the spec's noise as its run does (the accountant,
// and for noise = "discrete" the check that its grid keeps every sum
// exact), without running it: a plan calls it once per configuration, so
// that a target no run could meet is refused before any run starts.
func Calibrate(s Spec) (*accountant.Calibration, error) {
	cal, err := accountant.Calibrate(s.Request())
	if err != nil {
		return nil, err
	}
	if _, err := noiseGrid(s, cal); err != nil {
		return nil, err
	}
	return cal, nil
}

// noiseGrid returns the grid of the run's discrete noise (0 for the
// floating-point Gaussian or no noise) after checking that every sum of
// rounded contributions a noise source adds to stays exact: at most M T
// users, each entry at most 1 + gamma/2 in magnitude, plus a noise below
// tree.MaxNoiseSteps grid steps, below 2^52 grid steps in all.
func noiseGrid(s Spec, cal *accountant.Calibration) (float64, error) {
	if s.Noise != NoiseDiscrete || !(cal.Sigma > 0) || s.binomialNoise() {
		return 0, nil // P_TVec encodes on its own integer lattice
	}
	gamma := accountant.Grid(cal.Sigma)
	users := float64(s.M) * float64(s.T)
	if float64(users*(1/gamma+1))+tree.MaxNoiseSteps >= 1<<52 {
		return 0, &FieldError{Field: "Noise", Msg: fmt.Sprintf("noise %q: M T = %g users on the grid %g (sigma %g) may reach 2^52 grid steps, where float64 sums stop being exact (eps = %g asks for a sigma this small: lower eps, or use noise %q)", s.Noise, users, gamma, cal.Sigma, s.Eps, NoiseGaussian)}
	}
	return gamma, nil
}

// productionNoise is the run's noise factory: the discrete Gaussian on
// the grid gamma, or the floating-point Gaussian when gamma is 0.
func productionNoise(runKey rng.Key, gamma float64) noiseFactory {
	if gamma > 0 {
		return func(i int, stream string, std []float64) tree.Noise {
			return discreteNoise(runKey, i, stream, std, gamma)
		}
	}
	return func(i int, stream string, std []float64) tree.Noise {
		return gaussianNoise(runKey, i, stream, std)
	}
}

// siloState is one silo's batch statistics and records.
type siloState struct {
	batch    batchStats // local statistics since the last synchronisation
	reward   *rand.Rand
	pseudo   float64
	realised float64
}

// Metrics are the curve metrics the linear family's runs report
// (core.Metered) beyond core.Drive's, each declared here where it is
// produced; the registry registers them with outputs as this family's.
// None yet: a metric of this family is its recording code, its
// declaration here and its test (docs/extending.md, "A curve metric").
var Metrics = []core.Metric{}

// sim is the state of one run: the instance, the silos, and the
// algorithm's parts (learner, schedule, protocol; see parts.go), which
// the simulator drives round by round without knowing which algorithm
// they make.
type sim struct {
	s      Spec
	cal    *accountant.Calibration
	d, np  int // dimension, packed length d(d+1)/2
	lambda float64
	inst   instance
	silos  []siloState
	parts
	batches []*batchStats // &silos[i].batch, the protocol's view
	up      []bool        // the silos of the current synchronisation (schedule.due)

	// Published (synchronised) statistics and the learner state derived
	// from them.
	wsyn, usyn          []float64
	asyn, psyn, thetSyn []float64

	// Scratch.
	v, l, e, xa  []float64
	xrow, scores []float64

	// Records.
	pseudo, realised float64
	syncs, nonPD     int
	scalars          int64
	noiseStd, lo, hi float64
	bernoulli        bool // rewards are Bernoulli(mean)
	clampY           bool
	beta             float64
	t                int // current round
	h                hooks
}

// newSim builds the run state of a validated spec (with defaults).
func newSim(s Spec, cal *accountant.Calibration, h hooks) (*sim, error) {
	runKey := RunKey(s.Seed)
	alg, err := LookupAlgorithm(s.Algorithm)
	if err != nil {
		return nil, err
	}
	d := s.Dim()
	np := tree.PackedLen(d)
	sm := &sim{
		s: s, cal: cal, d: d, np: np, lambda: cal.Lambda,
		silos: make([]siloState, s.M), batches: make([]*batchStats, s.M), up: make([]bool, s.M),
		wsyn: make([]float64, np), usyn: make([]float64, d),
		asyn: make([]float64, d*d), psyn: make([]float64, np), thetSyn: make([]float64, d),
		v: make([]float64, d*d), l: make([]float64, d*d), e: make([]float64, d),
		xa: make([]float64, d), xrow: make([]float64, d),
		lo: s.RewardLo, hi: s.RewardHi, clampY: !s.NoClip,
		h: h,
	}
	kind, err := s.kind()
	if err != nil {
		return nil, err
	}
	sm.inst = kind.build(s, runKey)
	sm.noiseStd, sm.bernoulli = sm.inst.noiseStd(), sm.inst.bernoulli()
	gamma, err := noiseGrid(s, cal)
	if err != nil {
		return nil, err
	}
	nf := h.noise
	if nf == nil {
		nf = productionNoise(runKey, gamma)
	}
	sm.parts, err = alg.newParts(runSetup{spec: s, alg: alg, cal: cal, runKey: runKey, d: d, noise: nf, gamma: gamma})
	if err != nil {
		return nil, err
	}
	if gamma > 0 && !alg.LocalNoise {
		// Each user's summand goes on the grid before it is summed.
		sm.learner = newGridLearner(sm.learner, gamma, d)
	}
	if h.schedule != nil {
		sm.schedule = h.schedule
	}
	for i := range sm.silos {
		si := &sm.silos[i]
		si.batch = batchStats{w: make([]float64, np), u: make([]float64, d)}
		si.reward = rng.New(runKey, "silo", i, "reward")
		sm.batches[i] = &si.batch
	}
	// Before the first synchronisation V = Lambda I, for every silo.
	all(sm.up, true)
	sm.refresh()
	return sm, nil
}

// Round plays round t (1-indexed): the simulator is the linear family's
// core.Problem, which core.Drive advances and checkpoints.
func (sm *sim) Round(t int) (pseudo, realised float64) { return sm.round(t) }

// Counters reports the synchronisations so far and the scalars sent.
func (sm *sim) Counters() (syncs int, scalars int64) { return sm.syncs, sm.scalars }

// round plays round t (1-indexed) for every silo in order, synchronises if
// the schedule says so, and returns the group's pseudo- and realised
// regret of the round.
func (sm *sim) round(t int) (float64, float64) {
	sm.t = t
	sm.beta = sm.cal.Beta(t)
	var pseudo, realised float64
	for i := range sm.silos {
		p, r := sm.play(i)
		pseudo += p
		realised += r
	}
	sm.pseudo += pseudo
	sm.realised += realised
	clear(sm.up)
	if sm.schedule.due(t, sm.up) {
		sm.sync()
	}
	return pseudo, realised
}

// play runs silo i's turn of the current round and returns its
// instantaneous pseudo- and realised regret.
func (sm *sim) play(i int) (pseudo, realised float64) {
	si := &sm.silos[i]
	set := sm.inst.next(i)
	mu := set.mu
	if need := set.n + vec.Lanes*len(set.panels); len(sm.scores) < need {
		sm.scores = make([]float64, need)
	}
	arm := sm.learner.choose(i, set, sm.beta, sm.scores)
	best := kern.ArgmaxFirst(mu[:set.n])
	if sm.h.played != nil {
		sm.h.played(sm.t, i, arm)
	}

	// Reward noise: always two draws per silo-round (chosen and best
	// action), so that the stream's consumption never depends on data.
	var y, yBest float64
	if sm.bernoulli {
		// Bernoulli rewards: [U < mu].
		y, yBest = bernoulli(si.reward.Float64(), mu[arm]), bernoulli(si.reward.Float64(), mu[best])
	} else {
		var eArm, eBest float64
		if sm.noiseStd > 0 {
			eArm = sm.noiseStd * si.reward.NormFloat64()
			eBest = sm.noiseStd * si.reward.NormFloat64()
		}
		y, yBest = mu[arm]+eArm, mu[best]+eBest
	}
	if best == arm {
		yBest = y
	}
	pseudo = mu[best] - mu[arm]
	realised = yBest - y

	set.row(sm.xrow, arm)
	sm.observe(i, sm.xrow, y)
	si.pseudo += pseudo
	si.realised += realised
	return pseudo, realised
}

// bernoulli is the reward [u < mu] for u uniform on [0, 1).
func bernoulli(u, mu float64) float64 {
	if u < mu {
		return 1
	}
	return 0
}

// observe feeds one user's (x, y) into silo i's statistics: x is
// projected to ||x|| <= 1 and y clamped to [RewardLo, RewardHi] (unless
// NoClip) BEFORE aggregation, so that every user's contribution to the
// released sums is bounded whatever the data; then the learner adds it
// to the batch statistics (W_i += x x^T, U_i += x y) and the schedule
// sees its leverage.
func (sm *sim) observe(i int, x []float64, y float64) {
	xa := sm.xa
	ClipX(xa, x)
	if sm.clampY {
		y = ClipY(y, sm.lo, sm.hi)
	} else if math.IsNaN(y) || math.IsInf(y, 0) {
		y = 0
	}
	q := sm.learner.observe(i, &sm.silos[i].batch, xa, y)
	sm.schedule.observed(i, q)
}

// sync is synchronisation k = syncs+1: the protocol carries the batch
// statistics of the silos taking part (sm.up) to the server, which
// publishes W_syn and U_syn, and those silos restart from them; the
// others keep their batches and their learner state.
func (sm *sim) sync() {
	sm.syncs++
	sm.protocol.publish(sm.up, sm.batches, sm.wsyn, sm.usyn, sm.send)
	if sm.h.published != nil {
		sm.h.published(sm.syncs, sm.wsyn, sm.usyn)
	}
	for i, b := range sm.batches {
		if sm.up[i] {
			clear(b.w)
			clear(b.u)
		}
	}
	sm.refresh()
}

// refresh recomputes the shared learner state from the published
// statistics: V = Lambda I + W_syn must be positive definite; if the noise
// made it indefinite (Cholesky fails), V is shifted by (Lambda -
// lambda_min(V)) I so that its smallest eigenvalue is Lambda, the floor a
// noiseless V would have, and the event is counted in NonPD. Every silo
// then restarts from V^-1 and theta = V^-1 U_syn.
func (sm *sim) refresh() {
	d := sm.d
	unpackInto(sm.v, sm.wsyn, d, sm.lambda)
	if !cholesky(sm.l, sm.v, d) {
		sm.nonPD++
		shift := sm.lambda - minEigen(sm.v, d)
		for tries := 0; ; tries++ {
			if math.IsNaN(shift) || math.IsInf(shift, 0) || tries == 60 {
				// Non-finite statistics: restart from Lambda I (cannot
				// happen with clipped data and finite noise).
				unpackInto(sm.v, make([]float64, sm.np), d, sm.lambda)
				cholesky(sm.l, sm.v, d)
				break
			}
			for j := 0; j < d; j++ {
				sm.v[j*d+j] += shift
			}
			if cholesky(sm.l, sm.v, d) {
				break
			}
			// Rounding left it (barely) indefinite: shift a little more.
			shift = sm.lambda * math.Ldexp(1, -40+tries)
		}
	}
	cholInverse(sm.asyn, sm.l, sm.e, d)
	vec.WidthForm(sm.psyn, sm.asyn, d)
	matVec(sm.thetSyn, sm.asyn, sm.usyn)
	sm.learner.restart(sm.up, sm.psyn, sm.thetSyn)
}

// send accounts for one silo->server message of the current
// synchronisation (and shows it to the transcript hook).
func (sm *sim) send(i int, stream string, msg []float64) {
	sm.scalars += int64(len(msg))
	if sm.h.sent != nil {
		sm.h.sent(sm.syncs, i, stream, msg)
	}
}

func addTo(dst, src []float64) {
	for j, v := range src {
		dst[j] += v
	}
}

// result assembles the run's record from what core.Drive recorded
// (driven, kept whole: its curve, its curve metrics and whatever else
// Drive records), the simulator's totals (the same sums as Drive's, in
// the same order), the run's claim and the linear family's detail.
func (sm *sim) result(driven core.Result) *Result {
	driven.Pseudo, driven.Realised = sm.pseudo, sm.realised
	driven.Syncs, driven.Scalars = sm.syncs, sm.scalars
	driven.Privacy = sm.s.claim(sm.cal)
	r := &Result{
		Result:       driven,
		SiloPseudo:   make([]float64, len(sm.silos)),
		SiloRealised: make([]float64, len(sm.silos)),
		Calibration:  *sm.cal,
		BetaT:        sm.cal.Beta(sm.s.T),
		NonPD:        sm.nonPD,
	}
	for i := range sm.silos {
		r.SiloPseudo[i] = sm.silos[i].pseudo
		r.SiloRealised[i] = sm.silos[i].realised
	}
	return r
}
