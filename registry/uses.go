package registry

import "slices"

// linearReads are the keys every run of the linear family reads besides
// those its entries declare in Uses: its runs always have silos, a
// horizon, a reward clamp and a checkpoint spacing.
var linearReads = []string{"M", "T", "reward", "no_clip", "checkpoint_every"}

// Reads reports whether the algorithm's runs read the sweep key (grid or
// advanced): a key of Uses, or for the linear family one of the keys all
// its runs read. `run plan` lists the keys a sweep sets that an
// algorithm does not read (attack round 3, W11: grid.M,
// advanced.reward and advanced.no_clip were silently ignored for mab
// and bco).
func (a *Algorithm) Reads(key string) bool {
	return a.UsesKey(key) || a.Family == FamilyLinear && slices.Contains(linearReads, key)
}
