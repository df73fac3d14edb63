// Package golden reads the golden tables that tests compare against: CSV
// files computed outside this code (each with its script beside it), a
// header line first, then one case a row.
package golden

import (
	"encoding/csv"
	"os"
	"strconv"
	"testing"
)

// Rows returns the rows of the CSV table at path without its header. A
// missing, unreadable or empty table fails the test.
func Rows(t testing.TB, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(rows) < 2 {
		t.Fatalf("%s: no rows", path)
	}
	return rows[1:]
}

// Floats returns the rows of the all-numeric CSV table at path without its
// header, each field parsed as a float64; a field that does not parse
// fails the test, naming the row.
func Floats(t testing.TB, path string) [][]float64 {
	t.Helper()
	rows := Rows(t, path)
	out := make([][]float64, len(rows))
	for r, row := range rows {
		out[r] = make([]float64, len(row))
		for i := range row {
			out[r][i] = Num(t, row, i)
		}
	}
	return out
}

// Num parses field i of a golden row as a float64, failing the test
// (naming the row and field) when it does not parse.
func Num(t testing.TB, row []string, i int) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(row[i], 64)
	if err != nil {
		t.Fatalf("row %v, field %d: %v", row, i, err)
	}
	return v
}
