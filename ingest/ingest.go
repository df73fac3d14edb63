// Package ingest converts learning-to-rank text in the LETOR / MSLR-WEB
// format ("<label> qid:<id> <i>:<v> ... [# comment]") into a validated,
// reproducible dataset directory:
//
//	DATASET_DIR/documents.parquet  one row per document, grouped by query in input order
//	DATASET_DIR/manifest.json      sources with sha256, counts, label histogram, feature statistics
//
// Run does the conversion (plain, .gz, MSLR / LETOR 4.0 directory layouts and
// the original MSLR-WEB zip archives); Load reads chosen feature columns back
// into per-query matrices; Synth writes MSLR-WEB10K-shaped text for scale
// tests. The Parquet schema and the manifest fields are documented in
// datasets.md at the repository root.
package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/fedbandit/fedbandit/internal/atomicfile"
)

// Options configures Run.
type Options struct {
	// Inputs are files (plain or gzip), directories in the MSLR-WEB
	// (Fold1..5/{train,vali,test}.txt) or LETOR 4.0 (S1..S5.txt, Fold*/)
	// layout, or the original MSLR-WEB10K.zip / MSLR-WEB30K.zip. They are
	// read in the order given.
	Inputs []string
	// Out is the dataset directory to create.
	Out string
	// Force replaces an existing Out (atomically, once the new dataset is complete).
	Force bool
	// Lenient skips bad lines instead of failing; their count and the first
	// examples are recorded in the manifest.
	Lenient bool
	// Fold selects the fold of a directory or zip layout ("Fold1".."Fold5").
	// Default: MSLR-WEB reads Fold1; LETOR 4.0 reads the partitions S1..S5.
	Fold string
	// Parts selects the files of the layout: train, vali, test for a fold
	// (default all three), or S1..S5 for LETOR 4.0 without Fold (default
	// all five). The defaults read every query exactly once.
	Parts []string
	// LabelMax is the largest allowed label. 0 means automatic: 4 for
	// MSLR-WEB (and any 136-feature input), 2 for LETOR 4.0 (and any
	// 46-feature input), 4 otherwise.
	LabelMax int
	// Features fixes the number of feature columns N. 0 means the largest
	// feature index on the first data line.
	Features int
	// AllowRagged accepts MSLR-WEB / LETOR 4.0 lines with fewer features
	// than the format's count (zero-filled); they are counted in the
	// manifest's ragged_rows. Without it such a line is an error.
	AllowRagged bool
	// Progress receives a progress bar (bytes, rows, ETA); nil: no bar.
	Progress io.Writer
	// Log receives plain progress lines every few seconds and a summary;
	// nil: silent. Use it instead of Progress when stderr is not a terminal.
	Log *slog.Logger
	// Workers is the number of parser goroutines; 0 means GOMAXPROCS.
	Workers int
	// RowGroupRows is the number of rows per Parquet row group; 0 means 65536.
	RowGroupRows int
	// LabelColumn, QIDColumn and FeatureColumns name the columns of a
	// Parquet input (parquetin.go) where the defaults do not find them:
	// "label", "qid", and f1..fN or the one list column. FeatureColumns is
	// one list column or scalar columns in order. They apply to Parquet
	// inputs only.
	LabelColumn    string
	QIDColumn      string
	FeatureColumns []string
}

// Run reads the inputs, validates every line and writes the dataset
// directory opts.Out atomically: the directory appears complete or not at
// all. It returns the manifest written.
func Run(ctx context.Context, opts Options) (*Manifest, error) {
	if opts.Out == "" {
		return nil, errors.New("ingest: no output directory given")
	}
	out := filepath.Clean(opts.Out)
	cleanLeftovers(out)
	if err := checkOutput(out, opts.Inputs, opts.Force); err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	res, err := resolveInputs(opts)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	defer res.close()
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	tmp, err := makeTemp(out)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			os.RemoveAll(tmp)
		}
	}()
	m, err := convert(ctx, opts, res, tmp)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	if err := writeManifest(tmp, m); err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	if err := os.Remove(filepath.Join(tmp, ownerFile)); err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	// The output is checked again right before the swap: it may have
	// changed during the conversion.
	if err := checkOutput(out, opts.Inputs, opts.Force); err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	if err := commitDir(tmp, out, opts.Force); err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	committed = true
	if opts.Log != nil {
		opts.Log.Info("ingest done", "out", out, "rows", m.Rows, "queries", m.Queries,
			"features", m.Features, "skipped", m.Skipped.Count, "data_sha256", m.DataHash)
	}
	return m, nil
}

