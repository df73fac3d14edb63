package ingest

import (
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
