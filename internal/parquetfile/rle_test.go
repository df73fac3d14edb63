package parquetfile

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestDecodeRLE: decodeRLE on hand-made runs: the widest width, runs that
// fill the page exactly, and every way a run can be corrupt. Mutation
// controls, each of which made its case fail: width > 32 as width >= 32
// ("width-32"); the values left len(dst)-n as len(dst)+n
// ("repeated-past-page-later") and in a literal run
// ("run-then-literal-padding").
func TestDecodeRLE(t *testing.T) {
	cases := []struct {
		name  string
		src   []byte
		width int
		n     int
		limit int
		want  []int32 // nil: an error containing err
		err   string
	}{
		{"width-32", []byte{6, 5, 0, 0, 0}, 32, 3, 6, []int32{5, 5, 5}, ""},
		{"width-0", []byte{8}, 0, 4, 1, []int32{0, 0, 0, 0}, ""},
		{"two-repeated-runs", []byte{4, 1, 2, 0}, 1, 3, 2, []int32{1, 1, 0}, ""},
		{"literal-width-3", []byte{3, 0x88, 0xc6, 0xfa}, 3, 8, 8, []int32{0, 1, 2, 3, 4, 5, 6, 7}, ""},
		{"literal-then-run", []byte{3, 0x88, 0xc6, 0xfa, 4, 1}, 3, 10, 8, []int32{0, 1, 2, 3, 4, 5, 6, 7, 1, 1}, ""},
		{"literal-padding", []byte{3, 0x05}, 1, 3, 2, []int32{1, 0, 1}, ""},
		{"run-then-literal-padding", []byte{4, 1, 3, 0x05}, 1, 5, 2, []int32{1, 1, 1, 0, 1}, ""},
		{"width-33", []byte{2, 0, 0, 0, 0, 0}, 33, 1, 1, nil, "bit width 33"},
		{"width-negative", []byte{2}, -1, 1, 1, nil, "bit width -1"},
		{"no-header", nil, 1, 1, 2, nil, "run header after 0 of 1 values"},
		{"repeated-count-0", []byte{0, 1}, 1, 1, 2, nil, "repeated run after 0 values"},
		{"repeated-short", []byte{2}, 8, 1, 2, nil, "repeated run after 0 values"},
		{"repeated-index", []byte{2, 2}, 2, 1, 2, nil, "dictionary index 2 out of range 0..1"},
		{"repeated-past-page", []byte{8, 1}, 1, 3, 2, nil, "run of 4 values past the page's 3"},
		{"repeated-past-page-later", []byte{2, 1, 8, 1}, 1, 3, 2, nil, "run of 4 values past the page's 3"},
		{"literal-groups-0", []byte{1, 0}, 1, 1, 2, nil, "literal run after 0 values"},
		{"literal-short", []byte{5, 0xff, 0xff, 0xff}, 2, 9, 4, nil, "literal run of 4 bytes past the end"},
		{"literal-index", []byte{3, 0x02, 0x00}, 2, 1, 2, nil, "dictionary index 2 out of range 0..1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dst := make([]int32, c.n)
			err := decodeRLE(c.src, c.width, dst, c.limit)
			if c.want == nil {
				if !errors.Is(err, errRLE) || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(dst, c.want) {
				t.Fatalf("decoded %v, want %v", dst, c.want)
			}
		})
	}
}
