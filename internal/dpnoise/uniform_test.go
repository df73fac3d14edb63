package dpnoise

import "testing"

// scripted is a rand.Source that returns its words in turn.
type scripted struct {
	words []uint64
	used  int
}

func (s *scripted) Uint64() uint64 {
	w := s.words[s.used]
	s.used++
	return w
}

// TestUniformRejects: Lemire's multiply-and-reject on words that land in
// the rejection region, chosen by hand so that the exact answer is
// known. n = 3: the threshold (2^64 - 3) mod 3 is 1, so the word 0
// (low half 0) is rejected and the next, 2^63, gives floor(3 2^63 / 2^64)
// = 1. n = 2^63 + 1: the threshold is 2^63 - 1, the word 2 (low half 2)
// is rejected and the next, 1, gives 0. Without the rejection both
// return the rejected word's value (0 and 1): the modulo bias that no
// statistical test at these n could see. Mutation-checked: P5-10 (the
// rejection removed) fails it.
func TestUniformRejects(t *testing.T) {
	for _, c := range []struct {
		n     uint64
		words []uint64
		want  uint64
	}{
		{3, []uint64{0, 1 << 63}, 1},
		{1<<63 + 1, []uint64{2, 1}, 0},
		{3, []uint64{1 << 63}, 1}, // accepted at once
	} {
		src := &scripted{words: c.words}
		if got := uniform(src, c.n); got != c.want || src.used != len(c.words) {
			t.Errorf("uniform(%v) on words %v = %d after %d words, want %d after %d", c.n, c.words, got, src.used, c.want, len(c.words))
		}
	}
}
