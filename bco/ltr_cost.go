package bco

// The cost of a bco-ltr run's hindsight minima, which a timing pilot does
// not see: a pilot has one checkpoint, and its second (timed) try reads
// that minimum from the memo the first one filled (attack round 4, R4-12:
// an absolute-loss sweep estimated at 14 s took 270 s, 100 hindsight
// minima over MQ2008's 15,211 documents).

// absoluteSecondsPerDocD2 is the CPU time of one absolute-loss hindsight
// minimum (leastAbsolute) per document seen and squared dimension, m d^2,
// on the reference machine. Its Newton steps (m d^2 / 2 multiply-adds
// each) number 1 to maxNewtonSteps: over MQ2008's 15,211 documents (d =
// 47) 18 to 20, 0.85 s a minimum (2.5e-8 s per m d^2); over the first
// 10 to 1,000 documents of a 304,220-document set, a third of them 60,
// 6.3 s for 100 minima (5.6e-8). The figure is between the two, so that
// both are within a factor 1.5 (BENCHMARKS.md, "Estimates against
// measurements").
const absoluteSecondsPerDocD2 = 3.75e-8

// HindsightCost is what a run of M silos over T rounds with a checkpoint
// every `every` rounds spends on the instance's hindsight minima: their
// CPU seconds on the reference machine, and the bytes the solver holds
// while it runs beyond the run's own state. The absolute loss solves
// leastAbsolute over the documents seen so far (min(M t, n) at round t)
// at each checkpoint, on a copy of their rows and with the Hessian; the
// squared loss's minimum is a d x d eigenproblem (about 2 ms at d = 47,
// against 0.85 s for the absolute loss's), left to the rounds' figure,
// and holds nothing more.
// Runs on one loaded instance with one M and spacing compute each minimum
// once (the memo of hindsight), so a cost model charges it per group of
// such runs, not per run.
func (in LTRInstance) HindsightCost(M, T, every int) (seconds float64, bytes int64) {
	if in.Loss != LossAbsolute || in.Data == nil || every < 1 {
		return 0, 0
	}
	n, d := float64(in.Data.Docs()), float64(in.Data.D)
	// Checkpoints at every, 2 every, ... below T, and at T; the k-th sees
	// min(M k every, n) documents: the first k0 fewer than n.
	k := float64((T - 1) / every)
	step := float64(M) * float64(every)
	k0 := min(k, float64(int64((n-1)/step)))
	docs := float64(float64(step*k0*(k0+1))/2) + float64((k-k0)*n) + min(float64(M)*float64(T), n)
	m := int64(min(float64(M)*float64(T), n))
	return float64(absoluteSecondsPerDocD2*docs) * d * d, 8*m*(int64(in.Data.D)+8) + 8*int64(in.Data.D)*int64(in.Data.D)
}
