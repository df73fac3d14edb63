package federate

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/fedbandit/fedbandit/federate/accountant"
	"github.com/fedbandit/fedbandit/federate/tree"
	"github.com/fedbandit/fedbandit/internal/rng"
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
	start := time.Now()
	s := spec.WithDefaults()
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("federate.Run: %w", err)
	}
	cal, err := calibration(s)
	if err != nil {
		return nil, fmt.Errorf("federate.Run: %w", err)
	}
	sm, err := newSim(s, cal, hooks{})
	if err != nil {
		return nil, fmt.Errorf("federate.Run: %w", err)
	}
	for t := 1; t <= s.T; t++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("federate.Run: cancelled at round %d of %d: %w", t, s.T, err)
		}
		sm.round(t)
	}
	res := sm.result()
	res.WallSeconds = time.Since(start).Seconds()
	for i := range res.SiloPseudo {
		if p, r := res.SiloPseudo[i], res.SiloRealised[i]; math.IsNaN(p+r) || math.IsInf(p+r, 0) {
			return nil, fmt.Errorf("federate.Run: silo %d ended with non-finite regret (pseudo %v, realised %v): the instance's mean rewards are not finite or too large", i, p, r)
		}
	}
	return res, nil
}

// calibration returns spec.Calib if set (after checking that it matches
// the spec) or calibrates the spec with the accountant.
func calibration(s Spec) (*accountant.Calibration, error) {
	req := s.Request()
	if s.Calib == nil {
		c, err := accountant.Calibrate(req)
		if err != nil {
			return nil, err
		}
		return c, nil
	}
	c := s.Calib
	r := c.Request
	if r.Model != req.Model || r.M != req.M || r.T != req.T || r.B != req.B || r.D != req.D {
		return nil, fmt.Errorf("%w: Calib was made for model %q, M=%d, T=%d, B=%d, d=%d; the spec has %q, M=%d, T=%d, B=%d, d=%d",
			ErrInvalidSpec, r.Model, r.M, r.T, r.B, r.D, req.Model, req.M, req.T, req.B, req.D)
	}
	if !(c.Lambda > 0) || math.IsInf(c.Lambda, 0) || !(c.Sigma >= 0) || math.IsInf(c.Sigma, 0) {
		return nil, fmt.Errorf("%w: Calib has Lambda = %v, Sigma = %v", ErrInvalidSpec, c.Lambda, c.Sigma)
	}
	if b := c.Beta(req.T); !(b > 0) || math.IsInf(b, 0) {
		return nil, fmt.Errorf("%w: Calib has beta_T = %v (is its Width set?)", ErrInvalidSpec, b)
	}
	if req.Model != accountant.ModelNone && c.Sigma == 0 {
		return nil, fmt.Errorf("%w: Calib has Sigma = 0 for private model %q", ErrInvalidSpec, req.Model)
	}
	return c, nil
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
	// ("gram" or "bias"), number of scalars.
	sent func(k, i int, stream string, n int)
	// syncDue replaces the schedule (mutation controls only: production
	// synchronises exactly when t is a multiple of B).
	syncDue func(sm *sim, t int) bool
}

// gaussianNoise is the production noise source of silo i's stream: its
// own ChaCha8 stream rng.Derive(runKey, "silo", i, stream).
func gaussianNoise(runKey rng.Key, i int, stream string, std []float64) tree.Noise {
	return &tree.Gaussian{R: rng.New(runKey, "silo", i, stream), Std: std}
}

// siloState is one silo's learner and protocol state.
type siloState struct {
	// Learner (eager variant only; the lazy variant acts on the shared
	// synchronised state): p = V^-1 in width form (see widthForm) and
	// theta = V^-1 (U_syn + U_i), both updated after every local
	// observation (see learn and rlsUpdateGo).
	p, theta []float64
	// Local statistics since the last synchronisation.
	wloc []float64 // packed Gram
	uloc []float64 // bias
	// p-sum trees (private algorithms).
	gram, bias *tree.Tree
	reward     *rand.Rand
	// pick chooses the actions of a policy that does not learn
	// (Algorithm.Learns false); nil otherwise.
	pick     *rand.Rand
	pseudo   float64
	realised float64
}

