package lasso

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// TestCVTrainingExcludesHeldOut: in cross-validation, fold f's training
// statistics (MergeAll(folds, f), what CrossValidate fits on) summarise
// exactly the queries outside fold f: their row count, column means and
// co-moments equal those computed straight from those rows. Every query
// sits in exactly one fold. A training set that leaks its held-out fold
// (MergeAll ignoring skip) or drops a fold fails here, whatever the
// regularisation path then does.
func TestCVTrainingExcludesHeldOut(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const d, nq, k = 3, 40, 5
	m := &Matrix{D: d}
	for q := 0; q < nq; q++ {
		n := 1 + r.IntN(9)
		x := make([]float64, n*d)
		y := make([]float64, n)
		for i := range x {
			x[i] = r.NormFloat64() + float64(q%7)
		}
		for i := range y {
			y[i] = 10*float64(q) + r.NormFloat64()
		}
		m.X, m.Y = append(m.X, x), append(m.Y, y)
	}
	sizes := make([]int, nq)
	for q := range sizes {
		sizes[q] = m.Rows(q)
	}
	fold, err := GroupFolds(sizes, k)
	if err != nil {
		t.Fatal(err)
	}
	folds, err := ComputeMoments(context.Background(), m, fold, k, 2)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, f := range folds {
		total += f.N
	}
	if total != sumInts(sizes) {
		t.Fatalf("folds hold %d rows, the data %d", total, sumInts(sizes))
	}
	p := d + 1
	for f := 0; f < k; f++ {
		train := MergeAll(folds, f)
		// Straight from the rows outside fold f.
		var rows [][]float64
		for q := 0; q < nq; q++ {
			if fold[q] == f {
				continue
			}
			for i := range m.Y[q] {
				row := append(append([]float64(nil), m.X[q][i*d:(i+1)*d]...), m.Y[q][i])
				rows = append(rows, row)
			}
		}
		if train.N != len(rows) {
			t.Fatalf("fold %d: training has %d rows, the other folds %d", f, train.N, len(rows))
		}
		mean := make([]float64, p)
		for _, row := range rows {
			for j, v := range row {
				mean[j] += v / float64(len(rows))
			}
		}
		for j := range p {
			if math.Abs(train.Mean[j]-mean[j]) > 1e-9*(1+math.Abs(mean[j])) {
				t.Errorf("fold %d: training mean[%d] = %v, rows outside the fold give %v", f, j, train.Mean[j], mean[j])
			}
			for l := range p {
				var c float64
				for _, row := range rows {
					c += (row[j] - mean[j]) * (row[l] - mean[l])
				}
				if math.Abs(train.C[j*p+l]-c) > 1e-8*(1+math.Abs(c)) {
					t.Errorf("fold %d: training co-moment [%d,%d] = %v, want %v", f, j, l, train.C[j*p+l], c)
				}
			}
		}
	}
}

func sumInts(v []int) int {
	s := 0
	for _, x := range v {
		s += x
	}
	return s
}
