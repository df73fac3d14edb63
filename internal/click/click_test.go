package click

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestProbabilities: every model at every number of levels is a
// probability per label, nondecreasing in the label (a more relevant
// document is clicked at least as often), and the values of Oosterhuis &
// de Rijke's code at three levels (MQ2008's 0-2).
func TestProbabilities(t *testing.T) {
	for _, labelMax := range []int{1, 2, 4} {
		for _, m := range Models {
			p, err := Probabilities(m, labelMax)
			if err != nil || len(p) != labelMax+1 {
				t.Fatalf("%s at 0-%d: %v, %v", m, labelMax, p, err)
			}
			for l := range p {
				if p[l] < 0 || p[l] > 1 || (l > 0 && p[l] < p[l-1]) {
					t.Errorf("%s at 0-%d: %v", m, labelMax, p)
				}
			}
			p[0] = 7 // a copy: the table is not the caller's
		}
	}
	want := map[string][]float64{Perfect: {0, 0.5, 1}, Navigational: {0.05, 0.5, 0.95}, Informational: {0.4, 0.7, 0.9}}
	for m, w := range want {
		if p, _ := Probabilities(m, 2); !slices.Equal(p, w) {
			t.Errorf("%s: %v, want %v", m, p, w)
		}
	}
}

// TestMeans: a document's mean is its label's click probability, or
// label / labelMax without a model; bad labels and models are errors.
func TestMeans(t *testing.T) {
	got, err := Means([]float64{2, 0, 1, 2}, 2, Navigational)
	if err != nil || !slices.Equal(got, []float64{0.95, 0.05, 0.5, 0.95}) {
		t.Errorf("navigational: %v, %v", got, err)
	}
	got, err = Means([]float64{4, 0, 1}, 4, "")
	if err != nil || !slices.Equal(got, []float64{1, 0, 0.25}) {
		t.Errorf("label / max: %v, %v", got, err)
	}
	for _, tc := range []struct {
		labels   []float64
		labelMax int
		model    string
		want     string
	}{
		{[]float64{0.5}, 2, Perfect, "document 1 has label 0.5"},
		{[]float64{0, 3}, 2, Perfect, "document 2 has label 3"},
		{[]float64{-1}, 2, "", "label -1"},
		{[]float64{0}, 0, "", "maximum label 0"},
		{[]float64{0}, 2, "cascade", `click_model = "cascade": want one of perfect, navigational, informational`},
		{[]float64{0}, 3, Perfect, "labels are 0-3"},
	} {
		if _, err := Means(tc.labels, tc.labelMax, tc.model); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v at 0-%d, %q: %v, want %q", tc.labels, tc.labelMax, tc.model, err, tc.want)
		}
	}
	if _, err := Probabilities(Perfect, 3); !errors.Is(err, ErrLevels) {
		t.Errorf("0-3: %v, want ErrLevels", err)
	}
}
