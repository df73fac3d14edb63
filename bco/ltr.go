package bco

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/internal/rng"
)

// Online least squares on learning-to-rank documents (`kind = "bco-ltr"`,
// docs/bco.md): round t brings every silo's user one document (x, y) of a
// prepared dataset; the silo plays w in the ball of radius R and the user
// suffers l(<x, w> - y), with l(e) = e^2 / 2 (`squared`) or |e|
// (`absolute`), and reports it as a user of the synthetic instances does.
// The documents arrive in an order fixed by the instance before any run
// (an oblivious sequence, the same for every run seed), so pseudo and
// realised regret are one curve, against the best fixed w of the ball in
// hindsight.

// Document orders (the instance key `order`).
const (
	// OrderShuffled: a uniform permutation of the documents drawn from
	// the instance seed, a fresh one for each pass over them.
	OrderShuffled = "shuffled"
	// OrderDataset: the dataset's order (queries in input order, their
	// documents in turn), repeated.
	OrderDataset = "dataset"
)

// LTRLosses are the losses of a bco-ltr instance.
var LTRLosses = []string{LossSquared, LossAbsolute}

// LTRData is the documents of a bco-ltr instance, read-only once built and
// shared by every run on it: each document's vector x (its feature set's
// learner's view, unit norm) and target y (label / maximum label), in the
// dataset's order.
type LTRData struct {
	D int
	X []float64 // len(Y) rows of D values
	Y []float64

	mu   sync.Mutex
	memo map[hindsightKey]hindsightValue // see hindsight

	normsOnce  sync.Once
	xmax, ymax float64 // see norms
}

// norms returns the largest norm of a document's x and the largest |y|,
// computed once (validation and every run read them).
func (d *LTRData) norms() (xmax, ymax float64) {
	d.normsOnce.Do(func() {
		for i, y := range d.Y {
			xi := d.X[i*d.D : (i+1)*d.D]
			d.xmax = math.Max(d.xmax, math.Sqrt(dot(xi, xi)))
			d.ymax = math.Max(d.ymax, math.Abs(y))
		}
	})
	return d.xmax, d.ymax
}

// Docs returns the number of documents.
func (d *LTRData) Docs() int { return len(d.Y) }

// MinLTRRadius is the smallest radius of a bco-ltr ball. The synthetic
// kind scales every loss with R, so its range reaches 1e-50; bco-ltr's
// targets y do not: every w of a tiny ball predicts about 0, the regret is
// about R |x| |y| per round against a loss sum of about y^2 per round, and
// below about 1e-14 it is rounding noise (attack round 4, R4-10). 1e-8
// keeps about eight significant digits.
const MinLTRRadius = 1e-8

// LTRInstance is a bco-ltr instance: the documents, the ball, the loss and
// the order the documents arrive in.
type LTRInstance struct {
	Data   *LTRData `json:"-"`
	Radius float64  `json:"radius"`
	Loss   string   `json:"loss"`  // one of LTRLosses
	Order  string   `json:"order"` // OrderShuffled or OrderDataset
	Seed   uint64   `json:"seed"`  // draws the shuffled order
}

// Validate checks the instance; errors name the key.
func (in LTRInstance) Validate() error {
	if in.Loss != LossSquared && in.Loss != LossAbsolute {
		return fmt.Errorf("loss = %q: want %q or %q", in.Loss, LossSquared, LossAbsolute)
	}
	if !(in.Radius >= MinLTRRadius) || math.IsInf(in.Radius, 0) || in.Radius > 1e100 {
		return fmt.Errorf("radius = %v: need 1e-8 <= radius <= 1e100 (bco-ltr's targets y do not scale with the ball: below 1e-8 its regret is within the rounding of the loss sum, and below about 1e-16 exactly 0)", in.Radius)
	}
	if in.Order != OrderShuffled && in.Order != OrderDataset {
		return fmt.Errorf("order = %q: want %q or %q", in.Order, OrderShuffled, OrderDataset)
	}
	if in.Data == nil || in.Data.D < 1 || len(in.Data.Y) < 1 || len(in.Data.X) != in.Data.D*len(in.Data.Y) {
		return fmt.Errorf("dataset: no documents")
	}
	return nil
}

// LTRSpec is one run on a bco-ltr instance; the fields other than the
// instance mean what Spec's do.
type LTRSpec struct {
	Algorithm string
	Instance  LTRInstance
	Params    map[string]float64
	Eps       float64
	Delta     float64
	M, B, T   int
	Every     int
	Seed      uint64
}

// Validate checks the spec by the family's rules (Spec.Validate's header
// rules, on the synthetic instance of the same body and loss class), the
// instance, and a private run's eps against the smallest its documents'
// bounds support (MinEps).
func (s LTRSpec) Validate() error {
	if err := s.Instance.Validate(); err != nil {
		return err
	}
	f := s.family()
	if err := f.validateHeader(); err != nil {
		return err
	}
	alg, _ := Lookup(s.Algorithm)
	if !alg.Private() {
		return nil
	}
	xmax, ymax := s.Instance.Data.norms()
	C, G, _ := ltrBounds(s.Instance.Loss, s.Instance.Radius, xmax, ymax)
	return checkEps(s.Eps, s.Delta, sensitivity(alg, C, G))
}

