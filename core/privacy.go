package core

import (
	"fmt"
	"math"
	"strings"

	"github.com/fedbandit/fedbandit/internal/mutation"
)

// Trust models: who must be trusted with users' raw data.
const (
	TrustNone        = "none"        // non-private
	TrustCentral     = "central"     // a trusted curator (server) sees raw data
	TrustLocal       = "local"       // each user (or silo) randomises before anything leaves her
	TrustShuffle     = "shuffle"     // a trusted shuffler between silos and server
	TrustDistributed = "distributed" // secure aggregation: the server sees only a noisy sum
)

// Noise samplers (Privacy.Sampler) by short name, as every family records
// them (how a sampler draws is said in the claim's note).
const (
	SamplerGaussian         = "gaussian"          // continuous Gaussian, drawn in floating point
	SamplerDiscreteGaussian = "discrete-gaussian" // exact integer discrete Gaussian
	SamplerLaplace          = "laplace"           // continuous Laplace, drawn in floating point
	SamplerDiscreteLaplace  = "discrete-laplace"  // exact integer discrete Laplace (geometric)
	SamplerSkellam          = "skellam"           // exact integer Skellam
	SamplerPolya            = "polya"             // Polya shares summing to a discrete Laplace
	SamplerBinomial         = "binomial"          // binomial (P_TVec)
)

// Samplers lists every sampler short name a family records
// (Privacy.Sampler of a private run): runs.arrow's sampler column holds
// one of them in every family (registry.TestEveryPrivateRunRecordsASampler).
var Samplers = []string{SamplerGaussian, SamplerDiscreteGaussian, SamplerLaplace, SamplerDiscreteLaplace,
	SamplerSkellam, SamplerPolya, SamplerBinomial}

// Neighbouring relations (Privacy.Relation): every family records one of
// these tokens, and says more in Privacy.RelationNote.
const (
	RelationAddRemove  = "add-remove"  // one user's data added or removed
	RelationReplaceOne = "replace-one" // one user's data replaced by any other
)

// Relations lists the relation tokens (runs.arrow's relation column).
var Relations = []string{RelationAddRemove, RelationReplaceOne}

// Mechanisms is the vocabulary of Privacy.Mechanism, one token per
// mechanism a family records, with what it releases: runs.arrow's
// mechanism column holds one of them in every family
// (registry.TestEveryPrivateRunRecordsASampler; outputs/README.md,
// "Mechanisms", lists them).
var Mechanisms = map[string]string{
	// linear (package federate): tree-based aggregation of silo statistics
	"tree-gaussian":                   "Gaussian noise on every node of each silo's binary tree of statistics",
	"tree-discrete-gaussian":          "the same with exact discrete Gaussian noise",
	"tree-gaussian-shuffled":          "tree-gaussian behind a shuffler (shuffle amplification)",
	"tree-discrete-gaussian-shuffled": "tree-discrete-gaussian behind a shuffler",
	"tree-vecsum-binomial":            "P_TVec: binomial vector summation behind a shuffler",
	"user-gaussian":                   "Gaussian noise on every user's own report (LDP-GLOC-style local model)",
	"user-discrete-gaussian":          "the same with exact discrete Gaussian noise",
	// mab (package mab): batched successive elimination
	"laplace-central":               "Laplace noise on each arm's batch sum at a trusted server (DP-SE)",
	"laplace-shared-reference-code": "one floating-point Laplace draw shared by every arm's sum (the authors' script; not certified)",
	"dlap-central-secagg":           "discrete Laplace on the secure aggregate, added centrally",
	"dlap-local":                    "discrete Laplace on every user's message (local model)",
	"polya-secagg":                  "Polya shares summing to a discrete Laplace, under secure aggregation",
	"polya-secagg-reference-code":   "Polya shares of the authors' script's scale (not certified)",
	"skellam-secagg":                "Skellam shares under secure aggregation (Renyi DP)",
	"dgauss-secagg":                 "discrete Gaussian shares under secure aggregation (concentrated DP)",
	// mab (package mab): policies
	"laplace-tree-central": "discrete Laplace noise on every node of each arm's binary tree of rewards at a trusted server (DP-UCB)",
	// bco (package bco)
	"gaussian-report": "Gaussian noise on every user's one report (local model)",
}

