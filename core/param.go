package core

import (
	"fmt"
	"math"
)

// Param declares one parameter of an algorithm (or instance kind): its
// sweep-file key, meaning, default and inclusive range. An explicit value
// is validated against the range and never replaced; only an absent key
// takes Default.
type Param struct {
	Key     string  // sweep-file key, e.g. "explore"
	Doc     string  // one line for help texts and docs
	Default float64 // value when the key is absent
	Min     float64 // inclusive lower bound
	Max     float64 // inclusive upper bound (math.Inf(1) for none)
	Integer bool    // the value must be a whole number
	// Late marks a parameter added after runs of its algorithm were
	// pinned: Identity leaves it out at its Default, so those runs keep
	// their ids (the rule the linear family's specs follow with
	// omitempty).
	Late bool
	// Pinned, for a parameter that made explicit what runs pinned before
	// it did implicitly, is that value: Identity leaves the key out at
	// Pinned, so those runs keep their ids, and keeps it at any other
	// value, the Default included (whose runs are other runs than the
	// pinned ones). Nil for none; Late is the case Pinned = Default.
	Pinned *float64
}

// SameMeaning reports whether p and q declare the same quantity: the same
// key with the same doc (which states the meaning and its unit) and the
// same integrality. Two algorithms that share a key must declare it with
// one meaning, so that a run's param_<key> column means one thing
// (registry refuses otherwise at start-up); defaults and ranges may
// differ.
func (p Param) SameMeaning(q Param) bool {
	return p.Key == q.Key && p.Doc == q.Doc && p.Integer == q.Integer
}

// Check returns an error naming the key when v is not finite, outside
// [Min, Max] or, for an integer parameter, not whole. Infinity is never a
// value, even where the range is unbounded: a run's parameters are in its
// id's JSON, which has no infinity (attack round 3, U5: crs = inf failed
// as "encode run spec: json: unsupported value: +Inf").
func (p Param) Check(v float64) error {
	switch {
	case math.IsNaN(v):
		return fmt.Errorf("%s = NaN: need a number %s", p.Key, p.Range())
	case math.IsInf(v, 0):
		return fmt.Errorf("%s = %v: need a finite number %s", p.Key, v, p.Range())
	case v < p.Min || v > p.Max:
		return fmt.Errorf("%s = %v: out of range: need a number %s (%s)", p.Key, v, p.Range(), p.Doc)
	case p.Integer && v != math.Trunc(v):
		return fmt.Errorf("%s = %v: need a whole number", p.Key, v)
	}
	return nil
}

// Range describes the inclusive range for messages and help texts:
// "in [0, 1]", or ">= 0" when Max is math.MaxFloat64 or +Inf, "<= 1"
// likewise.
func (p Param) Range() string {
	lo, hi := p.Min <= -math.MaxFloat64, p.Max >= math.MaxFloat64
	switch {
	case lo && hi:
		return "(any)"
	case hi:
		return fmt.Sprintf(">= %v", p.Min)
	case lo:
		return fmt.Sprintf("<= %v", p.Max)
	}
	return fmt.Sprintf("in [%v, %v]", p.Min, p.Max)
}

// Identity returns the parameters of resolved (Resolve's result) that
// enter a run's identity: all of them but a Late parameter at its Default
// and a Pinned one at its pinned value. Without Pinned parameters,
// Resolve(params, Identity(params, resolved)) is resolved again.
func Identity(params []Param, resolved map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(resolved))
	for k, v := range resolved {
		out[k] = v
	}
	for _, p := range params {
		v, ok := out[p.Key]
		switch {
		case !ok:
		case p.Pinned != nil:
			if v == *p.Pinned {
				delete(out, p.Key)
			}
		case p.Late && v == p.Default:
			delete(out, p.Key)
		}
	}
	return out
}

// Resolve returns the value of every declared parameter: the explicit
// value from set where present (checked), the default otherwise. A key of
// set that no parameter declares is an error naming it.
func Resolve(params []Param, set map[string]float64) (map[string]float64, error) {
	out := make(map[string]float64, len(params))
	known := make(map[string]bool, len(params))
	for _, p := range params {
		known[p.Key] = true
		v, ok := set[p.Key]
		if !ok {
			v = p.Default
		}
		if err := p.Check(v); err != nil {
			return nil, err
		}
		out[p.Key] = v
	}
	for k := range set {
		if !known[k] {
			return nil, fmt.Errorf("unknown parameter %q", k)
		}
	}
	return out, nil
}
