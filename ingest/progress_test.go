package ingest

import (
	"bytes"
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestETA: the time left at the rate so far, rounded to the second.
func TestETA(t *testing.T) {
	for _, c := range []struct {
		elapsed    time.Duration
		cur, total int64
		want       string
	}{
		{10 * time.Second, 25, 100, "30s"},
		{10 * time.Second, 100, 100, "0s"},
		{3 * time.Second, 1, 2, "3s"},
		{90 * time.Second, 1 << 20, 3 << 20, "3m0s"},
		{1400 * time.Millisecond, 1, 2, "1s"},
		{1600 * time.Millisecond, 1, 2, "2s"},
		{10 * time.Second, 0, 100, "unknown"},
		{10 * time.Second, 25, 0, "unknown"},
	} {
		if got := eta(c.elapsed, c.cur, c.total); got != c.want {
			t.Errorf("eta(%v, %d, %d) = %q, want %q", c.elapsed, c.cur, c.total, got, c.want)
		}
	}
}

// TestProgressBar: with a Progress writer, the bar ends at the bytes read
// and the rows kept; without one (and without a log), nothing is drawn.
func TestProgressBar(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, filepath.Join(dir, "in.txt"), []byte(good))
	var bar bytes.Buffer
	if _, err := Run(context.Background(), Options{Inputs: []string{in}, Out: filepath.Join(dir, "o1"), Progress: &bar}); err != nil {
		t.Fatal(err)
	}
	size := strconv.Itoa(len(good))
	if s := bar.String(); !strings.Contains(s, "ingest") || !strings.Contains(s, size+".0 b / "+size+".0 b") || !strings.Contains(s, "100 %") || !strings.Contains(s, "3 rows") {
		t.Errorf("final bar %q: want %s b of %s b, 100 %%, 3 rows", s, size, size)
	}
}