// Privacy is the claim a run records: what its noise guarantees, for
// which neighbouring relation, and whether the guarantee holds for the run
// as simulated. A non-private run has Trust TrustNone and zero values
// elsewhere.
type Privacy struct {
	Trust     string // TrustNone, TrustCentral, ...
	Mechanism string // a token of Mechanisms, e.g. "tree-gaussian", "polya-secagg"
	// Sampler names the sampler that draws the noise by short name (one
	// of Samplers, e.g. SamplerDiscreteLaplace; "" for a non-private run).
	Sampler  string
	Relation string // the neighbouring relation, a token of Relations
	// RelationNote says the relation in the family's words ("" when the
	// token says it all).
	RelationNote string
	// TargetEps, TargetDelta are what the run asked for.
	TargetEps, TargetDelta float64
	// DeliveredEps, DeliveredDelta are what the accountant certifies for
	// the noise actually drawn. When not certified, a finite DeliveredEps
	// is a valid bound for the run as simulated (above the target) and
	// +Inf means no bound is known.
	DeliveredEps, DeliveredDelta float64
	// Certified is false when the guarantee does not hold for the run as
	// simulated; Note then says why.
	Certified bool
	// Note qualifies the claim: why not certified, what it covers (the
	// mechanism in exact arithmetic, or also this implementation).
	Note string
}

// Private reports whether the claim is of a private run.
func (p Privacy) Private() bool { return p.Trust != "" && p.Trust != TrustNone }

// Tolerance is the relative slack of the one certification rule
// (WithinTarget): accountants that bisect for eps stop within about
// 1e-15 relative on the safe side, so a delivered eps that meets its
// target exactly may land a few ulps above it.
const Tolerance = 1e-9

// WithinTarget is the certification rule of every family: a delivered
// (eps, delta) is within its target when eps is finite, non-negative and
// at most targetEps (within a relative Tolerance) and delta is at most
// targetDelta (likewise). A run is certified only if it is.
func WithinTarget(eps, delta, targetEps, targetDelta float64) bool {
	tol := Tolerance
	if mutation.On("P5-21") { // the tolerance widened to 1e-3
		tol = 1e-3
	}
	if math.IsNaN(eps) || math.IsInf(eps, 0) || eps < 0 || math.IsNaN(delta) || delta < 0 {
		return false
	}
	return eps <= targetEps*(1+tol) && delta <= targetDelta*(1+tol)
}

// Certify applies the certification rule to a claim its family has
// made: a private claim marked certified whose delivered (eps, delta) is
// not within its target (WithinTarget) becomes not certified, its
// delivered eps +Inf (the results schema's rule for a run that is not
// certified) and its note beginning with the bound the noise gives. Every
// family's claim passes through it (core's Check then holds).
func (p Privacy) Certify() Privacy {
	if !p.Private() || !p.Certified || WithinTarget(p.DeliveredEps, p.DeliveredDelta, p.TargetEps, p.TargetDelta) {
		return p
	}
	bound := fmt.Sprintf("NOT CERTIFIED: the noise delivers (eps, delta) = (%.6g, %g), above the target (%g, %g)",
		p.DeliveredEps, p.DeliveredDelta, p.TargetEps, p.TargetDelta)
	p.Note = strings.TrimSuffix(bound+"; "+p.Note, "; ")
	p.Certified, p.DeliveredEps = false, math.Inf(1)
	return p
}

// Check reports an inconsistent claim: a certified private run must
// deliver a finite eps and a delta within its target (WithinTarget); one
// that is not certified must say why.
func (p Privacy) Check() error {
	if !p.Private() {
		return nil
	}
	if !p.Certified {
		if p.Note == "" {
			return fmt.Errorf("privacy claim: not certified and no reason given")
		}
		return nil
	}
	if math.IsNaN(p.DeliveredEps) || math.IsInf(p.DeliveredEps, 0) || p.DeliveredEps < 0 {
		return fmt.Errorf("privacy claim: certified with delivered eps %v", p.DeliveredEps)
	}
	if !WithinTarget(p.DeliveredEps, p.DeliveredDelta, p.TargetEps, p.TargetDelta) {
		return fmt.Errorf("privacy claim: delivered (eps, delta) = (%v, %v) above target (%v, %v)", p.DeliveredEps, p.DeliveredDelta, p.TargetEps, p.TargetDelta)
	}
	return nil
}
