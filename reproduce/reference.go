package reproduce

import (
	"bytes"
	"embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"strconv"
	"strings"
)

// ReferenceFS holds the reference values (reference/*.csv).
//
//go:embed reference/*.csv
var ReferenceFS embed.FS

// RefRow is one reference value: the mean (and its standard error over
// N runs; NaN when not known) of the series selected by Series at round
// T.
type RefRow struct {
	Series []string
	T      int
	Mean   float64
	SE     float64
	N      int
	// Line is the row's line in the file.
	Line int
}

// RefFile is a parsed reference file.
type RefFile struct {
	Name string
	// Source is the SOURCE note: where the numbers come from.
	Source string
	Rows   []RefRow
}

// refHeader is the header row every reference file has.
var refHeader = []string{"series", "t", "mean", "se", "n"}

// ReadReference reads and validates reference/NAME from fsys: comment
// lines (#) first, one of them "# SOURCE: ..."; then the header
// series,t,mean,se,n; then at least one row. series is the substrings
// (separated by ';') that select one series; se may be empty (unknown).
// Any defect is an error naming the file and line.
func ReadReference(fsys fs.FS, name string) (*RefFile, error) {
	path := "reference/" + name
	raw, err := fs.ReadFile(fsys, path)
	if err != nil {
		return nil, fmt.Errorf("reference file %s: %w", path, err)
	}
	f := &RefFile{Name: path}
	lines := bytes.Split(raw, []byte("\n"))
	body := 0
	for body < len(lines) && bytes.HasPrefix(lines[body], []byte("#")) {
		text := strings.TrimSpace(strings.TrimPrefix(string(lines[body]), "#"))
		if s, ok := strings.CutPrefix(text, "SOURCE:"); ok {
			f.Source = strings.TrimSpace(s)
		} else if f.Source != "" && text != "" {
			f.Source += " " + text
		}
		body++
	}
	if f.Source == "" {
		return nil, fmt.Errorf("reference file %s: no \"# SOURCE: ...\" note before the header", path)
	}
	r := csv.NewReader(bytes.NewReader(bytes.Join(lines[body:], []byte("\n"))))
	r.FieldsPerRecord = len(refHeader)
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("reference file %s: line %d: header: %w", path, body+1, err)
	}
	if strings.Join(head, ",") != strings.Join(refHeader, ",") {
		return nil, fmt.Errorf("reference file %s: line %d: header %q, want %q", path, body+1, strings.Join(head, ","), strings.Join(refHeader, ","))
	}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := r.FieldPos(0)
		line += body
		if err != nil {
			return nil, fmt.Errorf("reference file %s: %w", path, err)
		}
		row := RefRow{Line: line, SE: math.NaN()}
		for _, s := range strings.Split(rec[0], ";") {
			if s = strings.TrimSpace(s); s != "" {
				row.Series = append(row.Series, s)
			}
		}
		if len(row.Series) == 0 {
			return nil, fmt.Errorf("reference file %s: line %d: empty series", path, line)
		}
		if row.T, err = strconv.Atoi(rec[1]); err != nil || row.T < 1 {
			return nil, fmt.Errorf("reference file %s: line %d: t %q: want a round >= 1", path, line, rec[1])
		}
		if row.Mean, err = strconv.ParseFloat(rec[2], 64); err != nil || math.IsNaN(row.Mean) || math.IsInf(row.Mean, 0) {
			return nil, fmt.Errorf("reference file %s: line %d: mean %q: want a finite number", path, line, rec[2])
		}
		if rec[3] != "" {
			if row.SE, err = strconv.ParseFloat(rec[3], 64); err != nil || !(row.SE >= 0) || math.IsInf(row.SE, 0) {
				return nil, fmt.Errorf("reference file %s: line %d: se %q: want a finite number >= 0, or nothing", path, line, rec[3])
			}
		}
		if row.N, err = strconv.Atoi(rec[4]); err != nil || row.N < 1 {
			return nil, fmt.Errorf("reference file %s: line %d: n %q: want a count >= 1", path, line, rec[4])
		}
		f.Rows = append(f.Rows, row)
	}
	if len(f.Rows) == 0 {
		return nil, fmt.Errorf("reference file %s: no rows", path)
	}
	return f, nil
}
