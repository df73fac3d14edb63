package federate

import "github.com/fedbandit/fedbandit/internal/rng"

// The learning-to-rank kind: a prepared dataset (LTRData).
var ltrKind = &instanceKind{
	defaults: func(s *Spec) {
		if s.LTR != nil {
			if s.R == 0 {
				s.R = s.LTR.R
			}
			if s.Crs == 0 {
				s.Crs = s.LTR.Crs
			}
		}
		if s.R == 0 {
			s.R = 1
		}
		if s.Crs == 0 {
			s.Crs = 0.1
		}
	},
	dim: func(s Spec) int {
		if s.LTR != nil {
			return s.LTR.Dim
		}
		return 0
	},
	dimField: "LTR",
	glm:      func(Spec) bool { return false },
	validate: func(Spec, *Algorithm) error { return nil }, // the data's shape: Spec.Validate
	data: func(s Spec) error {
		if err := s.LTR.check(s.M); err != nil {
			return &FieldError{Field: "LTR", Msg: "LTR: " + err.Error()}
		}
		return nil
	},
	build: func(s Spec, runKey rng.Key) instance { return newLTR(s, runKey) },
}
