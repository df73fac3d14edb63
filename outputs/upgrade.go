package outputs

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/fedbandit/fedbandit/core"
)

// This file upgrades the rows of layouts 1 to 3 to layout 4's meanings
// (README.md, "Upgrade from layout 3"): the privacy columns every family
// now fills alike (target_eps, target_delta, the relation token and its
// note, mechanism tokens, certified by core's one rule) and the notes that
// are not about privacy (hindsight_note). What the older releases wrote is
// frozen: the tables below describe it, and no new family or mechanism
// ever appears in them.

// layout3Names are the layout-4 columns that layout 3 named otherwise (its
// per-run files' summary keys).
var layout3Names = map[string]string{
	"qid":                   "query",
	"checkpoint_every":      "every",
	"final_syncs":           "syncs",
	"final_pseudo_regret":   "pseudo_regret",
	"final_realised_regret": "realised_regret",
}

// newInLayout4 are the runs.arrow columns layout 3 did not have: a
// layout-3 file holding one of them is not a layout-3 file.
var newInLayout4 = []string{"target_eps", "target_delta", "relation_note", "hindsight_note"}

// legacyName is the summary key of column name in a per-run file of
// layout (3 or 4), and whether that layout has the column.
func legacyName(name string, layout int) (string, bool) {
	if layout >= 4 {
		return name, true
	}
	if slices.Contains(newInLayout4, name) {
		return "", false
	}
	if old, ok := layout3Names[name]; ok {
		return old, true
	}
	return name, true
}

// legacyRelations are the relations layouts 2-3 wrote in words (the mab
// and bco families'), by the token they are.
var legacyRelations = map[string]string{
	"one user's reward replaced by any value in [0, 1]; each user contributes once, to one arm in one batch, " +
		"so the batches compose in parallel and the run's guarantee is its worst batch's": core.RelationReplaceOne,
	"local: any two losses of one user (one report per user)": core.RelationReplaceOne,
}

// legacyMechanisms are the mechanisms layouts 2-3 wrote in words, by their
// token (core.Mechanisms).
var legacyMechanisms = map[string]string{
	"gaussian report (one per user)": "gaussian-report",
}

// layout2Relations are the relations, in words, of the mab and bco
// families' claims in layouts 1-2, which did not record them: the same
// relations layout 3 recorded (mab.Relation and bco.Relation at 98ad0ae
// and a26df98), so legacyRelations makes them tokens.
var layout2Relations = map[string]string{
	"mab": "one user's reward replaced by any value in [0, 1]; each user contributes once, to one arm in one batch, " +
		"so the batches compose in parallel and the run's guarantee is its worst batch's",
	"bco": "local: any two losses of one user (one report per user)",
}

// layout2LinearMechanisms are the mechanisms of the private linear
// algorithms of layouts 1-2 (federate's entries at 5cab670 and 98ad0ae),
// which did not record them; their noise was floating-point Gaussian
// (binomial for sdp-vec) unless the note names the exact discrete
// Gaussian sampler (layout2DiscreteNote), as federate records today.
var layout2LinearMechanisms = map[string]string{
	"ldp": "tree-gaussian", "super-agent": "tree-gaussian", "feducb": "tree-gaussian",
	"sdp-amp": "tree-gaussian-shuffled", "sdp-vec": "tree-vecsum-binomial", "ldp-linucb": "user-gaussian",
}

// layout2DiscreteNote is in the note of every layout-2 linear run with
// noise = "discrete" (federate/accountant.DiscreteNote at 98ad0ae; the
// exact binomial sampler's note of sdp-vec does not change its tokens).
const layout2DiscreteNote = "discrete Gaussian noise (exact integer sampler, CKS20)"

// layout2Tokens fills the privacy tokens layouts 1-2 did not record: the
// relation of a mab or bco run, the mechanism and sampler of a linear
// run (core.Samplers' names, as federate's claim chooses them).
func (r *RunRecord) layout2Tokens() {
	if r.Relation == "" {
		r.Relation = layout2Relations[r.Family]
	}
	mech, ok := layout2LinearMechanisms[r.Algorithm]
	if r.Family != FamilyLinear || r.Mechanism != "" || !ok {
		return
	}
	sampler := core.SamplerGaussian
	if strings.Contains(r.CalibrationNote, layout2DiscreteNote) {
		mech, sampler = strings.Replace(mech, "gaussian", "discrete-gaussian", 1), core.SamplerDiscreteGaussian
	}
	if strings.Contains(mech, "binomial") {
		sampler = core.SamplerBinomial
	}
	r.Mechanism, r.Sampler = mech, sampler
}

