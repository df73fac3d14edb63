package registry

// Family is what summaries and plans say of a family's runs, in its own
// words.
type Family struct {
	Name string
	// Regret says whose regret a run's R(T) sums.
	Regret string
	// Uncertified lists the reasons a private run of the family may be
	// recorded as not certified (its calibration_note says which).
	Uncertified string
}

// families are the registered families, in display order.
var families = []Family{
	{Name: FamilyLinear, Regret: "summed over the silos",
		Uncertified: "rewards not clamped, the eager learner with B > 1, or a data-dependent schedule"},
	{Name: FamilyMAB, Regret: "of the users, one a round",
		Uncertified: "the published script's noise (reference_code = 1), per-user Polya shares (per_user = 1), or a delivered eps above the target"},
	{Name: FamilyBCO, Regret: "summed over the silos' users, one per silo and round",
		Uncertified: "the slides' Gaussian sigma at eps >= 1 (use analytic = 1)"},
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
