package federate

// A schedule decides when a synchronisation happens and which silos take
// part in it: each silo that does uploads its batch statistics and
// restarts from the new published sums; the others keep theirs and go on
// acting on what they had (a silo that uploads on its own trigger). A
// schedule that looks at the data (observed) makes the times of
// communication depend on it, which the accountant does not cover: such
// an algorithm must record its runs as not certified.
type schedule interface {
	// observed reports silo i's observation of the current round and its
	// leverage q = x^T V^-1 x under the V the silo acted on (NaN when the
	// learner keeps no per-silo V). det(V + x x^T) = det(V) (1 + q), so a
	// log-determinant condition adds log1p(q).
	observed(i int, q float64)
	// due reports whether a synchronisation follows round t (after every
	// silo has played it), and if so sets up[i] to whether silo i takes
	// part (up has one entry per silo).
	due(t int, up []bool) bool
}

// everyB synchronises every silo after every B-th round, whatever the
// data: the fixed schedule of the paper's algorithms.
type everyB struct{ b int }

func (everyB) observed(int, float64)       {}
func (e everyB) due(t int, up []bool) bool { return all(up, t%e.b == 0) }

// never never synchronises: for a policy that does not learn.
type never struct{}

func (never) observed(int, float64) {}
func (never) due(int, []bool) bool  { return false }

// all is a synchronisation of every silo when fire is true: it marks
// every entry of up and returns fire.
func all(up []bool, fire bool) bool {
	if fire {
		for i := range up {
			up[i] = true
		}
	}
	return fire
}
