package ingest

import (
	"bytes"
	"context"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestSynthDeterministic(t *testing.T) {
	gen := func(seed uint64) []byte {
		var b bytes.Buffer
		if err := Synth(&b, SynthOptions{Seed: seed, Queries: 5}); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	a, b, c := gen(1), gen(1), gen(2)
	if !bytes.Equal(a, b) {
		t.Error("same seed, different bytes")
	}
	if bytes.Equal(a, c) {
		t.Error("different seeds, same bytes")
	}
}

// TestSynthShape checks the MSLR-WEB10K shape of the generated text.
func TestSynthShape(t *testing.T) {
	const queries = 400
	var b bytes.Buffer
	if err := Synth(&b, SynthOptions{Seed: 3, Queries: queries}); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	if !strings.HasSuffix(text, " \r\n") || strings.Count(text, "\n") != strings.Count(text, " \r\n") {
		t.Error("lines do not end in space CRLF")
	}
	dir := t.TempDir()
	in := writeFile(t, filepath.Join(dir, "synth.txt"), b.Bytes())
	m, err := Run(context.Background(), Options{Inputs: []string{in}, Out: filepath.Join(dir, "ds")})
	if err != nil {
		t.Fatal(err)
	}
	if m.Queries != queries || m.Features != 136 || m.Format != FormatMSLR {
		t.Fatalf("queries %d features %d format %s", m.Queries, m.Features, m.Format)
	}
	if m.DocsPerQuery.Min != 1 || m.DocsPerQuery.Max != 908 || m.DocsPerQuery.Mean < 100 || m.DocsPerQuery.Mean > 140 {
		t.Errorf("docs per query %+v, want 1..908 mean ~120", m.DocsPerQuery)
	}
	// Label frequencies within 5 standard errors of SynthLabelProbs
	// (false-alarm rate < 1e-5 per label).
	for l, p := range SynthLabelProbs {
		got := float64(m.LabelHistogram[l]) / float64(m.Rows)
		se := math.Sqrt(p * (1 - p) / float64(m.Rows))
		if math.Abs(got-p) > 5*se+0.01 { // +0.01: rows are clustered by query
			t.Errorf("label %d frequency %.4f, want %.4f", l, got, p)
		}
	}
	fs := m.FeatureStats
	isInt := func(j int) bool { // feature j (1-based) integer-valued in the text?
		for _, line := range strings.SplitN(text, "\n", 200)[:199] {
			for _, tok := range strings.Fields(line)[2:] {
				if strings.HasPrefix(tok, strconv.Itoa(j)+":") && strings.Contains(tok, ".") {
					return false
				}
			}
		}
		return true
	}
	for _, j := range []int{1, 5, 11, 15, 126, 127, 128, 129, 130, 131, 132, 133, 134, 135} {
		if !isInt(j) {
			t.Errorf("feature %d not integer-valued", j)
		}
	}
	for j := 111; j <= 125; j++ {
		if fs[j-1].Max >= 0 || fs[j-1].Min > -5 {
			t.Errorf("LMIR feature %d range [%v, %v], want negative", j, fs[j-1].Min, fs[j-1].Max)
		}
	}
	if fs[127].Max < 1e6 || fs[130].Max < 1e5 {
		t.Errorf("PageRank-like features too small: f128 max %v f131 max %v", fs[127].Max, fs[130].Max)
	}
	if fs[133].ZeroFraction < 0.8 {
		t.Errorf("click feature 134 zero fraction %v, want mostly zero", fs[133].ZeroFraction)
	}
	// Relevance signal: mean BM25 (f110) grows with the label.
	ds, err := Load(filepath.Join(dir, "ds"), []int{110})
	if err != nil {
		t.Fatal(err)
	}
	var sum [5]float64
	var n [5]float64
	for _, q := range ds.Queries {
		for i, l := range q.Labels {
			sum[int(l)] += q.X.At(i, 0)
			n[int(l)]++
		}
	}
	if !(sum[0]/n[0] < sum[2]/n[2] && sum[2]/n[2] < sum[4]/n[4]) {
		t.Errorf("BM25 does not grow with the label: %v / %v", sum, n)
	}
}

func TestSynthOptionErrors(t *testing.T) {
	for _, o := range []SynthOptions{{Queries: -1}, {MeanDocs: 2000}, {MaxDocs: -3}, {FirstQID: -1}} {
		if err := Synth(&bytes.Buffer{}, o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

// TestSynthOptionEdges: the bounds of the options are inclusive: a mean of
// one document, and a mean equal to the largest query. From two queries
// on, one query has exactly MaxDocs documents and one exactly 1.
func TestSynthOptionEdges(t *testing.T) {
	var two bytes.Buffer
	if err := Synth(&two, SynthOptions{Queries: 2, MeanDocs: 3, MaxDocs: 7}); err != nil {
		t.Fatal(err)
	}
	perQID := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(two.String()), "\n") {
		perQID[strings.Fields(l)[1]]++
	}
	if len(perQID) != 2 || perQID["qid:1"]+perQID["qid:2"] != 8 || perQID["qid:1"]*perQID["qid:2"] != 7 {
		t.Errorf("two queries: documents per qid %v, want 7 and 1", perQID)
	}
	for _, o := range []SynthOptions{{Queries: 3, MeanDocs: 1, MaxDocs: 1}, {Queries: 3, MeanDocs: 4, MaxDocs: 4}} {
		var b bytes.Buffer
		if err := Synth(&b, o); err != nil {
			t.Errorf("%+v refused: %v", o, err)
		}
		if lines := bytes.Count(b.Bytes(), []byte{'\n'}); lines < o.Queries || lines > o.Queries*o.MaxDocs {
			t.Errorf("%+v: %d lines", o, lines)
		}
	}
	for _, o := range []SynthOptions{{Queries: 3, MeanDocs: 0.99, MaxDocs: 4}, {Queries: 3, MeanDocs: 4.01, MaxDocs: 4}} {
		if err := Synth(&bytes.Buffer{}, o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

// TestAppendFixed6: six decimals, rounded, without trailing zeros, the
// sign kept; magnitudes of 1e12 and more are written as whole numbers.
func TestAppendFixed6(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{3, "3"}, {0.75, "0.75"}, {-18.567793, "-18.567793"}, {0.0000004, "0"}, {0.0000005, "0.000001"},
		{-0.25, "-0.25"}, {1.1234565, "1.123457"}, {999999.125, "999999.125"},
		{1e12, "1000000000000"}, {-2.5e13, "-25000000000000"}, {1234567890123.7, "1234567890124"},
	} {
		if got := string(appendFixed6(nil, c.v)); got != c.want {
			t.Errorf("appendFixed6(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}
