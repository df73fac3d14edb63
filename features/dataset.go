package features

import (
	"fmt"

	"github.com/fedbandit/fedbandit/ingest"
)

// Locate returns, for each column of s, its position among the columns
// loaded in ds (ds.Columns), or an error naming the first missing column.
func (s Set) Locate(ds *ingest.Dataset) ([]int, error) {
	pos := make(map[int]int, len(ds.Columns))
	for i, c := range ds.Columns {
		pos[c] = i
	}
	loc := make([]int, len(s.Columns))
	for k, c := range s.Columns {
		i, ok := pos[c]
		if !ok {
			return nil, fmt.Errorf("features: set %s needs column %d, which was not loaded from %s", s.Name, c, ds.Dir)
		}
		loc[k] = i
	}
	return loc, nil
}

// QueryRows writes the vectors of every document of q into dst (row-major,
// len(q.Labels) rows of Dim values): raw (intercept, then the source values)
// or, when normalized, each row divided by its L2 norm (the learner's view;
// see Normalize). loc comes from Locate on q's dataset.
func (s Set) QueryRows(q *ingest.Query, loc []int, normalized bool, dst []float64) {
	d := s.Dim()
	off := 0
	if s.Intercept != 0 {
		off = 1
	}
	raw := q.X.RawMatrix()
	for r := range q.Labels {
		row := dst[r*d : (r+1)*d]
		if off == 1 {
			row[0] = s.Intercept
		}
		src := raw.Data[r*raw.Stride : r*raw.Stride+raw.Cols]
		for k, i := range loc {
			row[off+k] = src[i]
		}
		if normalized {
			Normalize(row)
		}
	}
}
