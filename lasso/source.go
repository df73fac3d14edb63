package lasso

import "fmt"

// Matrix is an in-memory Source: for each query, its rows (row-major,
// D features per row) and targets.
type Matrix struct {
	D int
	X [][]float64 // X[q] has len(Y[q]) * D values
	Y [][]float64
}

// Dim implements Source.
func (m *Matrix) Dim() int { return m.D }

// Len implements Source.
func (m *Matrix) Len() int { return len(m.Y) }

// Rows implements Source.
func (m *Matrix) Rows(q int) int { return len(m.Y[q]) }

// Fill implements Source.
func (m *Matrix) Fill(q int, dst []float64) {
	p := m.D + 1
	for r, y := range m.Y[q] {
		copy(dst[r*p:r*p+m.D], m.X[q][r*m.D:(r+1)*m.D])
		dst[r*p+m.D] = y
	}
}

// Validate checks that every query's X has len(Y[q]) * D values.
func (m *Matrix) Validate() error {
	if len(m.X) != len(m.Y) {
		return fmt.Errorf("lasso: %d feature blocks for %d target blocks", len(m.X), len(m.Y))
	}
	for q := range m.Y {
		if len(m.X[q]) != len(m.Y[q])*m.D {
			return fmt.Errorf("lasso: query %d: %d feature values for %d rows of %d features", q, len(m.X[q]), len(m.Y[q]), m.D)
		}
	}
	return nil
}