// layout2PaperPreset are the algorithms whose layout-2 runs computed what
// paper_eps = 1 computes today (their eps was the Renyi or zCDP
// parameter): those runs keep their ids under paper_eps = 1, and their
// upgraded rows record it.
var layout2PaperPreset = []string{"dist-rdp-se", "dist-cdp-se"}

// paperTarget finds the (eps, delta)-DP target a paper-preset note states
// (layout 2: "target 4.75854 = that curve as (eps, delta)-DP"; layout 3:
// "target 4.75854 = its nominal curve as ..."), printed to 6 significant
// digits.
var paperTarget = regexp.MustCompile(`\btarget ([0-9][0-9.]*(?:e[-+]?[0-9]+)?) = (?:that curve|its nominal curve)\b`)

// hindsightNote starts the note on the hindsight minima that layout 3
// appended to a bco-ltr run's calibration_note.
const hindsightNote = "hindsight: "

// upgradeMeanings gives a row of layout 1, 2 or 3 the meanings of layout
// 4: the notes that are not about privacy move out of calibration_note (a
// non-private run has none); the relation and mechanism become tokens (the
// words go to relation_note; layouts 1-2 recorded neither a mab or bco
// relation nor a linear mechanism: layout2Tokens); target_eps and target_delta are the
// algorithm's eps and delta (0 for a pure-DP delta), or under a paper
// preset the nominal curve the note states; and certified is judged again
// by core.Privacy.Check, the rule new runs are held to.
func (r *RunRecord) upgradeMeanings(layout int) {
	note := r.CalibrationNote
	for _, lead := range []string{hindsightNote, ltrNoteLead} {
		if i := strings.Index(note, "; "+lead); i >= 0 {
			r.HindsightNote, note = note[i+2:], note[:i]
		} else if strings.HasPrefix(note, lead) {
			r.HindsightNote, note = note, ""
		}
	}
	private := r.Trust != core.TrustNone
	if !private {
		r.CalibrationNote = ""
		return
	}
	r.CalibrationNote = note
	if layout <= 2 {
		r.layout2Tokens()
	}
	if tok, ok := legacyRelations[r.Relation]; ok {
		r.Relation, r.RelationNote = tok, r.Relation
	}
	if tok, ok := legacyMechanisms[r.Mechanism]; ok {
		r.Mechanism = tok
	}
	if layout <= 2 && r.Params != nil && slices.Contains(layout2PaperPreset, r.Algorithm) {
		if _, ok := r.Params["paper_eps"]; !ok {
			r.Params["paper_eps"] = 1
		}
	}
	r.TargetEps, r.TargetDelta = nil, Some(0.0)
	if r.Eps != nil {
		r.TargetEps = Some(*r.Eps)
	}
	if r.Delta != nil {
		r.TargetDelta = Some(*r.Delta)
	}
	if m := paperTarget.FindStringSubmatch(note); m != nil {
		if x, err := strconv.ParseFloat(m[1], 64); err == nil {
			// The note printed the target to 6 digits; the release that
			// wrote it certified the delivered eps against the exact
			// target (the nominal curve, which the noise drawn, rounded
			// up, meets to within rounding), so a delivered eps that
			// prints as the target stands for it.
			if d := r.DeliveredEps; d != nil && strconv.FormatFloat(*d, 'g', 6, 64) == m[1] {
				x = *d
			}
			r.TargetEps = &x
		}
	}
	if r.Certified {
		if err := r.claim().Check(); err != nil {
			r.Certified = false
			r.CalibrationNote = fmt.Sprintf("%supgraded from layout %d: %v; %s", notCertified, layout, err, note)
		}
	}
}

// ltrNoteLead starts the note on an ltr instance's reference model that
// layouts 1-3 appended to a linear run's calibration_note
// (ltr.UnconvergedNote).
const ltrNoteLead = "theta* NOT CONVERGED"
