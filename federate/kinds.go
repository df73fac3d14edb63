package federate

import (
	"fmt"
	"slices"
	"sort"

	"github.com/fedbandit/fedbandit/internal/rng"
)

// instanceKind is what the simulator needs of an instance kind. Each
// kind's own file defines its entry (kind_synthetic.go, kind_ltr.go); the
// spec's defaults, validation and the simulator ask through this table.
type instanceKind struct {
	// defaults fills the kind's empty fields, and R and Crs from the
	// instance.
	defaults func(s *Spec)
	// dim is the learner's dimension (0 if not known yet).
	dim func(s Spec) int
	// dimField is the Spec field the dimension comes from.
	dimField string
	// glm reports a non-linear (logistic) link.
	glm func(s Spec) bool
	// validate checks the kind's settings (after defaults) for the
	// spec's algorithm.
	validate func(s Spec, alg *Algorithm) error
	// data, when set, checks the shape of the instance's data (Validate;
	// ValidateSettings runs before the data is loaded).
	data func(s Spec) error
	// build makes the run's instance.
	build func(s Spec, runKey rng.Key) instance
	// sharedStream, when set, returns the identity of the context stream
	// a spec (defaults filled) reads and whether runs can share it
	// (SharedContextsKey); nil: a kind whose runs never share one.
	sharedStream func(s Spec) (string, bool)
}

// instanceKinds are the kinds by name.
var instanceKinds = map[string]*instanceKind{
	InstanceSynthetic: syntheticKind,
	InstanceLTR:       ltrKind,
	InstanceDubey:     dubeyKind,
}

// kind returns the spec's instance kind (synthetic when empty).
func (s Spec) kind() (*instanceKind, error) {
	name := s.Instance
	if name == "" {
		name = InstanceSynthetic
	}
	if k, ok := instanceKinds[name]; ok {
		return k, nil
	}
	names := make([]string, 0, len(instanceKinds))
	for n := range instanceKinds {
		names = append(names, n)
	}
	sort.Strings(names)
	return nil, &FieldError{Field: "Instance", Msg: fmt.Sprintf("Instance %q, want one of %s", s.Instance, quoteList(slices.Clip(names)))}
}