// family is the family's spec with the synthetic instance of the same
// dimension, ball and loss: what the header's rules and the algorithm's
// parameters are checked against.
func (s LTRSpec) family() Spec {
	return Spec{Algorithm: s.Algorithm, Params: s.Params, Eps: s.Eps, Delta: s.Delta, M: s.M, B: s.B, T: s.T,
		Every: s.Every, Seed: s.Seed,
		Instance: Instance{D: s.Instance.Data.D, Radius: s.Instance.Radius, Loss: s.Instance.Loss, Sequence: Stochastic}}
}

// ltrProblem is one run on a bco-ltr instance: the loop's source.
type ltrProblem struct {
	loop
	s    LTRSpec
	data *LTRData

	order  *rand.Rand // the shuffled order's stream
	perm   []int      // the current pass's order
	next   int        // documents dealt so far
	counts []float64  // times each document was dealt
	seen   []int      // the documents dealt, in first-arrival order
	a, b   []float64  // sum x x^T and sum y x of the documents dealt (squared loss)

	round    float64 // the loss played in the current round, all silos
	played   float64 // total loss of the played points, all silos
	prevBest float64 // the hindsight minimum at the previous checkpoint
	gap      float64 // the largest certified gap of an absolute-loss hindsight
	claim    core.Privacy
}

// NewLTR builds a run on a bco-ltr instance and returns it with its
// privacy claim.
func NewLTR(s LTRSpec) (core.Problem, core.Privacy, error) {
	p, err := newLTRProblem(s)
	if err != nil {
		return nil, core.Privacy{}, err
	}
	return p, p.claim, nil
}

// RunLTR simulates a bco-ltr spec on core.Drive and records its claim
// and the hindsight's certified precision (Result.HindsightNote).
func RunLTR(ctx context.Context, s LTRSpec) (*core.Result, error) {
	p, err := newLTRProblem(s)
	if err != nil {
		return nil, fmt.Errorf("bco.RunLTR: %w", err)
	}
	res, err := core.Drive(ctx, p, s.T, s.Every)
	if err != nil {
		return nil, fmt.Errorf("bco.RunLTR: %w", err)
	}
	res.Privacy = p.claim
	res.HindsightNote = p.HindsightNote()
	return res, nil
}

// ltrBounds returns the constants the algorithms are tuned and calibrated
// with for documents of norm at most xmax and targets of size at most
// ymax on the ball of radius R: |<x, w> - y| <= R xmax + ymax =: e, so C =
// e (absolute) or e^2 / 2 (squared) bounds |f|, G = xmax or e xmax is a
// Lipschitz constant and beta = xmax^2 a smoothness constant (squared).
func ltrBounds(loss string, R, xmax, ymax float64) (C, G, beta float64) {
	e := float64(R*xmax) + ymax
	if loss == LossAbsolute {
		return e, xmax, 0
	}
	return e * e / 2, e * xmax, xmax * xmax
}

func newLTRProblem(s LTRSpec) (*ltrProblem, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	alg, _ := Lookup(s.Algorithm)
	params, _ := core.Resolve(alg.Params, s.Params)
	data, R := s.Instance.Data, s.Instance.Radius
	d := data.D
	xmax, ymax := data.norms()
	class, _ := ClassOf(s.Instance.Loss)
	C, G, beta := ltrBounds(s.Instance.Loss, R, xmax, ymax)
	p := &ltrProblem{s: s, data: data, counts: make([]float64, data.Docs())}
	p.alg, p.syncEvery, p.T, p.src = alg, s.B, s.T, p
	claim := core.Privacy{Trust: core.TrustNone}
	sens := sensitivity(alg, C, G)
	if alg.Private() {
		sigma, _, c, err := calibrate(s.Eps, s.Delta, sens, params["analytic"] == 1)
		if err != nil {
			return nil, err
		}
		p.sigma, claim = sigma, c
	}
	p.tu = tuneRun(alg, params, class, d, R, C, G, beta, 0, p.sigma, s.T, s.Delta)
	p.silos = newSilos(rng.NewKey("bco-run", s.Seed), s.M, d)
	if s.Instance.Order == OrderShuffled {
		p.order = rng.New(rng.NewKey("bco-ltr-order", s.Instance.Seed), "order")
	}
	if s.Instance.Loss == LossSquared {
		p.a, p.b = make([]float64, d*d), make([]float64, d)
	}
	p.claim = claim
	return p, nil
}

