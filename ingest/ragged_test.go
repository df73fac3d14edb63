package ingest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/datasets/mq2008"
)

// Attack round 2, R5d: a line with fewer features than its format's count
// was zero-filled with nothing recorded. It is an error naming file and
// line; --allow-ragged (Options.AllowRagged) accepts it and counts it in
// the manifest.
//
// Mutation control (run 2026-11-25): making rowRule.check return (nil,
// false) always makes TestR5dShortLine fail on every strict case.

// shortLineCases returns synth MSLR text (3 queries) and LETOR 4.0 text
// with one line cut short, with the 1-based number of that line.
func shortLineCases(t *testing.T) map[string]struct {
	text []byte
	line int
} {
	t.Helper()
	var buf bytes.Buffer
	if err := Synth(&buf, SynthOptions{Queries: 3, MeanDocs: 5, MaxDocs: 10}); err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(buf.Bytes(), []byte("\n"))
	cut := func(l []byte, before string) []byte {
		k := bytes.Index(l, []byte(before))
		if k < 0 {
			t.Fatalf("no %q in %q", before, l)
		}
		end := l[len(bytes.TrimRight(l, "\r\n")):]
		return append(append([]byte{}, l[:k]...), end...)
	}
	mid := bytes.Join(append(append(append([][]byte{}, lines[:3]...), cut(lines[3], " 100:")), lines[4:]...), nil)
	// Feature 50 dropped from the middle of line 3: the highest index is
	// still the last one.
	k50, k51 := bytes.Index(lines[2], []byte(" 50:")), bytes.Index(lines[2], []byte(" 51:"))
	gapLine := append(append([]byte{}, lines[2][:k50]...), lines[2][k51:]...)
	gap := bytes.Join(append(append(append([][]byte{}, lines[:2]...), gapLine), lines[3:]...), nil)
	n := len(lines) - 1 // the last holds "" after the final newline
	last := bytes.Join(append(append([][]byte{}, lines[:n-1]...), cut(lines[n-1], " 100:")), nil)

	src := t.TempDir()
	paths, err := mq2008.Extract(src)
	if err != nil {
		t.Fatal(err)
	}
	s1, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	ll := bytes.SplitAfter(s1, []byte("\n"))[:30]
	k1, k2 := bytes.Index(ll[4], []byte(" 40:")), bytes.Index(ll[4], []byte(" #docid"))
	if k1 < 0 || k2 < k1 {
		t.Fatalf("unexpected LETOR line %q", ll[4])
	}
	ll[4] = append(append([]byte{}, ll[4][:k1]...), ll[4][k2:]...) // features 1..39, then the comment
	return map[string]struct {
		text []byte
		line int
	}{
		"mslr-middle": {mid, 4},
		"mslr-gap":    {gap, 3},
		"mslr-last":   {last, n},
		"letor-39":    {bytes.Join(ll, nil), 5},
	}
}

func TestR5dShortLine(t *testing.T) {
	// The field named: the first feature missing after the highest given,
	// or all "features" when the highest is there and one in the middle
	// is missing.
	fields := map[string]string{"mslr-middle": "feature 100", "mslr-last": "feature 100", "mslr-gap": "features", "letor-39": "feature 40"}
	for name, tc := range shortLineCases(t) {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "short.txt")
			if err := os.WriteFile(in, tc.text, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Run(context.Background(), Options{Inputs: []string{in}, Out: filepath.Join(dir, "o")})
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != in || pe.Line != int64(tc.line) || !strings.Contains(pe.Msg, "--allow-ragged") {
				t.Fatalf("err = %v, want a ParseError at %s:%d naming --allow-ragged", err, in, tc.line)
			}
			if pe.Field != fields[name] {
				t.Errorf("field %q, want %q", pe.Field, fields[name])
			}
			if _, err := os.Stat(filepath.Join(dir, "o")); !os.IsNotExist(err) {
				t.Errorf("a failed ingest left its output")
			}
			m, err := Run(context.Background(), Options{Inputs: []string{in}, Out: filepath.Join(dir, "r"), AllowRagged: true})
			if err != nil {
				t.Fatal(err)
			}
			if m.Ragged == nil || m.Ragged.Count != 1 || !strings.Contains(m.Ragged.Examples[0], ":"+strconv.Itoa(tc.line)+":") {
				t.Errorf("ragged_rows %+v, want 1 at line %d", m.Ragged, tc.line)
			}
			back, err := ReadManifest(filepath.Join(dir, "r"))
			if err != nil || back.Ragged == nil || back.Ragged.Count != 1 {
				t.Errorf("manifest.json ragged_rows %+v (%v)", back, err)
			}
		})
	}
}
