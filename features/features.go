// Package features defines the feature sets of learning-to-rank bandit
// instances: which source columns of a prepared dataset make up a document's
// feature vector, with an optional constant intercept feature in front, and
// the two views of a document the simulator uses: the raw vector (the
// environment of the reference reward model) and the vector divided by its L2
// norm (what the learner observes).
//
// Named sets follow protocol.md section 6 (MSLR features are 25 groups x 5
// streams: 5i+1 body, 5i+2 anchor, 5i+3 title, 5i+4 URL, 5i+5 whole document,
// i = 0..24; then 126..136 document-level):
//
//	title  MSLR, d = 57: [intercept] + {5i+2, 5i+4} + [126..131]
//	body   MSLR, d = 78: [intercept] + {5i+1, 5i+3, 5i+5} + [132, 133]
//	all    every source feature except MSLR's click/dwell features 134..136:
//	       MSLR d = 134 (1..133), LETOR MQ2007/MQ2008 d = 47 (1..46)
//
// User-defined sets are index lists with ranges, e.g. "1-5,7,126-131".
package features

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// DefaultIntercept is the value of the constant intercept feature (feature 0)
// of every document, as in the reference code.
const DefaultIntercept = 0.01

// MSLRFeatures is the number of source features of MSLR-WEB10K/30K.
const MSLRFeatures = 136

// Names of the built-in sets.
const (
	Title = "title"
	Body  = "body"
	All   = "all"
)

// Set is a feature set: the source columns that make up a document's vector,
// in order, optionally preceded by a constant intercept feature.
type Set struct {
	// Name identifies the set in artifact file names and run descriptions:
	// a built-in name, or "cols-<list>" for a user-defined list. A
	// non-default intercept is appended as "-i<value>" (see ID).
	Name string `json:"name"`
	// Columns are the 1-based source feature indices, in vector order.
	Columns []int `json:"columns"`
	// Intercept is the value of the constant feature 0; 0 means no
	// intercept feature.
	Intercept float64 `json:"intercept"`
}

// Dim returns d, the length of a document's vector (intercept included).
func (s Set) Dim() int {
	if s.Intercept != 0 {
		return len(s.Columns) + 1
	}
	return len(s.Columns)
}

// ID returns the set's identifier for file names: Name, with "-i<value>"
// appended when the intercept differs from DefaultIntercept ("-i0" for no
// intercept).
func (s Set) ID() string {
	if s.Intercept == DefaultIntercept {
		return s.Name
	}
	return s.Name + "-i" + strconv.FormatFloat(s.Intercept, 'g', -1, 64)
}

// TitleColumns returns the source columns of the MSLR "title" set
// (anchor and URL streams, URL slashes and length, in/out-links, PageRank,
// SiteRank): {5i+2, 5i+4 : i = 0..24} in increasing order, then 126..131.
func TitleColumns() []int {
	var c []int
	for i := 0; i < 25; i++ {
		c = append(c, 5*i+2, 5*i+4)
	}
	for j := 126; j <= 131; j++ {
		c = append(c, j)
	}
	return c
}

// BodyColumns returns the source columns of the MSLR "body" set:
// {5i+1, 5i+3, 5i+5 : i = 0..24} in increasing order, then 132, 133.
func BodyColumns() []int {
	var c []int
	for i := 0; i < 25; i++ {
		c = append(c, 5*i+1, 5*i+3, 5*i+5)
	}
	return append(c, 132, 133)
}

// AllColumns returns every usable source column of a dataset with nFeatures
// source features: 1..133 for MSLR (136 features; the click and dwell
// features 134..136 are never used, as in the reference), 1..n otherwise.
func AllColumns(nFeatures int) []int {
	last := nFeatures
	if nFeatures == MSLRFeatures {
		last = 133
	}
	c := make([]int, last)
	for i := range c {
		c[i] = i + 1
	}
	return c
}

