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
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
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
	// Progress receives a progress bar (bytes, rows, ETA); nil: no bar.
	Progress io.Writer
	// Log receives plain progress lines every few seconds and a summary;
	// nil: silent. Use it instead of Progress when stderr is not a terminal.
	Log *slog.Logger
	// Workers is the number of parser goroutines; 0 means GOMAXPROCS.
	Workers int
	// RowGroupRows is the number of rows per Parquet row group; 0 means 65536.
	RowGroupRows int
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
			"features", m.Features, "skipped", m.Skipped.Count, "documents_sha256", m.DocumentsHash)
	}
	return m, nil
}

// commitDir moves the finished temp directory to out. An existing out is
// replaced only with force, only after the new one is complete, and only
// after checkOutput has accepted it (a dataset directory holding nothing
// but what the pipeline writes: the theta* and partition artifacts fitted
// to the old data go with it).
func commitDir(tmp, out string, force bool) error {
	if _, err := os.Stat(out); err == nil {
		if !force {
			return fmt.Errorf("%s already exists (use --force to replace it)", out)
		}
		old, err := os.MkdirTemp(filepath.Dir(out), "."+filepath.Base(out)+".old-")
		if err != nil {
			return err
		}
		if err := os.Remove(old); err != nil {
			return err
		}
		if err := os.Rename(out, old); err != nil {
			return fmt.Errorf("move old dataset aside: %w", err)
		}
		if err := os.Rename(tmp, out); err != nil {
			os.Rename(old, out)
			return fmt.Errorf("rename %s to %s: %w", tmp, out, err)
		}
		return os.RemoveAll(old)
	}
	if err := os.Rename(tmp, out); err != nil {
		return fmt.Errorf("rename %s to %s: %w", tmp, out, err)
	}
	syncDir(filepath.Dir(out))
	return nil
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// writeManifest writes dir/manifest.json.
func writeManifest(dir string, m *Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode manifest: %w", err)
	}
	b = append(b, '\n')
	return writeFileSync(filepath.Join(dir, ManifestFile), b)
}

func writeFileSync(p string, b []byte) error {
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
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
	// flat backs x (recycled with putFloats once copied).
	flat []float64
	// bad holds the lines skipped in lenient mode, in order.
	bad []*ParseError
	err *ParseError // strict mode: the first bad line
}