// commitDir moves the finished temp directory to out. An existing out is
// replaced only with force, only after the new one is complete, and only
// after checkOutput has accepted it (a dataset directory holding nothing
// but what the pipeline writes: the theta* and partition artifacts fitted
// to the old data go with it).
//
// The steps are ordered for a crash at any point: the temp directory is
// fsynced (its files' entries, and the owner file's removal) before it is
// renamed to out; the parent is fsynced after the rename; a replaced
// dataset, first moved aside, is deleted only once the swap is durable,
// so that a crash leaves the old dataset or the new one, whole.
func commitDir(tmp, out string, force bool) error {
	if err := disk.SyncDir(tmp); err != nil {
		return err
	}
	if isEmptyDir(out) { // e.g. made by mkdir: taken as missing
		if err := os.Remove(out); err != nil {
			return err
		}
	}
	parent := filepath.Dir(out)
	if _, err := os.Stat(out); err == nil {
		if !force {
			return fmt.Errorf("%s already exists (use --force to replace it)", out)
		}
		old, err := os.MkdirTemp(parent, "."+filepath.Base(out)+".old-")
		if err != nil {
			return err
		}
		if err := os.Remove(old); err != nil {
			return err
		}
		if err := disk.Rename(out, old); err != nil {
			return fmt.Errorf("move old dataset aside: %w", err)
		}
		if err := disk.Rename(tmp, out); err != nil {
			disk.Rename(old, out)
			return fmt.Errorf("rename %s to %s: %w", tmp, out, err)
		}
		if err := disk.SyncDir(parent); err != nil {
			return err
		}
		return disk.RemoveAll(old)
	}
	if err := disk.Rename(tmp, out); err != nil {
		return fmt.Errorf("rename %s to %s: %w", tmp, out, err)
	}
	return disk.SyncDir(parent)
}

// fileSystem is what Run does to the disk to write documents.parquet and
// publish the dataset directory: the operating system in production; a
// test substitutes a recorder to check the order of the steps and what a
// failing step leaves behind. (manifest.json goes through atomicfile,
// whose own recorder checks its steps.)
type fileSystem interface {
	Create(path string) (dataFile, error) // a new file, never an existing one
	Rename(oldpath, newpath string) error
	SyncDir(dir string) error
	RemoveAll(path string) error
}

// dataFile is the part of *os.File that writing documents.parquet uses.
type dataFile interface {
	io.Writer
	Sync() error
	Close() error
}

// osDisk is the real file system.
type osDisk struct{}

func (osDisk) Create(path string) (dataFile, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	return f, nil
}
func (osDisk) Rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }
func (osDisk) SyncDir(dir string) error             { return atomicfile.SyncDir(dir) }
func (osDisk) RemoveAll(path string) error          { return os.RemoveAll(path) }

// disk is the file system Run and commitDir use.
var disk fileSystem = osDisk{}

// writeManifest publishes dir/manifest.json (written, fsynced, renamed).
func writeManifest(dir string, m *Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode manifest: %w", err)
	}
	b = append(b, '\n')
	return atomicfile.WriteFile(filepath.Join(dir, ManifestFile), b)
}

