package ingest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/fedbandit/fedbandit/internal/fmath"
	"github.com/fedbandit/fedbandit/internal/rng"
)

// SynthOptions configures Synth.
type SynthOptions struct {
	// Seed selects the generated data; the same seed and options give the
	// same bytes.
	Seed uint64
	// Queries is the number of queries; 0 means 10,000 (MSLR-WEB10K).
	Queries int
	// MeanDocs is the target mean number of documents per query; 0 means
	// 120 (MSLR-WEB10K has 1,200,192 documents over 10,000 queries).
	MeanDocs float64
	// MaxDocs is the largest number of documents per query; 0 means 908.
	// When Queries >= 2 one query has exactly MaxDocs documents and one
	// exactly 1, as in MSLR-WEB10K.
	MaxDocs int
	// FirstQID is the qid of the first query; 0 means 1.
	FirstQID int64
}

// SynthLabelProbs are the label frequencies Synth draws from (MSLR-WEB10K's
// skew: about 51.5% / 32% / 13% / 2.5% / 1% for labels 0..4).
var SynthLabelProbs = [5]float64{0.515, 0.32, 0.13, 0.025, 0.01}

// synthFeatures is the number of MSLR-WEB features.
const synthFeatures = 136

// Synth writes MSLR-WEB10K-shaped text to w: "label qid:N 1:v ... 136:v "
// lines with CRLF endings and the trailing space of the real files. Values
// follow MSLR's patterns per feature group (see datasets.md): integer term
// counts and stream lengths (1-5, 11-15, 21-35), ratios and normalised
// frequencies in [0, 1], per-query IDF, BM25 and TF-IDF floats, negative
// LMIR scores (111-125), URL and link counts, large PageRank-like integers
// (128, 131) and mostly-zero click features (134-136). Labels follow
// SynthLabelProbs and shift the relevance-bearing features so that a lasso
// fit finds signal. The random streams come from federate/rng under
// rng.NewKey("synth", Seed). Every product that is added to something is
// converted (float64(x*y)) so that arm64 does not fuse it into one
// multiply-add: the text is the same on every machine
// (scripts/crossarch.sh checks the compiled code).
func Synth(w io.Writer, opts SynthOptions) error {
	if opts.Queries == 0 {
		opts.Queries = 10000
	}
	if opts.MeanDocs == 0 {
		opts.MeanDocs = 120
	}
	if opts.MaxDocs == 0 {
		opts.MaxDocs = 908
	}
	if opts.FirstQID == 0 {
		opts.FirstQID = 1
	}
	switch {
	case opts.Queries < 0:
		return fmt.Errorf("synth: queries %d < 0", opts.Queries)
	case opts.MaxDocs < 1:
		return fmt.Errorf("synth: max docs %d < 1", opts.MaxDocs)
	case opts.MeanDocs < 1 || opts.MeanDocs > float64(opts.MaxDocs):
		return fmt.Errorf("synth: mean docs %g outside 1..%d", opts.MeanDocs, opts.MaxDocs)
	case opts.FirstQID < 0:
		return errors.New("synth: first qid < 0")
	}
	key := rng.NewKey("synth", opts.Seed)
	sizes := rng.New(key, "docs-per-query")
	// Documents per query: log-normal with sigma 0.9, clipped to 1..MaxDocs.
	const sigma = 0.9
	mu := fmath.Log(opts.MeanDocs) - sigma*sigma/2
	docs := make([]int, opts.Queries)
	for i := range docs {
		d := int(math.Round(fmath.Exp(mu + float64(sigma*sizes.NormFloat64()))))
		docs[i] = min(max(d, 1), opts.MaxDocs)
	}
	if opts.Queries >= 2 {
		i := sizes.IntN(opts.Queries)
		j := (i + 1 + sizes.IntN(opts.Queries-1)) % opts.Queries
		docs[i], docs[j] = opts.MaxDocs, 1
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	g := &synthGen{}
	line := make([]byte, 0, 4096)
	for qi, nd := range docs {
		r := rng.New(key, "query", qi)
		g.newQuery(r)
		qid := opts.FirstQID + int64(qi)
		for d := 0; d < nd; d++ {
			label := drawLabel(r)
			g.doc(r, label)
			line = line[:0]
			line = strconv.AppendInt(line, int64(label), 10)
			line = append(line, " qid:"...)
			line = strconv.AppendInt(line, qid, 10)
			for j, v := range g.f {
				line = append(line, ' ')
				line = strconv.AppendInt(line, int64(j+1), 10)
				line = append(line, ':')
				line = appendFixed6(line, v)
			}
			line = append(line, " \r\n"...)
			if _, err := bw.Write(line); err != nil {
				return fmt.Errorf("synth: %w", err)
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	return nil
}

func drawLabel(r *rand.Rand) int {
	u := r.Float64()
	for l, p := range SynthLabelProbs {
		if u < p {
			return l
		}
		u -= p
	}
	return len(SynthLabelProbs) - 1
}

// appendFixed6 formats v rounded to 6 decimals, without trailing zeros
// ("3", "0.75", "-18.567793"), as MSLR files do.
func appendFixed6(b []byte, v float64) []byte {
	if math.Abs(v) >= 1e12 {
		return strconv.AppendFloat(b, math.Round(v), 'f', -1, 64)
	}
	s := int64(math.Round(v * 1e6))
	if s < 0 {
		b = append(b, '-')
		s = -s
	}
	b = strconv.AppendInt(b, s/1000000, 10)
	frac := s % 1000000
	if frac == 0 {
		return b
	}
	var d [7]byte
	d[0] = '.'
	for i := 6; i >= 1; i-- {
		d[i] = byte('0' + frac%10)
		frac /= 10
	}
	n := 7
	for d[n-1] == '0' {
		n--
	}
	return append(b, d[:n]...)
}

// synthGen holds one query's shared values and the current document's features.
type synthGen struct {
	qlen int          // query terms
	idf  [5]float64   // per stream
	f    [136]float64 // features of the current document, f[j] is feature j+1
}

func (g *synthGen) newQuery(r *rand.Rand) {
	g.qlen = 1 + r.IntN(5)
	for s := range g.idf {
		g.idf[s] = math.Round((1+float64(r.Float64()*20))*1e6) / 1e6
	}
}

// stream lengths: typical body, anchor, title, URL sizes.
var streamScale = [4]float64{600, 25, 8, 6}

func (g *synthGen) doc(r *rand.Rand, label int) {
	f := &g.f
	rel := float64(label) // relevance drives the signal
	q := float64(g.qlen)
	var covered, length, sumTF, minTF, maxTF [5]float64
	for s := 0; s < 4; s++ {
		p := min(0.25+float64(0.15*rel), 0.95)
		c := 0
		for t := 0; t < g.qlen; t++ {
			if r.Float64() < p {
				c++
			}
		}
		covered[s] = float64(c)
		length[s] = math.Floor(streamScale[s] * fmath.Exp(0.8*r.NormFloat64()))
		if length[s] < covered[s] {
			length[s] = covered[s]
		}
		if c > 0 {
			lo := 1 + float64(r.IntN(3))
			hi := lo + float64(r.IntN(1+int(math.Sqrt(length[s]))))
			minTF[s], maxTF[s] = lo, hi
			sumTF[s] = math.Min(float64(lo*float64(c))+hi-lo, length[s]) // at least every covered term once
			sumTF[s] = math.Max(sumTF[s], covered[s])
		}
	}
	// Whole document (stream 5) aggregates the others.
	covered[4] = max(covered[0], covered[1], covered[2], covered[3])
	length[4] = length[0] + length[1] + length[2] + length[3]
	sumTF[4] = sumTF[0] + sumTF[1] + sumTF[2] + sumTF[3]
	minTF[4] = minTF[0]
	maxTF[4] = max(maxTF[0], maxTF[1], maxTF[2], maxTF[3])
	for s := 0; s < 5; s++ {
		meanTF := 0.0
		varTF := 0.0
		if covered[s] > 0 {
			meanTF = sumTF[s] / q
			varTF = (maxTF[s] - minTF[s]) * (maxTF[s] - minTF[s]) / 4 * r.Float64()
		}
		norm := 0.0
		if length[s] > 0 {
			norm = sumTF[s] / length[s]
		}
		f[0+s] = covered[s]                          // 1-5 covered query term number
		f[5+s] = covered[s] / q                      // 6-10 covered query term ratio
		f[10+s] = length[s]                          // 11-15 stream length
		f[15+s] = g.idf[s]                           // 16-20 IDF (per query)
		f[20+s] = sumTF[s]                           // 21-25 sum of term frequency
		f[25+s] = minTF[s]                           // 26-30 min of term frequency
		f[30+s] = maxTF[s]                           // 31-35 max of term frequency
		f[35+s] = meanTF                             // 36-40 mean of term frequency
		f[40+s] = varTF                              // 41-45 variance of term frequency
		f[45+s] = norm                               // 46-50 sum of stream length normalised tf
		f[50+s] = norm * minTF[s] / max(maxTF[s], 1) // 51-55 min
		f[55+s] = norm                               // 56-60 max
		f[60+s] = norm / max(q, 1)                   // 61-65 mean
		f[65+s] = norm * norm * r.Float64() / 10     // 66-70 variance
		tfidf := sumTF[s] * g.idf[s]
		f[70+s] = tfidf                             // 71-75 sum of tf*idf
		f[75+s] = minTF[s] * g.idf[s]               // 76-80 min of tf*idf
		f[80+s] = maxTF[s] * g.idf[s]               // 81-85 max of tf*idf
		f[85+s] = meanTF * g.idf[s]                 // 86-90 mean of tf*idf
		f[90+s] = varTF * g.idf[s] * g.idf[s] / 100 // 91-95 variance of tf*idf
		if covered[s] == q {
			f[95+s] = 1 // 96-100 boolean model
		} else {
			f[95+s] = 0
		}
		f[100+s] = math.Min(1, covered[s]/q*r.Float64()) // 101-105 vector space model
		bm25 := 0.0
		if covered[s] > 0 {
			bm25 = g.idf[s] * (1 + float64(rel*0.5)) * (1 + float64(r.Float64()))
		}
		f[105+s] = bm25 // 106-110 BM25
		// 111-125 LMIR.ABS, LMIR.DIR, LMIR.JM: negative log-likelihoods,
		// closer to 0 for relevant documents.
		base := -(5 + float64(25*r.Float64())) * (1 - float64(0.08*rel))
		f[110+s] = base
		f[115+s] = base * (0.8 + float64(0.4*r.Float64()))
		f[120+s] = base * (0.9 + float64(0.3*r.Float64()))
	}
	f[125] = float64(1 + r.IntN(8))                                                     // 126 slashes in URL
	f[126] = float64(15 + r.IntN(120))                                                  // 127 URL length
	f[127] = math.Floor(fmath.Exp(8 + float64(3*r.NormFloat64()) + float64(0.3*rel)))   // 128 inlink number (huge, heavy-tailed)
	f[128] = float64(r.IntN(60))                                                        // 129 outlink number
	f[129] = math.Floor(fmath.Exp(4 + float64(1.5*r.NormFloat64()) + float64(0.2*rel))) // 130 PageRank
	f[130] = math.Floor(fmath.Exp(9 + 2*r.NormFloat64()))                               // 131 SiteRank (large)
	f[131] = float64(r.IntN(30) + 4*label)                                              // 132 QualityScore
	f[132] = float64(r.IntN(10))                                                        // 133 QualityScore2
	clicks := 0.0
	if r.Float64() < 0.05+float64(0.05*rel) {
		clicks = float64(1 + r.IntN(20))
	}
	f[133] = clicks                   // 134 query-url click count
	f[134] = math.Floor(clicks * 1.5) // 135 url click count
	f[135] = 0                        // 136 url dwell time
	if clicks > 0 {
		f[135] = math.Round(clicks*r.Float64()*60*1e6) / 1e6
	}
}
