package ingest

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// FuzzParseLine checks the line parser on arbitrary input: it never panics,
// and a line it accepts, printed back in canonical form, parses to the same
// values (so nothing is silently dropped or altered). The seed corpus (real
// MSLR and MQ2008 lines and the bad-input cases) runs under plain go test.
func FuzzParseLine(f *testing.F) {
	for _, p := range []string{
		filepath.Join("testdata", "mslr", "mslr_sample.txt"),
		filepath.Join("..", "datasets", "mq2008", "S1.txt"),
	} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for i, line := range bytes.SplitAfter(b, []byte("\n")) {
			if i >= 5 {
				break
			}
			f.Add(string(line))
		}
	}
	for _, s := range []string{
		"2 qid:1 1:0.5 2:1 3:-2", "1 1:0.5", "1 qid:x 1:1", "1.5 qid:2 1:1", "9 qid:2 1:1",
		"1 qid:2 4:1", "1 qid:2 2:1 2:1", "1 qid:2 2:1 1:1", "1 qid:2 1:NaN", "1 qid:2 1:Inf",
		"1 qid:2 1:1e999", "1 qid:2 1:0x1p-2", "1 qid:2 1:1_0", "0\tqid:3\t1:.5 # c", "",
		"   ", "#", "1 qid:2 1:-0", "1 qid:2 1:00012.5000", "1 qid:2 3:0.1234567890123456789",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		const n = 3
		feats := make([]float64, n)
		pl, fe := parseLine([]byte(line), feats, 4)
		if fe != nil {
			if fe.field == "" || fe.msg == "" {
				t.Fatalf("error without field or message: %+v", fe)
			}
			return
		}
		if pl.label < 0 || pl.label > 4 || pl.qid < 0 {
			t.Fatalf("accepted label %d qid %d", pl.label, pl.qid)
		}
		// Canonical form: every feature, shortest repr.
		canon := []byte(strconv.Itoa(int(pl.label)) + " qid:" + strconv.FormatInt(pl.qid, 10))
		for j, v := range feats {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("accepted non-finite f%d = %v", j+1, v)
			}
			canon = append(canon, ' ')
			canon = strconv.AppendInt(canon, int64(j+1), 10)
			canon = append(canon, ':')
			canon = strconv.AppendFloat(canon, v, 'g', -1, 64)
		}
		again := make([]float64, n)
		pl2, fe := parseLine(canon, again, 4)
		if fe != nil {
			t.Fatalf("canonical form %q rejected: %v", canon, fe.msg)
		}
		if pl2.label != pl.label || pl2.qid != pl.qid {
			t.Fatalf("label/qid changed: %q", canon)
		}
		for j := range feats {
			if math.Float64bits(feats[j]) != math.Float64bits(again[j]) {
				t.Fatalf("f%d: %v then %v", j+1, feats[j], again[j])
			}
		}
	})
}

// FuzzFastFloat checks the fast decimal path against strconv.ParseFloat.
func FuzzFastFloat(f *testing.F) {
	for _, s := range []string{"0", "-0", "0.1", "-18.567793", "11089534", "123456789012345", "1.", ".5", "+3", "0.000000000000000000001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// The fused "index:value" fast path agrees with strconv too.
		if idx, fv, end, ok := fastFeature([]byte("7:"+s), 0); ok {
			w, err := strconv.ParseFloat(s[:end-2], 64)
			if idx != 7 || err != nil || math.Float64bits(fv) != math.Float64bits(w) {
				t.Fatalf("fastFeature(7:%q) = %d %v, strconv %v %v", s, idx, fv, w, err)
			}
		}
		v, ok := fastFloat([]byte(s))
		if !ok {
			return
		}
		w, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("fastFloat accepted %q, strconv: %v", s, err)
		}
		if math.Float64bits(v) != math.Float64bits(w) {
			t.Fatalf("fastFloat(%q) = %v, strconv %v", s, v, w)
		}
	})
}