// parsedChunk is a chunk parsed into columns.
type parsedChunk struct {
	rows  int
	qid   []int64
	label []int32
	line  []int64     // line number of each row
	x     [][]float64 // x[j][r]: feature j+1 of row r
	cstr  [][]string
	cnum  [][]float64
	// commentsIgnored counts comments dropped (schema without comment columns).
	commentsIgnored int64
	// flat backs x (recycled with putFloats once copied; nil for Parquet
	// input).
	flat []float64
	// part, for a Parquet input with a part column, is each row's index
	// into partNames (a snapshot of the reader's append-only name table);
	// nil otherwise (the part is the source's).
	part      []int32
	partNames []string
	// bad holds the lines skipped in lenient mode, in order.
	bad []*ParseError
	// ragged holds the short lines accepted under AllowRagged, in order.
	ragged []*ParseError
	err    *ParseError // strict mode: the first bad line
}

// parseConfig is what the workers need to parse a chunk.
type parseConfig struct {
	nfeat    int
	labelMax int
	// labelHint follows an out-of-range label's message when labelMax
	// was not given: where the range came from.
	labelHint string
	cs        *commentSchema
	lenient   bool
	rows      rowRule
	sources   []*source
}

// parseChunk parses every line of c.
func (pc *parseConfig) parseChunk(c *chunk) *parsedChunk {
	est := countNL(c.data) + 1
	p := &parsedChunk{
		qid:   make([]int64, 0, est),
		label: make([]int32, 0, est),
		line:  make([]int64, 0, est),
		x:     make([][]float64, pc.nfeat),
	}
	flat := getFloats(pc.nfeat * est)
	p.flat = flat
	for j := range p.x {
		p.x[j] = flat[j*est : (j+1)*est]
	}
	ncc := len(pc.cs.columns())
	p.cstr = make([][]string, ncc)
	p.cnum = make([][]float64, ncc)
	for k := 0; k < ncc; k++ {
		if pc.cs.isNumeric(k) {
			p.cnum[k] = make([]float64, 0, est)
		} else {
			p.cstr[k] = make([]string, 0, est)
		}
	}
	cv := commentValues{strs: make([]string, ncc), nums: make([]float64, ncc)}
	var scratch []commentKV
	row := make([]float64, pc.nfeat)
	data := c.data
	lineNo := c.firstLine
	name := pc.sources[c.src].name
	for len(data) > 0 {
		var line []byte
		unterminated := false
		if k := indexNL(data); k >= 0 {
			line, data = data[:k], data[k+1:]
		} else {
			line, data, unterminated = data, nil, true
		}
		ln := lineNo
		lineNo++
		if isBlank(line) {
			continue
		}
		pl, fe := parseLine(line, row, pc.labelMax)
		if fe == nil && unterminated && pl.comment == nil && pl.last < pc.nfeat {
			// The file ends inside this line: a cut download or copy. Its
			// missing features would silently become 0.
			fe = ferr(featureField(pl.last), nil, "the file ends inside this line (no final newline, features up to %d of %d): it looks truncated", pl.last, pc.nfeat)
		}
		if fe == nil {
			var ragged bool
			if fe, ragged = pc.rows.check(pl, pc.nfeat); ragged {
				p.ragged = append(p.ragged, ferr("features", nil, "%d of %d features", pl.given, pc.nfeat).at(name, ln))
			}
		}
		if fe == nil && pl.comment != nil {
			if ncc == 0 {
				p.commentsIgnored++
			} else {
				scratch, fe = pc.cs.parseComment(pl.comment, &cv, scratch)
			}
		} else if fe == nil && ncc > 0 && !pc.cs.raw {
			fe = ferr("comment", nil, "missing comment (the first line has %v)", pc.cs.keys)
		} else if fe == nil && pc.cs.raw {
			cv.strs[0] = ""
		}
		if fe != nil {
			if fe.field == "label" && strings.HasPrefix(fe.msg, "label out of range") {
				fe.msg += pc.labelHint
			}
			perr := fe.at(name, ln)
			if !pc.lenient {
				p.err = perr
				return p
			}
			p.bad = append(p.bad, perr)
			continue
		}
		r := p.rows
		for j, v := range row {
			p.x[j][r] = v
		}
		p.qid = append(p.qid, pl.qid)
		p.label = append(p.label, pl.label)
		p.line = append(p.line, ln)
		for k := 0; k < ncc; k++ {
			if p.cnum[k] != nil {
				p.cnum[k] = append(p.cnum[k], cv.nums[k])
			} else {
				p.cstr[k] = append(p.cstr[k], cv.strs[k])
			}
		}
		p.rows++
	}
	for j := range p.x {
		p.x[j] = p.x[j][:p.rows]
	}
	return p
}

