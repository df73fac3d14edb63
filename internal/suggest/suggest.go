// Package suggest finds what a mistyped name probably meant (a command, a
// sweep file key, a metric): the known names closest to it in edit
// distance, for a "did you mean" in the error that refuses it.
package suggest

import (
	"fmt"
	"strings"
)

// Distance is the edit distance between a and b in the optimal string
// alignment sense: inserting, deleting or substituting one rune, or
// swapping two adjacent runes ("plto" for "plot"), costs 1.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// d[i][j] is the distance between ra[:i] and rb[:j].
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// limit is the largest distance at which a candidate still counts as
// what a word of n runes meant: one edit for short words, then one per
// three runes, at most three (so "realized" finds "realised" and "swep"
// finds "sweep", but "T" does not find "M").
func limit(n int) int { return min(3, max(1, n/3)) }

// Closest returns the candidates nearest to word, case ignored: those at
// the smallest distance within the limit for word's length, in the
// candidates' order; a candidate that differs only in case, or of which
// word is an extension (epsilon for eps), comes first. It returns nil
// when none is close, and never word itself.
func Closest(word string, candidates []string) []string {
	lw := strings.ToLower(word)
	best, out := limit(len([]rune(word))), []string(nil)
	for _, c := range candidates {
		if c == word {
			continue
		}
		lc := strings.ToLower(c)
		d := Distance(lw, lc)
		if lc == lw || (len(lc) >= 3 && strings.HasPrefix(lw, lc)) {
			d = 0
		}
		switch {
		case d < best || (d == best && len(out) == 0):
			best, out = d, []string{c}
		case d == best:
			out = append(out, c)
		}
	}
	return out
}

// DidYouMean is the suffix for an error refusing word: `, did you mean
// "x"?` (or `one of "x", "y"?`), or "" when no candidate is close.
func DidYouMean(word string, candidates []string) string {
	return Phrase(Closest(word, candidates))
}

// Phrase is the suffix that proposes names (those Closest found, perhaps
// rewritten): `, did you mean "x"?`, `, did you mean one of "x", "y"?`,
// or "" for none.
func Phrase(c []string) string {
	switch len(c) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf(", did you mean %q?", c[0])
	}
	q := make([]string, len(c))
	for i, s := range c {
		q[i] = fmt.Sprintf("%q", s)
	}
	return ", did you mean one of " + strings.Join(q, ", ") + "?"
}
