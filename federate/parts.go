package federate

import (
	"github.com/fedbandit/fedbandit/federate/accountant"
	"github.com/fedbandit/fedbandit/internal/mutation"
	"github.com/fedbandit/fedbandit/internal/rng"
)

// parts are what an algorithm plugs into the simulator: who chooses the
// actions and learns (learner), when silos synchronise (schedule), and
// how their statistics reach the server (protocol).
type parts struct {
	learner  learner
	schedule schedule
	protocol protocol
}

// runSetup is what an algorithm's constructor (Algorithm.newParts) may use:
// the validated spec with defaults, the run's calibration, the root key of
// its streams and the source of privacy noise.
type runSetup struct {
	spec   Spec
	alg    *Algorithm
	cal    *accountant.Calibration
	runKey rng.Key
	d      int
	noise  noiseFactory
	// gamma is the grid of the discrete noise (0: floating-point
	// Gaussian noise, or none).
	gamma float64
}

// learner is the spec's learner of the paper: lazy (Algorithm 8) or
// eager (Algorithm 1).
func (su runSetup) learner() learner {
	if su.spec.Lazy {
		return newLazyLearner(su.d)
	}
	return newEagerLearner(su.spec.M, su.d)
}

// federatedLinUCB builds the paper's algorithms (FedLinUCB,
// Private-FedLinUCB under LDP and SDP-amp): the eager (Algorithm 1) or
// lazy (Algorithm 8) learner, a synchronisation every B rounds, and the
// exact sum for the non-private algorithm, otherwise protocol P or P_alt
// over each silo's tree mechanism, shuffled under ModelSDPAmp.
func federatedLinUCB(su runSetup) (parts, error) {
	s := su.spec
	p := parts{learner: su.learner(), schedule: everyB{b: s.B}}
	if !su.alg.Private() {
		p.protocol = exactSum{}
		return p, nil
	}
	sigma := su.cal.Sigma
	if mutation.On("I42-lin-wire") { // the silos' trees wired at 0.9 of the calibrated sigma
		sigma *= 0.9
	}
	st, err := newSiloTrees(s.M, su.d, sigma, s.GramNoise, su.noise)
	if err != nil {
		return parts{}, err
	}
	switch s.Protocol {
	case ProtocolPAlt:
		p.protocol = newTreePrefixes(st, su.d)
	default:
		tn := newTreeNodes(st, su.d, nil)
		if su.alg.Model == accountant.ModelSDPAmp {
			tn.shuffle = rng.New(su.runKey, "shuffle")
		}
		p.protocol = tn
	}
	return p, nil
}
