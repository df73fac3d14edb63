package bco

// The family's one round loop: the synthetic instances (run.go) and the
// documents (ltr.go) differ only in the losses their users suffer and in
// how the regret is taken, so each is a source, and loop plays every
// silo's user against it, steps, projects and averages.

import (
	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/internal/mutation"
)

// Metrics are the curve metrics the family's runs report (core.Metered)
// beyond core.Drive's, each declared here where it is produced (every
// run of the family plays this loop); the registry registers them with
// outputs as this family's. None yet: a metric of this family is its
// recording code, its declaration here and its test (docs/extending.md,
// "A curve metric").
var Metrics = []core.Metric{}

// source is what a run's users play against.
type source interface {
	// user returns the loss silo i's user suffers in round t at the j-th
	// point she plays. It is called before the silo draws its direction,
	// and may draw from the silo's streams (the synthetic noise level).
	user(t, i int, si *silo) func(j int, y []float64) float64
	// done records the loss silo i's user played (the mean of the two
	// for two points), after her report is sent.
	done(i int, loss float64)
	// regret closes round t, after the averaging: its pseudo and realised
	// regret.
	regret(t int) (pseudo, realised float64)
}

// loop is a run's silos and the algorithm they run; with a source it
// implements core.Problem.
type loop struct {
	alg          *Algorithm
	tu           tuning
	sigma        float64 // report noise per unit sensitivity (0: non-private)
	silos        []silo
	syncEvery, T int // rounds between averagings (B); the horizon
	src          source
	syncs        int
	scalars      int64
	hooks        hooks
}

// hooks are the audit's and the tests' instruments on a run's Round;
// nil in a run.
type hooks struct {
	// loss replaces the user's loss at the j-th point she plays (the
	// audit's worst-case pair).
	loss func(j int, y []float64) float64
	// sent observes every report silo i sends and its noise's standard
	// deviation.
	sent func(i int, report, sd float64)
}

// Round plays round t for every silo: the user suffers her loss at the
// point(s) played and sends her (noisy) report; the silo steps on the
// estimate and projects; every B rounds the server averages the iterates.
func (l *loop) Round(t int) (pseudo, realised float64) {
	tu := &l.tu
	eta := tu.step(l.alg, t, l.T)
	for i := range l.silos {
		si := &l.silos[i]
		loss := l.src.user(t, i, si)
		if l.hooks.loss != nil {
			loss = l.hooks.loss
		}
		fillUnit(si.u, si.explore)
		sigma := l.sigma
		if mutation.On("I42-bco-wire") && i > 0 { // the other silos' reports at half the sigma
			sigma /= 2
		}
		lossPlayed, report, sd := sendReport(l.alg.Points, sigma, tu.delta, si, loss)
		if l.hooks.sent != nil {
			l.hooks.sent(i, report, sd)
		}
		// Gradient step on the estimate scale * report * u, then projection
		// onto the shrunk ball.
		c := eta * tu.scale * report
		for j := range si.x {
			si.x[j] -= float64(c * si.u[j])
		}
		project(si.x, tu.shrink)
		l.src.done(i, lossPlayed)
		l.scalars++
	}
	if len(l.silos) > 1 && t%l.syncEvery == 0 {
		l.average()
	}
	return l.src.regret(t)
}

// average replaces every silo's iterate by the mean (the server's
// synchronisation); each silo sends its d coordinates.
func (l *loop) average() {
	d := len(l.silos[0].x)
	mean := l.silos[0].y // scratch: y is rewritten before its next use
	clear(mean)
	for i := range l.silos {
		for j, v := range l.silos[i].x {
			mean[j] += v
		}
	}
	inv := 1 / float64(len(l.silos))
	for j := range mean {
		mean[j] *= inv
	}
	for i := range l.silos {
		copy(l.silos[i].x, mean[:d])
	}
	l.syncs++
	l.scalars += int64(len(l.silos) * d)
}

// Counters reports the synchronisations (iterate averagings) and the
// scalars sent (one report per user, d per silo and averaging).
func (l *loop) Counters() (int, int64) { return l.syncs, l.scalars }
