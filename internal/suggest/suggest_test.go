package suggest

import (
	"reflect"
	"testing"
)

// TestDistance: golden Levenshtein distances, symmetric.
func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"realized", "realised", 1},
		{"swep", "sweep", 1}, {"flaw", "lawn", 2}, {"ε", "e", 1}, {"plan", "plan", 0}, {"abc", "cab", 2}, {"plto", "plot", 1}, {"ca", "abc", 3},
	} {
		if got := Distance(c.a, c.b); got != c.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
		if got := Distance(c.b, c.a); got != c.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.b, c.a, got, c.d)
		}
	}
}

// TestClosest: the typos of the notebook review find their names; an
// unrelated word finds none; ties are all listed; the word itself is
// never suggested.
func TestClosest(t *testing.T) {
	cmds := []string{"quickstart", "plan", "sweep", "collect", "plot", "slurm", "task", "status", "table", "scaling", "audit", "export"}
	for _, c := range []struct {
		word string
		cand []string
		want []string
	}{
		{"swep", cmds, []string{"sweep"}},
		{"tabel", cmds, []string{"table"}},
		{"plto", cmds, []string{"plot"}},
		{"banana", cmds, nil},
		{"realized", []string{"pseudo", "realised", "syncs"}, []string{"realised"}},
		{"regret", []string{"pseudo", "realised", "syncs"}, nil},
		{"epsilon", []string{"eps", "delta", "M", "B", "T"}, []string{"eps"}},
		{"m", []string{"eps", "delta", "M", "B", "T"}, []string{"M"}},
		{"Q", []string{"M", "B", "T"}, []string{"M", "B", "T"}},
		{"plan", cmds, nil}, // itself is never suggested; plot is 2 edits away
	} {
		if got := Closest(c.word, c.cand); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Closest(%q) = %q, want %q", c.word, got, c.want)
		}
	}
	if got := DidYouMean("swep", cmds); got != `, did you mean "sweep"?` {
		t.Errorf("DidYouMean(swep) = %q", got)
	}
	if got := DidYouMean("Q", []string{"M", "B"}); got != `, did you mean one of "M", "B"?` {
		t.Errorf("DidYouMean(Q) = %q", got)
	}
	if got := DidYouMean("banana", cmds); got != "" {
		t.Errorf("DidYouMean(banana) = %q", got)
	}
}
