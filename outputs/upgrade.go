package outputs

import (
	"fmt"
	"slices"

	"github.com/fedbandit/fedbandit/core"
)

// FamilyLinear is the family of the linear contextual bandits (package
// federate), the only family of layout 1.
const FamilyLinear = "linear"

// layout1Trust is the trust model of every algorithm a layout-1 release
// could record: the registry of those releases, frozen (layout 1 gains no
// algorithm). runner.TestLayout1TrustMatchesRegistry checks it against
// today's registry.
var layout1Trust = map[string]string{
	"fedlinucb":   core.TrustNone,
	"random":      core.TrustNone,
	"ldp":         core.TrustLocal,
	"ldp-linucb":  core.TrustLocal,
	"feducb":      core.TrustLocal,
	"sdp-amp":     core.TrustShuffle,
	"sdp-vec":     core.TrustShuffle,
	"super-agent": core.TrustCentral,
}

// layout1Unrecorded lists the layout-1 algorithms that had parameters
// layout 1 did not record (feducb's sync_threshold, default or explicit):
// their params are unknown (nil) when read from a layout-1 file.
var layout1Unrecorded = []string{"feducb"}

// Layout1Algorithms returns the algorithm names a layout-1 file may hold
// and their trust models.
func Layout1Algorithms() map[string]string {
	m := make(map[string]string, len(layout1Trust))
	for k, v := range layout1Trust {
		m[k] = v
	}
	return m
}

// upgrade fills in the columns that layouts after layout (the file's)
// added, from what the record holds. The record keeps its FormatVersion:
// the layout it was recorded in.
func upgrade(r *RunRecord, layout int) error {
	if layout >= 2 {
		return nil
	}
	trust, ok := layout1Trust[r.Algorithm]
	if !ok {
		return fmt.Errorf("run %s: algorithm %q is not one of layout 1", r.RunID, r.Algorithm)
	}
	r.Family, r.Trust, r.Params = FamilyLinear, trust, map[string]float64{}
	if slices.Contains(layout1Unrecorded, r.Algorithm) {
		r.Params = nil
	}
	return nil
}

// columnsOf returns the runs.arrow columns of a layout, in file order.
func columnsOf(layout int) []Column {
	later := map[string]bool{}
	for v, names := range layoutAdded {
		if v > layout {
			for _, n := range names {
				later[n] = true
			}
		}
	}
	cols := make([]Column, 0, len(Columns))
	for _, c := range Columns {
		if !later[c.Name] {
			cols = append(cols, c)
		}
	}
	return cols
}
