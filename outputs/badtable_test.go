package outputs

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// rewriteTable replaces a table of dir by edit's version of its one
// record batch and records the new bytes in tables.json, as a hand edit
// that also "fixed" the digest would.
func rewriteTable(t *testing.T, dir, name string, edit func(*arrow.Schema, []arrow.Array) (*arrow.Schema, []arrow.Array)) {
	t.Helper()
	p := filepath.Join(dir, name)
	r, err := ipc.NewFileReader(bytes.NewReader(mustRead(t, p)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.RecordBatch(0)
	if err != nil {
		t.Fatal(err)
	}
	schema, cols := edit(r.Schema(), b.Columns())
	var buf bytes.Buffer
	w, _ := ipc.NewFileWriter(&buf, ipc.WithSchema(schema))
	if err := w.Write(array.NewRecordBatch(schema, cols, b.NumRows())); err != nil {
		t.Fatal(err)
	}
	w.Close()
	r.Close()
	os.WriteFile(p, buf.Bytes(), 0o644)
	var tj tablesRecord
	json.Unmarshal(mustRead(t, filepath.Join(dir, TablesFile)), &tj)
	d := digestOf(name, buf.Bytes())
	if name == RunsFile {
		tj.Runs = d
	} else {
		tj.Curves = d
	}
	jb, _ := json.Marshal(tj)
	os.WriteFile(filepath.Join(dir, TablesFile), jb, 0o644)
}

// TestBadTablesRefused (issue 31, bad input): a results directory with a
// hand-edited or truncated table is refused, naming the file and, where
// one is at fault, the column; nothing is rewritten by reading. Cases: a
// truncated curves.arrow; runs.arrow edited without its digest; with the
// digest "fixed": a column renamed, a column's type changed, certified
// nulled; a per-run file's summary value edited (its checksum).
// Mutation control (run): without readRows' notNull check, "certified
// null" reads as false and fails here.
func TestBadTablesRefused(t *testing.T) {
	field := func(s *arrow.Schema, name string) int {
		i := s.FieldIndices(name)
		if len(i) != 1 {
			t.Fatalf("no column %s", name)
		}
		return i[0]
	}
	for _, tc := range []struct {
		name, file, want string
		spoil            func(t *testing.T, dir string)
	}{
		{"truncated curves.arrow", CurvesFile, "curves.arrow", func(t *testing.T, dir string) {
			p := filepath.Join(dir, CurvesFile)
			b := mustRead(t, p)
			os.WriteFile(p, b[:len(b)/2], 0o644)
		}},
		{"edited runs.arrow", RunsFile, "runs.arrow", func(t *testing.T, dir string) {
			p := filepath.Join(dir, RunsFile)
			b := mustRead(t, p)
			b[len(b)/2] ^= 1
			os.WriteFile(p, b, 0o644)
		}},
		{"renamed column", RunsFile, "group_label", func(t *testing.T, dir string) {
			rewriteTable(t, dir, RunsFile, func(s *arrow.Schema, cols []arrow.Array) (*arrow.Schema, []arrow.Array) {
				fs := s.Fields()
				fs[field(s, "group_label")].Name = "group"
				md := s.Metadata()
				return arrow.NewSchema(fs, &md), cols
			})
		}},
		{"seed as float", RunsFile, "column seed", func(t *testing.T, dir string) {
			rewriteTable(t, dir, RunsFile, func(s *arrow.Schema, cols []arrow.Array) (*arrow.Schema, []arrow.Array) {
				i := field(s, "seed")
				fs := s.Fields()
				fs[i].Type = arrow.PrimitiveTypes.Float64
				fb := array.NewFloat64Builder(memory.DefaultAllocator)
				for k := 0; k < cols[i].Len(); k++ {
					fb.Append(float64(cols[i].(*array.Int64).Value(k)))
				}
				cols[i] = fb.NewArray()
				md := s.Metadata()
				return arrow.NewSchema(fs, &md), cols
			})
		}},
		{"certified null", RunsFile, "column certified", func(t *testing.T, dir string) {
			rewriteTable(t, dir, RunsFile, func(s *arrow.Schema, cols []arrow.Array) (*arrow.Schema, []arrow.Array) {
				i := field(s, "certified")
				bb := array.NewBooleanBuilder(memory.DefaultAllocator)
				for k := 0; k < cols[i].Len(); k++ {
					bb.AppendNull()
				}
				cols[i] = bb.NewArray()
				return s, cols
			})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := collectMixed(t)
			tc.spoil(t, dir)
			before := tableBytes(t, dir)
			_, _, err := ReadTables(dir)
			if err == nil || !strings.Contains(err.Error(), tc.file) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to name %s and %q", err, tc.file, tc.want)
			}
			if tc.file == CurvesFile || tc.name == "edited runs.arrow" {
				if !errors.Is(err, ErrTablesMismatch) {
					t.Errorf("err = %v, want a mismatch with tables.json", err)
				}
			}
			if got := tableBytes(t, dir); !bytes.Equal(bytes.Join(got, nil), bytes.Join(before, nil)) {
				t.Error("a refused read rewrote a table")
			}
		})
	}
	// A per-run file whose summary value was edited: refused by collect,
	// naming the file; the tables stay as they were.
	dir := collectMixed(t)
	before := tableBytes(t, dir)
	ents, _ := os.ReadDir(filepath.Join(dir, RunsDir))
	p := filepath.Join(dir, RunsDir, ents[0].Name())
	b := mustRead(t, p)
	i := bytes.LastIndex(b, []byte("mixed-"))
	b[i] = 'M'
	os.WriteFile(p, b, 0o644)
	if _, err := Collect(dir); err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("collect over an edited run file: %v", err)
	}
	if !bytes.Equal(bytes.Join(tableBytes(t, dir), nil), bytes.Join(before, nil)) {
		t.Error("a refused collect rewrote a table")
	}
}