// deal returns the next document of the sequence.
func (p *ltrProblem) deal() int {
	n := p.data.Docs()
	pos := p.next % n
	if pos == 0 {
		// A new pass: the dataset's order, or a fresh permutation.
		if p.perm == nil {
			p.perm = make([]int, n)
		}
		for i := range p.perm {
			p.perm[i] = i
		}
		if p.order != nil {
			for i := n - 1; i > 0; i-- {
				j := p.order.IntN(i + 1)
				p.perm[i], p.perm[j] = p.perm[j], p.perm[i]
			}
		}
	}
	p.next++
	k := p.perm[pos]
	if p.counts[k] == 0 {
		p.seen = append(p.seen, k)
	}
	p.counts[k]++
	if p.a != nil {
		d := p.data.D
		x, y := p.data.X[k*d:(k+1)*d], p.data.Y[k]
		for j, v := range x {
			p.b[j] += float64(y * v)
			row := p.a[j*d : (j+1)*d]
			for i, u := range x {
				row[i] += float64(v * u)
			}
		}
	}
	return k
}

// loss returns l(<x, w> - y) for document k.
func (p *ltrProblem) loss(k int, w []float64) float64 {
	d := p.data.D
	e := dot(p.data.X[k*d:(k+1)*d], w) - p.data.Y[k]
	if p.s.Instance.Loss == LossAbsolute {
		return math.Abs(e)
	}
	return e * e / 2
}

// user deals silo i's user the next document.
func (p *ltrProblem) user(_, _ int, _ *silo) func(j int, y []float64) float64 {
	k := p.deal()
	return func(_ int, y []float64) float64 { return p.loss(k, y) }
}

// done adds the user's loss to the round's.
func (p *ltrProblem) done(_ int, loss float64) { p.round += loss }

// regret is the round's loss played, less, at a checkpoint (every Every
// rounds and at T), the hindsight minimum's growth since the last one:
// the regret is exact at the checkpoints, where the minimum is computed,
// so that the cumulative sum is the regret at each checkpoint. Pseudo and
// realised regret are one curve (an oblivious sequence).
func (p *ltrProblem) regret(t int) (pseudo, realised float64) {
	realised, p.round = p.round, 0
	p.played += realised
	if t%p.s.Every == 0 || t == p.s.T {
		best := p.hindsight()
		realised -= best - p.prevBest
		p.prevBest = best
	}
	return realised, realised
}

// HindsightNote states the precision of the hindsight minima: "" for the
// squared loss (exact to rounding), the largest certified gap for the
// absolute loss.
func (p *ltrProblem) HindsightNote() string {
	if p.s.Instance.Loss != LossAbsolute {
		return ""
	}
	return fmt.Sprintf("hindsight: absolute-loss minima certified within %.3g (largest duality gap; the regret is exact to within it)", p.gap)
}

// hindsightKey names a hindsight minimum: it depends on the instance and
// on the number of documents dealt only (the sequence's prefix), not on
// the run, so the runs on one loaded instance share it.
type hindsightKey struct {
	loss, order string
	radius      float64
	seed        uint64
	docs        int
}

type hindsightValue struct{ value, gap float64 }

// hindsightRelTol is the relative precision the absolute-loss minima are
// certified to.
const hindsightRelTol = 1e-9

// hindsight returns min over the ball of the total loss of the documents
// dealt so far: the trust-region problem for the squared loss (exact to
// rounding), leastAbsolute for the absolute loss (within its certified
// gap). Every quantity it reads is a function of the sequence's prefix,
// so the value is the same whichever run computes it first.
func (p *ltrProblem) hindsight() float64 {
	in := p.s.Instance
	key := hindsightKey{loss: in.Loss, order: in.Order, radius: in.Radius, seed: in.Seed, docs: p.next}
	if in.Order == OrderDataset {
		key.seed = 0
	}
	data := p.data
	data.mu.Lock()
	v, ok := data.memo[key]
	data.mu.Unlock()
	if !ok {
		v = p.solve()
		data.mu.Lock()
		if data.memo == nil {
			data.memo = map[hindsightKey]hindsightValue{}
		}
		data.memo[key] = v
		data.mu.Unlock()
	}
	p.gap = math.Max(p.gap, v.gap)
	return v.value
}

func (p *ltrProblem) solve() hindsightValue {
	d, R := p.data.D, p.s.Instance.Radius
	if p.a != nil {
		w, _, err := trustRegion(p.a, p.b, d, R, true)
		if err != nil {
			panic(err) // a symmetric matrix of finite values always factorises
		}
		var v float64
		for _, k := range p.seen {
			v += float64(p.counts[k] * p.loss(k, w))
		}
		return hindsightValue{value: v}
	}
	x := make([]float64, 0, len(p.seen)*d)
	y := make([]float64, len(p.seen))
	c := make([]float64, len(p.seen))
	for i, k := range p.seen {
		x = append(x, p.data.X[k*d:(k+1)*d]...)
		y[i], c[i] = p.data.Y[k], p.counts[k]
	}
	_, v, gap, err := leastAbsolute(x, y, c, d, R, nil, hindsightRelTol)
	if err != nil {
		panic(err)
	}
	return hindsightValue{value: v, gap: gap}
}