// sim is the state of one run.
type sim struct {
	s      Spec
	cal    *accountant.Calibration
	d, np  int // dimension, packed length d(d+1)/2
	lambda float64
	lazy   bool
	learns bool // false: a policy that chooses without learning (no statistics, no synchronisation)
	inst   instance
	silos  []siloState

	// Published (synchronised) statistics and the learner state derived
	// from them, shared by all silos right after a synchronisation.
	wsyn, usyn          []float64
	asyn, psyn, thetSyn []float64
	gramSrv, biasSrv    *tree.Server
	shuffle             *rand.Rand

	// Scratch.
	v, l, g, e, xa, tmp []float64
	xrow, scores        []float64
	gnodes, bnodes      [][]float64
	order               []int

	// Records.
	curve            []Checkpoint
	pseudo, realised float64
	syncs, nonPD     int
	scalars          int64
	noiseStd, lo, hi float64
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
		s: s, cal: cal, d: d, np: np, lambda: cal.Lambda, lazy: s.Lazy, learns: alg.Learns,
		silos: make([]siloState, s.M),
		wsyn:  make([]float64, np), usyn: make([]float64, d),
		asyn: make([]float64, d*d), psyn: make([]float64, np), thetSyn: make([]float64, d),
		v: make([]float64, d*d), l: make([]float64, d*d), g: make([]float64, rlsScratchLen(d)), e: make([]float64, d),
		xa: make([]float64, d), tmp: make([]float64, np), xrow: make([]float64, d),
		lo: s.RewardLo, hi: s.RewardHi, clampY: !s.NoClip,
		h: h,
	}
	switch s.Instance {
	case InstanceSynthetic:
		sm.inst = newSynthetic(s, runKey)
	case InstanceLTR:
		sm.inst = newLTR(s, runKey)
	}
	sm.noiseStd = sm.inst.noiseStd()
	if s.Private() {
		nf := h.noise
		if nf == nil {
			nf = func(i int, stream string, std []float64) tree.Noise {
				return gaussianNoise(runKey, i, stream, std)
			}
		}
		gstd, err := tree.GramStd(d, cal.Sigma, s.GramNoise)
		if err != nil {
			return nil, err
		}
		bstd := make([]float64, d)
		for j := range bstd {
			bstd[j] = cal.Sigma
		}
		for i := range sm.silos {
			sm.silos[i].gram = tree.New(np, nf(i, "gram", gstd))
			sm.silos[i].bias = tree.New(d, nf(i, "bias", bstd))
		}
		sm.gramSrv, sm.biasSrv = tree.NewServer(np), tree.NewServer(d)
		sm.gnodes, sm.bnodes = make([][]float64, s.M), make([][]float64, s.M)
		sm.order = make([]int, s.M)
		if alg.Model == accountant.ModelSDPAmp {
			sm.shuffle = rng.New(runKey, "shuffle")
		}
	}
	for i := range sm.silos {
		si := &sm.silos[i]
		si.wloc, si.uloc = make([]float64, np), make([]float64, d)
		si.reward = rng.New(runKey, "silo", i, "reward")
		if !alg.Learns {
			si.pick = rng.New(runKey, "silo", i, "policy")
		}
		if !sm.lazy {
			si.p, si.theta = make([]float64, np), make([]float64, d)
		}
	}
	// Before the first synchronisation V = Lambda I.
	sm.refresh()
	return sm, nil
}

// round plays round t (1-indexed) for every silo in order, synchronises if
// t is a multiple of B and records a checkpoint if due.
func (sm *sim) round(t int) {
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
	due := sm.learns && t%sm.s.B == 0
	if sm.h.syncDue != nil {
		due = sm.h.syncDue(sm, t)
	}
	if due {
		sm.sync()
	}
	if t%sm.s.Every == 0 || t == sm.s.T {
		sm.curve = append(sm.curve, Checkpoint{Round: t, Pseudo: sm.pseudo, Realised: sm.realised, Syncs: sm.syncs})
	}
}

// play runs silo i's turn of the current round and returns its
// instantaneous pseudo- and realised regret.
func (sm *sim) play(i int) (pseudo, realised float64) {
	si := &sm.silos[i]
	d := sm.d
	set := sm.inst.next(i)
	mu := set.mu
	p, theta := sm.psyn, sm.thetSyn
	if !sm.lazy {
		p, theta = si.p, si.theta
	}
	if need := set.n + panelLanes*len(set.panels); len(sm.scores) < need {
		sm.scores = make([]float64, need)
	}
	var arm int
	if si.pick != nil {
		arm = si.pick.IntN(set.n)
	} else {
		arm = argmaxUCB(set, d, theta, p, sm.beta, sm.scores)
	}
	best := argmaxFirst(mu[:set.n])
	if sm.h.played != nil {
		sm.h.played(sm.t, i, arm)
	}

	// Reward noise: always two draws per silo-round (chosen and best
	// action), so that the stream's consumption never depends on data.
	var eArm, eBest float64
	if sm.noiseStd > 0 {
		eArm = sm.noiseStd * si.reward.NormFloat64()
		eBest = sm.noiseStd * si.reward.NormFloat64()
	}
	if best == arm {
		eBest = eArm
	}
	y := mu[arm] + eArm
	pseudo = mu[best] - mu[arm]
	realised = mu[best] + eBest - y

	if sm.learns {
		set.row(sm.xrow, arm)
		sm.observe(i, sm.xrow, y)
	}
	si.pseudo += pseudo
	si.realised += realised
	return pseudo, realised
}