// Resolve returns the feature set named by spec for a dataset with
// nFeatures source features, with the given intercept value (0 for none).
//
// spec is a built-in name (title, body, all) or a user-defined column list
// such as "1-5,7,126-131" (1-based, ranges inclusive, no duplicates).
// title and body need an MSLR dataset (136 features). Every column must
// exist in the dataset.
func Resolve(spec string, nFeatures int, intercept float64) (Set, error) {
	if math.IsNaN(intercept) || math.IsInf(intercept, 0) {
		return Set{}, fmt.Errorf("features: intercept %v is not a finite number", intercept)
	}
	if nFeatures < 1 {
		return Set{}, fmt.Errorf("features: dataset has %d features", nFeatures)
	}
	spec = strings.TrimSpace(spec)
	var s Set
	switch spec {
	case Title, Body:
		if nFeatures != MSLRFeatures {
			return Set{}, fmt.Errorf("features: set %q is defined for MSLR-WEB datasets (136 features), this dataset has %d; use %q or a column list such as \"1-5,7\"", spec, nFeatures, All)
		}
		cols := TitleColumns()
		if spec == Body {
			cols = BodyColumns()
		}
		s = Set{Name: spec, Columns: cols}
	case All:
		s = Set{Name: All, Columns: AllColumns(nFeatures)}
	case "":
		return Set{}, fmt.Errorf("features: empty feature set; use %q, %q, %q or a column list such as \"1-5,7,126-131\"", Title, Body, All)
	default:
		cols, err := ParseColumns(spec)
		if err != nil {
			return Set{}, err
		}
		s = Set{Name: "cols-" + strings.ReplaceAll(canonicalList(cols), ",", "_"), Columns: cols}
	}
	for _, c := range s.Columns {
		if c > nFeatures {
			return Set{}, fmt.Errorf("features: set %q uses column %d but the dataset has only %d features", spec, c, nFeatures)
		}
	}
	s.Intercept = intercept
	return s, nil
}

// ParseColumns parses a column list: comma-separated 1-based indices and
// inclusive ranges ("1-5,7,126-131"). Order is kept; duplicates, zero,
// negative numbers and reversed ranges are errors.
func ParseColumns(list string) ([]int, error) {
	var cols []int
	seen := map[int]bool{}
	for _, part := range strings.Split(list, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("features: column list %q: empty element", list)
		}
		lo, hi := part, part
		if i := strings.IndexByte(part, '-'); i >= 0 {
			lo, hi = strings.TrimSpace(part[:i]), strings.TrimSpace(part[i+1:])
		}
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("features: column list %q: %q is not a column index or range: %w", list, part, err)
		}
		b, err := strconv.Atoi(hi)
		if err != nil {
			return nil, fmt.Errorf("features: column list %q: %q is not a column index or range: %w", list, part, err)
		}
		if a < 1 || b < 1 {
			return nil, fmt.Errorf("features: column list %q: %q: columns are 1-based", list, part)
		}
		if b < a {
			return nil, fmt.Errorf("features: column list %q: range %q is reversed", list, part)
		}
		for c := a; c <= b; c++ {
			if seen[c] {
				return nil, fmt.Errorf("features: column list %q: column %d listed twice", list, c)
			}
			seen[c] = true
			cols = append(cols, c)
		}
	}
	return cols, nil
}

// canonicalList renders columns compactly with ranges, in their order.
func canonicalList(cols []int) string {
	var b strings.Builder
	for i := 0; i < len(cols); {
		j := i
		for j+1 < len(cols) && cols[j+1] == cols[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(cols[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(cols[j]))
		}
		i = j + 1
	}
	return b.String()
}

// String describes the set briefly, e.g. "title (d=57, intercept 0.01)";
// Columns has the full list.
func (s Set) String() string {
	in := "no intercept"
	if s.Intercept != 0 {
		in = "intercept " + strconv.FormatFloat(s.Intercept, 'g', -1, 64)
	}
	return fmt.Sprintf("%s (d=%d, %s)", s.Name, s.Dim(), in)
}

// Equal reports whether two sets define the same vectors.
func (s Set) Equal(o Set) bool {
	return s.Intercept == o.Intercept && slices.Equal(s.Columns, o.Columns)
}

// Raw writes the raw vector of one document into dst (length Dim): the
// intercept (if any) followed by the values of src, which holds the
// document's source values in Columns order.
func (s Set) Raw(dst, src []float64) {
	if s.Intercept != 0 {
		dst[0] = s.Intercept
		copy(dst[1:], src)
		return
	}
	copy(dst, src)
}

// Normalize divides v in place by its L2 norm (the learner's view of a
// document). A zero vector (possible only without an intercept feature) is
// left as the zero vector: such a document looks identical to the learner
// whatever its reward. Normalize returns the norm.
func Normalize(v []float64) float64 {
	var ss float64
	for _, x := range v {
		ss += float64(x * x)
	}
	n := math.Sqrt(ss)
	if n == 0 {
		return 0
	}
	for i := range v {
		v[i] /= n
	}
	return n
}