// grow returns s with length n, reusing its storage when possible.
func grow[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}

// append copies rows lo..hi of p into the row group.
func (rg *rowGroup) append(p *parsedChunk, part int32, doc []int32, lo, hi int) {
	rg.qid = append(rg.qid, p.qid[lo:hi]...)
	rg.doc = append(rg.doc, doc[lo:hi]...)
	rg.label = append(rg.label, p.label[lo:hi]...)
	if p.part != nil {
		rg.part = append(rg.part, p.part[lo:hi]...)
	}
	for i := lo; i < hi && p.part == nil; i++ {
		rg.part = append(rg.part, part)
	}
	for j := range rg.x {
		rg.x[j] = append(rg.x[j], p.x[j][lo:hi]...)
	}
	for k := range rg.cstr {
		if rg.cnum[k] != nil {
			rg.cnum[k] = append(rg.cnum[k], p.cnum[k][lo:hi]...)
		} else {
			rg.cstr[k] = append(rg.cstr[k], p.cstr[k][lo:hi]...)
		}
	}
	rg.n += hi - lo
}

// reset empties the row group, keeping its storage.
func (rg *rowGroup) reset() {
	rg.n = 0
	rg.qid, rg.doc, rg.label, rg.part = rg.qid[:0], rg.doc[:0], rg.label[:0], rg.part[:0]
	for j := range rg.x {
		rg.x[j] = rg.x[j][:0]
	}
	for k := range rg.cstr {
		if rg.cnum[k] != nil {
			rg.cnum[k] = rg.cnum[k][:0]
		} else {
			clear(rg.cstr[k])
			rg.cstr[k] = rg.cstr[k][:0]
		}
	}
}

// featureAcc accumulates per-feature statistics in row order.
// Besides the plain sum it keeps the sum of the values scaled by 2^-64
// (exact but for subnormals), whose mean stands in when the plain sum
// overflows (features near MaxFloat64: R4-15).
type featureAcc struct {
	min, max, sum, scaled []float64
	zeros                 []int64
	seen                  bool
}

func newFeatureAcc(n int) *featureAcc {
	return &featureAcc{min: make([]float64, n), max: make([]float64, n), sum: make([]float64, n), scaled: make([]float64, n), zeros: make([]int64, n)}
}

func (a *featureAcc) add(rg *rowGroup) {
	if rg.n == 0 {
		return
	}
	for j, col := range rg.x {
		lo, hi := col[0], col[0]
		if a.seen {
			lo, hi = a.min[j], a.max[j]
		}
		s, sc := 0.0, 0.0
		var z int64
		for _, v := range col {
			if v < lo {
				lo = v
			}
			if v > hi {
				hi = v
			}
			s += v
			sc += float64(v * 0x1p-64)
			if v == 0 {
				z++
			}
		}
		a.min[j], a.max[j] = lo, hi
		a.sum[j] += s
		a.scaled[j] += sc
		a.zeros[j] += z
	}
	a.seen = true
}

func (a *featureAcc) result(rows int) []FeatureStats {
	out := make([]FeatureStats, len(a.min))
	for j := range out {
		mean := a.sum[j] / float64(rows)
		if math.IsInf(a.sum[j], 0) || math.IsNaN(a.sum[j]) {
			mean = float64(a.scaled[j]/float64(rows)) * 0x1p64
		}
		out[j] = FeatureStats{
			Index:        j + 1,
			Min:          a.min[j],
			Max:          a.max[j],
			Mean:         mean,
			ZeroFraction: float64(a.zeros[j]) / float64(rows),
		}
	}
	return out
}
