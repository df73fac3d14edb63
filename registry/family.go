package registry

import (
	"github.com/fedbandit/fedbandit/bco"
	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/mab"
	"github.com/fedbandit/fedbandit/outputs"
)

// Family is what summaries and plans say of a family's runs, in its own
// words.
type Family struct {
	Name string
	// Regret says whose regret a run's R(T) sums.
	Regret string
	// Uncertified lists the reasons a private run of the family may be
	// recorded as not certified (its calibration_note says which).
	Uncertified string
	// Metrics are the curve metrics the family's runs report beyond
	// core.Drive's, declared in the family's own package (its exported
	// list, empty when it has none); outputs gathers them as the
	// family's (outputs.RegisterMetrics), so a metric's families are
	// derived, never written.
	Metrics []core.Metric
	// Audit is the family's empirical privacy audit (`run audit`).
	Audit *Audit
}

// families are the registered families, in display order.
var families = []Family{
	{Name: FamilyLinear, Regret: "summed over the silos",
		Uncertified: "rewards not clamped, the eager learner with B > 1, or a data-dependent schedule",
		Metrics:     federate.Metrics, Audit: linearAudit},
	{Name: FamilyMAB, Regret: "of the users, one a round",
		Uncertified: "the published script's noise (reference_code = 1), per-user Polya shares (per_user = 1), or a delivered eps above the target",
		Metrics:     mab.Metrics, Audit: mabAudit},
	{Name: FamilyBCO, Regret: "summed over the silos' users, one per silo and round",
		Uncertified: "the slides' Gaussian sigma at eps >= 1 (use analytic = 1)",
		Metrics:     bco.Metrics, Audit: bcoAudit},
}

// The curve metrics of every family, in display order: the table of
// curve metrics lists them after core's (outputs.Metrics).
func init() {
	for _, f := range families {
		outputs.RegisterMetrics(f.Name, f.Metrics)
	}
}

// Families returns the registered families, in display order.
func Families() []Family { return families }

// LookupFamily returns the family called name (ok false if none is).
func LookupFamily(name string) (Family, bool) {
	for _, f := range families {
		if f.Name == name {
			return f, true
		}
	}
	return Family{}, false
}