// observe feeds one user's (x, y) into silo i's statistics: x is
// projected to ||x|| <= 1 and y clamped to [RewardLo, RewardHi] (unless
// NoClip) BEFORE aggregation, so that every user's contribution to the
// released sums is bounded whatever the data; then W_i += x x^T, U_i += x
// y, and the eager learner's V^-1 and theta are updated (learn,
// rlsUpdateGo).
func (sm *sim) observe(i int, x []float64, y float64) {
	si := &sm.silos[i]
	xa := sm.xa
	ClipX(xa, x)
	if sm.clampY {
		y = ClipY(y, sm.lo, sm.hi)
	} else if math.IsNaN(y) || math.IsInf(y, 0) {
		y = 0
	}
	if sm.lazy {
		addObs(si.wloc, si.uloc, xa, y)
	} else {
		learn(si.wloc, si.uloc, si.p, si.theta, xa, y, sm.g)
	}
}

// argmaxFirst returns the index of the first maximum of v (NaN entries
// are never selected; 0 if v[0] is NaN): argmaxFirstGo, or its SIMD twin
// (kernels_amd64.go chooses).
var argmaxFirst = argmaxFirstGo

// argmaxFirstGo returns the index of the first maximum of v (NaN entries
// are never selected; 0 if v[0] is NaN): the portable argmaxFirst.
func argmaxFirstGo(v []float64) int {
	best, top := 0, v[0]
	for a, x := range v {
		if x > top {
			best, top = a, x
		}
	}
	return best
}

// sync is synchronisation k = syncs+1: every silo sends its batch
// statistics through the protocol, the server publishes W_syn, U_syn and
// every silo restarts from them.
func (sm *sim) sync() {
	sm.syncs++
	switch {
	case !sm.s.Private():
		// FedLinUCB: the server adds the exact batch statistics.
		for i := range sm.silos {
			si := &sm.silos[i]
			sm.send(i, "gram", si.wloc)
			sm.send(i, "bias", si.uloc)
			addTo(sm.wsyn, si.wloc)
			addTo(sm.usyn, si.uloc)
		}
	case sm.s.Protocol == ProtocolPAlt:
		// Algorithm 4: each silo publishes its own noisy prefix sum; the
		// server adds the M prefixes.
		clear(sm.wsyn)
		clear(sm.usyn)
		ub := sm.tmp[:sm.d]
		for i := range sm.silos {
			si := &sm.silos[i]
			si.gram.Add(si.wloc)
			si.bias.Add(si.uloc)
			si.gram.Prefix(sm.tmp)
			sm.send(i, "gram", sm.tmp)
			addTo(sm.wsyn, sm.tmp)
			si.bias.Prefix(ub)
			sm.send(i, "bias", ub)
			addTo(sm.usyn, ub)
		}
	default:
		// Algorithm 2: each silo sends its new noisy p-sum node; the
		// server adds the M nodes of the level and publishes the prefix.
		// Under SDP-amp a shuffler delivers the messages in a random order
		// (the server sees the multiset, not the senders).
		sm.gramSrv.Begin()
		sm.biasSrv.Begin()
		for i := range sm.silos {
			si := &sm.silos[i]
			_, sm.gnodes[i] = si.gram.Add(si.wloc)
			_, sm.bnodes[i] = si.bias.Add(si.uloc)
			sm.send(i, "gram", sm.gnodes[i])
			sm.send(i, "bias", sm.bnodes[i])
			sm.order[i] = i
		}
		if sm.shuffle != nil {
			sm.shuffle.Shuffle(len(sm.order), func(a, b int) { sm.order[a], sm.order[b] = sm.order[b], sm.order[a] })
		}
		for _, i := range sm.order {
			sm.gramSrv.Receive(sm.gnodes[i])
			sm.biasSrv.Receive(sm.bnodes[i])
		}
		sm.gramSrv.Publish(sm.wsyn)
		sm.biasSrv.Publish(sm.usyn)
	}

	for i := range sm.silos {
		clear(sm.silos[i].wloc)
		clear(sm.silos[i].uloc)
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
	widthForm(sm.psyn, sm.asyn, d)
	matVec(sm.thetSyn, sm.asyn, sm.usyn)
	if sm.lazy {
		return
	}
	for i := range sm.silos {
		si := &sm.silos[i]
		copy(si.p, sm.psyn)
		copy(si.theta, sm.thetSyn)
	}
}

// send accounts for one silo->server message of the current
// synchronisation (and shows it to the transcript hook).
func (sm *sim) send(i int, stream string, msg []float64) {
	sm.scalars += int64(len(msg))
	if sm.h.sent != nil {
		sm.h.sent(sm.syncs, i, stream, len(msg))
	}
}

func addTo(dst, src []float64) {
	for j, v := range src {
		dst[j] += v
	}
}

// result assembles the run's record.
func (sm *sim) result() *Result {
	r := &Result{
		Curve:        sm.curve,
		SiloPseudo:   make([]float64, len(sm.silos)),
		SiloRealised: make([]float64, len(sm.silos)),
		Syncs:        sm.syncs,
		Scalars:      sm.scalars,
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
