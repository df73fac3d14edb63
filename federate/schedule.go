package federate

// A schedule decides when a synchronisation happens. A schedule that
// looks at the data (observed) makes the times of communication depend on
// it, which the accountant does not cover: such an algorithm must record
// its runs as not certified.
type schedule interface {
	// observed reports silo i's observation of the current round and its
	// leverage q = x^T V^-1 x under the V the silo acted on (NaN when the
	// learner keeps no per-silo V). det(V + x x^T) = det(V) (1 + q), so a
	// log-determinant condition adds log1p(q).
	observed(i int, q float64)
	// due reports whether a synchronisation follows round t (after every
	// silo has played it).
	due(t int) bool
}

// everyB synchronises after every B-th round, whatever the data: the
// fixed schedule of the paper's algorithms.
type everyB struct{ b int }

func (everyB) observed(int, float64) {}
func (e everyB) due(t int) bool      { return t%e.b == 0 }

// never never synchronises: for a policy that does not learn.
type never struct{}

func (never) observed(int, float64) {}
func (never) due(int) bool          { return false }