// parseConfig is what the workers need to parse a chunk.
type parseConfig struct {
	nfeat    int
	labelMax int
	cs       *commentSchema
	lenient  bool
	sources  []*source
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

// convert runs the read -> parse -> validate -> write pipeline into dir.
func convert(ctx context.Context, opts Options, res *resolved, dir string) (*Manifest, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var readBytes, rowsDone atomic.Int64
	var total int64
	for _, s := range res.sources {
		total += s.size
	}
	prog := startProgress(ctx, opts, total, &readBytes, &rowsDone)
	defer prog.stop()

	lr := newLineReader(res.sources, &readBytes)
	defer lr.close()

	// Read ahead to the first data line: it fixes the schema.
	var pending []*chunk
	var first []byte
	var firstSrc int
	var firstLine int64
	for first == nil {
		c, err := lr.next()
		if err == io.EOF {
			return nil, &ParseError{File: res.sources[0].name, Field: "file", Msg: "empty input: no data lines"}
		}
		if err != nil {
			return nil, err
		}
		pending = append(pending, c)
		if c.eos {
			continue
		}
		data, ln := c.data, c.firstLine
		for len(data) > 0 && first == nil {
			var line []byte
			if k := indexNL(data); k >= 0 {
				line, data = data[:k], data[k+1:]
			} else {
				line, data = data, nil
			}
			if !isBlank(line) {
				// In lenient mode the schema comes from the first line
				// that is well-formed; the workers still report (and
				// skip) the bad ones.
				if _, fe := countFeatures(line, math.MaxInt32); fe == nil || !opts.Lenient || opts.Features > 0 {
					first, firstSrc, firstLine = line, c.src, ln
				}
			}
			ln++
		}
	}
	format := res.format
	nfeat := opts.Features
	if nfeat == 0 {
		n, fe := countFeatures(first, math.MaxInt32)
		if fe != nil {
			return nil, fe.at(res.sources[firstSrc].name, firstLine)
		}
		nfeat = n
	}
	if format == "" {
		switch nfeat {
		case 136:
			format = FormatMSLR
		case 46:
			format = FormatLETOR4
		default:
			format = FormatSVMlight
		}
	}
	labelMax := opts.LabelMax
	if labelMax == 0 {
		labelMax = 4
		if format == FormatLETOR4 {
			labelMax = 2
		}
	}
	_, comment := splitComment(trimLine(first))
	cs := detectCommentSchema(comment)
	pcfg := &parseConfig{nfeat: nfeat, labelMax: labelMax, cs: &cs, lenient: opts.Lenient, sources: res.sources}

	rgRows := opts.RowGroupRows
	if rgRows <= 0 {
		rgRows = defaultRowGroupRows
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}

	// Reader goroutine -> order queue + work queue -> workers.
	order := make(chan *chunk, 2*workers+2)
	work := make(chan *chunk, workers)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	send := func(c *chunk) bool {
		select {
		case order <- c:
		case <-ctx.Done():
			return false
		}
		if c.data != nil {
			select {
			case work <- c:
			case <-ctx.Done():
				return false
			}
		}
		return true
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(order)
		defer close(work)
		for _, c := range pending {
			if c.data != nil {
				c.res = make(chan *parsedChunk, 1)
			}
			if !send(c) {
				return
			}
		}
		for {
			c, err := lr.next()
			if err == io.EOF {
				return
			}
			if err != nil {
				c = &chunk{err: err}
			} else if c.data != nil {
				c.res = make(chan *parsedChunk, 1)
			}
			if !send(c) || err != nil {
				return
			}
		}
	}()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range work {
				p := pcfg.parseChunk(c)
				putBytes(c.data)
				c.res <- p
			}
		}()
	}

	// Writer goroutine: feature statistics and Parquet encoding.
	f, err := os.OpenFile(filepath.Join(dir, DocumentsFile), os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	docHash := sha256.New()
	bw := bufio.NewWriterSize(io.MultiWriter(f, docHash), 1<<20)
	var partNames []string
	pw, err := newColumnWriter(bw, nfeat, &cs, &partNames, rgRows)
	if err != nil {
		return nil, err
	}
	fstats := newFeatureAcc(nfeat)
	rgCh := make(chan *rowGroup, 1)
	free := make(chan *rowGroup, 3)
	for i := 0; i < 3; i++ {
		free <- newRowGroup(nfeat, &cs, rgRows)
	}
	writeErr := make(chan error, 1)
	go func() {
		var werr error
		for rg := range rgCh {
			if werr == nil {
				fstats.add(rg)
				werr = pw.writeRowGroup(rg)
				if werr != nil {
					cancel()
				}
			}
			rg.reset()
			free <- rg
		}
		writeErr <- werr
	}()
	rgClosed := false
	var werr error
	closeRG := func() error {
		if !rgClosed {
			close(rgCh)
			rgClosed = true
			werr = <-writeErr
		}
		return werr
	}
	defer closeRG()
	// fail prefers the writer's error over the cancellation it caused.
	fail := func(err error) (*Manifest, error) {
		if errors.Is(err, context.Canceled) {
			if werr := closeRG(); werr != nil {
				return nil, werr
			}
		}
		return nil, err
	}

	// Consumer: in input order, check query grouping and assemble row groups.
	m := &Manifest{
		SchemaVersion:  SchemaVersion,
		Features:       nfeat,
		Format:         format,
		LabelMax:       labelMax,
		LabelHistogram: make([]int64, labelMax+1),
		Lenient:        opts.Lenient,
		RowGroupRows:   rgRows,
		Writer:         writerName,
		Skipped:        SkippedLines{Examples: []string{}},
	}
	for k, name := range cs.columns() {
		t := "string"
		if cs.isNumeric(k) {
			t = "double"
		}
		m.CommentColumns = append(m.CommentColumns, CommentColumn{Name: name, Type: t})
	}
	if m.CommentColumns == nil {
		m.CommentColumns = []CommentColumn{}
	}
	srcStats := make([]Source, len(res.sources))
	partIdx := map[string]int{}
	srcPart := make([]int32, len(res.sources))
	for i, s := range res.sources {
		srcStats[i] = Source{Input: s.input, File: s.file, Part: s.part}
		if _, ok := partIdx[s.part]; !ok {
			partIdx[s.part] = len(partNames)
			partNames = append(partNames, s.part)
			m.Parts = append(m.Parts, PartStats{Name: s.part})
		}
		srcPart[i] = int32(partIdx[s.part])
	}

	type seenAt struct {
		src  int
		line int64
	}
	seen := map[int64]seenAt{}
	var (
		curRG     = <-free
		inQuery   bool
		curQID    int64
		curSrc    = -1
		doc       int32
		docs      []int // documents per query
		keepDoc   []int32
		skipped   []bool
		rowsTotal int
	)
	endQuery := func() {
		if inQuery {
			docs = append(docs, int(doc))
		}
	}
	appendRun := func(p *parsedChunk, src, lo, hi int) error {
		for lo < hi {
			room := rgRows - curRG.n
			n := min(room, hi-lo)
			curRG.append(p, srcPart[src], keepDoc, lo, lo+n)
			lo += n
			if curRG.n == rgRows {
				select {
				case rgCh <- curRG:
				case <-ctx.Done():
					return ctx.Err()
				}
				select {
				case curRG = <-free:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
		}
		return nil
	}
	for c := range order {
		if c.err != nil {
			return nil, c.err
		}
		if c.eos {
			st := &srcStats[c.src]
			st.Bytes, st.SHA256, st.Lines = c.bytes, c.sha256, c.lines
			if st.Rows == 0 && !opts.Lenient {
				return nil, &ParseError{File: res.sources[c.src].name, Line: 0, Field: "file", Msg: "empty input: no data lines"}
			}
			continue
		}
		var p *parsedChunk
		select {
		case p = <-c.res:
		case <-ctx.Done():
			return fail(ctx.Err())
		}
		if p.err != nil {
			return nil, p.err
		}
		for _, b := range p.bad {
			m.Skipped.Count++
			if len(m.Skipped.Examples) < maxSkippedExamples {
				m.Skipped.Examples = append(m.Skipped.Examples, b.Error())
			}
		}
		m.CommentsIgnored += p.commentsIgnored
		keepDoc = grow(keepDoc, p.rows)
		skipped = skipped[:0]
		anySkipped := false
		st := &srcStats[c.src]
		part := &m.Parts[srcPart[c.src]]
		for r := 0; r < p.rows; r++ {
			q := p.qid[r]
			if !inQuery || q != curQID || c.src != curSrc {
				if at, dup := seen[q]; dup {
					perr := &ParseError{
						File: res.sources[c.src].name, Line: p.line[r], Field: "qid",
						Token: "qid:" + strconv.FormatInt(q, 10),
						Msg:   fmt.Sprintf("qid reappears after other queries (first seen at %s:%d)", res.sources[at.src].name, at.line),
					}
					if !opts.Lenient {
						return nil, perr
					}
					m.Skipped.Count++
					if len(m.Skipped.Examples) < maxSkippedExamples {
						m.Skipped.Examples = append(m.Skipped.Examples, perr.Error())
					}
					if !anySkipped {
						skipped = append(skipped[:0], make([]bool, p.rows)...)
						anySkipped = true
					}
					skipped[r] = true
					continue
				}
				endQuery()
				seen[q] = seenAt{c.src, p.line[r]}
				inQuery, curQID, curSrc, doc = true, q, c.src, 0
				st.Queries++
				part.Queries++
			}
			keepDoc[r] = doc
			doc++
			m.LabelHistogram[p.label[r]]++
			st.Rows++
			part.Rows++
			rowsTotal++
		}
		lo := 0
		if anySkipped {
			for r := 0; r < p.rows; r++ {
				if skipped[r] {
					if err := appendRun(p, c.src, lo, r); err != nil {
						return fail(err)
					}
					lo = r + 1
				}
			}
		}
		if err := appendRun(p, c.src, lo, p.rows); err != nil {
			return fail(err)
		}
		putFloats(p.flat)
		rowsDone.Store(int64(rowsTotal))
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	endQuery()
	if rowsTotal == 0 {
		return nil, &ParseError{File: res.sources[0].name, Field: "file", Msg: "empty input: no valid data lines"}
	}
	if curRG.n > 0 {
		rgCh <- curRG
	}
	if err := closeRG(); err != nil {
		return nil, err
	}
	if err := pw.close(); err != nil {
		return nil, err
	}
	if err := bw.Flush(); err != nil {
		return nil, fmt.Errorf("write %s: %w", DocumentsFile, err)
	}
	if err := f.Sync(); err != nil {
		return nil, fmt.Errorf("write %s: %w", DocumentsFile, err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("write %s: %w", DocumentsFile, err)
	}

	m.Rows = rowsTotal
	m.Queries = len(docs)
	m.DocumentsHash = hex.EncodeToString(docHash.Sum(nil))
	m.Sources = srcStats
	m.FeatureStats = fstats.result(rowsTotal)
	m.DocsPerQuery = DocsPerQuery{Min: docs[0], Max: docs[0], Mean: float64(rowsTotal) / float64(len(docs))}
	for _, d := range docs {
		m.DocsPerQuery.Min = min(m.DocsPerQuery.Min, d)
		m.DocsPerQuery.Max = max(m.DocsPerQuery.Max, d)
	}
	return m, nil
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
	for i := lo; i < hi; i++ {
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
type featureAcc struct {
	min, max, sum []float64
	zeros         []int64
	seen          bool
}

func newFeatureAcc(n int) *featureAcc {
	return &featureAcc{min: make([]float64, n), max: make([]float64, n), sum: make([]float64, n), zeros: make([]int64, n)}
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
		s := 0.0
		var z int64
		for _, v := range col {
			if v < lo {
				lo = v
			}
			if v > hi {
				hi = v
			}
			s += v
			if v == 0 {
				z++
			}
		}
		a.min[j], a.max[j] = lo, hi
		a.sum[j] += s
		a.zeros[j] += z
	}
	a.seen = true
}

func (a *featureAcc) result(rows int) []FeatureStats {
	out := make([]FeatureStats, len(a.min))
	for j := range out {
		out[j] = FeatureStats{
			Index:        j + 1,
			Min:          a.min[j],
			Max:          a.max[j],
			Mean:         a.sum[j] / float64(rows),
			ZeroFraction: float64(a.zeros[j]) / float64(rows),
		}
	}
	return out
}
