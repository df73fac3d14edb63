package lasso

import (
	"bufio"
	"compress/gzip"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/datasets/mq2008"
	"github.com/fedbandit/fedbandit/features"
)

// letorRows is a minimal test-only reader of LETOR / MSLR text: labels,
// query ids and dense features per row, in file order.
type letorRows struct {
	labels []float64
	qids   []int64
	feats  [][]float64
}

func readLetor(t testing.TB, r io.Reader, into *letorRows) {
	t.Helper()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		tok := strings.Fields(line)
		if len(tok) == 0 {
			continue
		}
		lab, err := strconv.ParseFloat(tok[0], 64)
		if err != nil {
			t.Fatal(err)
		}
		qid, err := strconv.ParseInt(strings.TrimPrefix(tok[1], "qid:"), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		f := make([]float64, len(tok)-2)
		for k, kv := range tok[2:] {
			v, err := strconv.ParseFloat(kv[strings.IndexByte(kv, ':')+1:], 64)
			if err != nil {
				t.Fatal(err)
			}
			f[k] = v
		}
		into.labels = append(into.labels, lab)
		into.qids = append(into.qids, qid)
		into.feats = append(into.feats, f)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// matrix builds the raw design of a feature set (intercept then columns),
// one block per run of equal query ids.
func (l *letorRows) matrix(s features.Set) *Matrix {
	m := &Matrix{D: s.Dim()}
	src := make([]float64, len(s.Columns))
	for i := range l.labels {
		if i == 0 || l.qids[i] != l.qids[i-1] {
			m.X = append(m.X, nil)
			m.Y = append(m.Y, nil)
		}
		q := len(m.Y) - 1
		for k, c := range s.Columns {
			src[k] = l.feats[i][c-1]
		}
		row := make([]float64, s.Dim())
		s.Raw(row, src)
		m.X[q] = append(m.X[q], row...)
		m.Y[q] = append(m.Y[q], l.labels[i])
	}
	return m
}

func loadMQ2008(t testing.TB) *letorRows {
	t.Helper()
	var l letorRows
	for _, p := range mq2008.Partitions {
		f, err := mq2008.FS.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		readLetor(t, f, &l)
		f.Close()
	}
	if len(l.labels) != mq2008.Rows {
		t.Fatalf("read %d MQ2008 rows, want %d", len(l.labels), mq2008.Rows)
	}
	return &l
}

func loadMSLRSynth(t testing.TB) *letorRows {
	t.Helper()
	f, err := os.Open("testdata/mslr_synth.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var l letorRows
	readLetor(t, z, &l)
	return &l
}
