package features

import (
	"math"
	"slices"
	"testing"
)

func TestNamedSets(t *testing.T) {
	tests := []struct {
		spec      string
		nFeatures int
		intercept float64
		dim       int
		first     []int // leading columns
		last      []int // trailing columns
		id        string
	}{
		{Title, 136, DefaultIntercept, 57, []int{2, 4, 7, 9}, []int{122, 124, 126, 127, 128, 129, 130, 131}, "title"},
		{Body, 136, DefaultIntercept, 78, []int{1, 3, 5, 6, 8, 10}, []int{121, 123, 125, 132, 133}, "body"},
		{All, 136, DefaultIntercept, 134, []int{1, 2, 3}, []int{132, 133}, "all"},
		{All, 46, DefaultIntercept, 47, []int{1, 2}, []int{45, 46}, "all"},
		{All, 46, 0, 46, []int{1}, []int{46}, "all-i0"},
		{Title, 136, 0.5, 57, []int{2}, []int{131}, "title-i0.5"},
		{"1-5,7,126-131", 136, DefaultIntercept, 13, []int{1, 2, 3, 4, 5, 7, 126}, []int{131}, "cols-1-5_7_126-131"},
		{" 9, 3-4 ", 46, DefaultIntercept, 4, []int{9, 3, 4}, []int{4}, "cols-9_3-4"},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			s, err := Resolve(tc.spec, tc.nFeatures, tc.intercept)
			if err != nil {
				t.Fatal(err)
			}
			if s.Dim() != tc.dim {
				t.Errorf("Dim = %d, want %d", s.Dim(), tc.dim)
			}
			if !slices.Equal(s.Columns[:len(tc.first)], tc.first) {
				t.Errorf("columns start %v, want %v", s.Columns[:len(tc.first)], tc.first)
			}
			if !slices.Equal(s.Columns[len(s.Columns)-len(tc.last):], tc.last) {
				t.Errorf("columns end %v, want %v", s.Columns[len(s.Columns)-len(tc.last):], tc.last)
			}
			if s.ID() != tc.id {
				t.Errorf("ID = %q, want %q", s.ID(), tc.id)
			}
		})
	}
}

// TestTitleBodyExact checks the title and body sets column by column
// against protocol.md section 6.
func TestTitleBodyExact(t *testing.T) {
	var title, body []int
	for i := 0; i <= 24; i++ {
		title = append(title, 5*i+2, 5*i+4)
		body = append(body, 5*i+1, 5*i+3, 5*i+5)
	}
	title = append(title, 126, 127, 128, 129, 130, 131)
	body = append(body, 132, 133)
	if got := TitleColumns(); !slices.Equal(got, title) {
		t.Errorf("title = %v\nwant %v", got, title)
	}
	if got := BodyColumns(); !slices.Equal(got, body) {
		t.Errorf("body = %v\nwant %v", got, body)
	}
	if len(title)+1 != 57 || len(body)+1 != 78 {
		t.Fatalf("protocol dims: title %d body %d", len(title)+1, len(body)+1)
	}
	// Disjoint streams, never click/dwell.
	for _, c := range append(TitleColumns(), BodyColumns()...) {
		if c >= 134 {
			t.Errorf("column %d is a click/dwell feature", c)
		}
	}
	for _, c := range TitleColumns() {
		if slices.Contains(BodyColumns(), c) {
			t.Errorf("column %d in both title and body", c)
		}
	}
}

func TestResolveErrors(t *testing.T) {
	tests := []struct {
		spec      string
		nFeatures int
		intercept float64
	}{
		{Title, 46, DefaultIntercept},
		{Body, 46, DefaultIntercept},
		{"", 46, DefaultIntercept},
		{"0-3", 46, DefaultIntercept},
		{"5-3", 46, DefaultIntercept},
		{"1,1", 46, DefaultIntercept},
		{"1,,2", 46, DefaultIntercept},
		{"47", 46, DefaultIntercept},
		{"a-b", 46, DefaultIntercept},
		{"-3", 46, DefaultIntercept},
		{All, 46, math.NaN()},
		{All, 0, DefaultIntercept},
	}
	for _, tc := range tests {
		if s, err := Resolve(tc.spec, tc.nFeatures, tc.intercept); err == nil {
			t.Errorf("Resolve(%q, %d, %v) = %v, want error", tc.spec, tc.nFeatures, tc.intercept, s)
		}
	}
}

func TestRawAndNormalize(t *testing.T) {
	s := Set{Name: "x", Columns: []int{3, 1}, Intercept: DefaultIntercept}
	v := make([]float64, s.Dim())
	s.Raw(v, []float64{3, 4})
	if !slices.Equal(v, []float64{0.01, 3, 4}) {
		t.Fatalf("Raw = %v", v)
	}
	n := Normalize(v)
	if math.Abs(n-math.Sqrt(25.0001)) > 1e-15 {
		t.Errorf("norm %v", n)
	}
	var ss float64
	for _, x := range v {
		ss += x * x
	}
	if math.Abs(ss-1) > 1e-15 {
		t.Errorf("normalised norm^2 = %v", ss)
	}
	z := []float64{0, 0}
	if Normalize(z) != 0 || z[0] != 0 || z[1] != 0 {
		t.Errorf("zero vector changed: %v", z)
	}
	noI := Set{Columns: []int{1, 2}}
	w := make([]float64, noI.Dim())
	noI.Raw(w, []float64{5, 6})
	if !slices.Equal(w, []float64{5, 6}) {
		t.Errorf("Raw without intercept = %v", w)
	}
}
