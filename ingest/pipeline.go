package ingest

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/parquet-go/parquet-go"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
)

// pipeline converts the inputs of one Run into documents.parquet and its
// manifest, in four concurrent stages, one method each:
//
//	read      one goroutine: cuts the sources into chunks of whole lines and
//	          sends each to order (input order) and, when it has data, to work
//	parse     Workers goroutines: parse the chunks from work into columns;
//	          the result goes to the chunk's own res channel
//	assemble  the caller's goroutine: takes the chunks from order, waits for
//	          their parse, checks that every query is one run of lines,
//	          counts for the manifest and fills row groups, sent to full
//	write     one goroutine: feature statistics and the Parquet encoding of
//	          each row group from full, which it then hands back on free
//
// The row groups circulate: three exist, so the assembler fills one while
// the writer encodes another. An error in any stage cancels ctx, which
// stops the others; run returns the first cause, not the cancellation.
type pipeline struct {
	ctx    context.Context
	cancel context.CancelFunc

	opts    Options
	sources []*source
	cfg     *parseConfig
	format  string
	rgRows  int
	workers int

	lr                  chunkReader
	pending             []*chunk // read ahead by newPipeline to find the schema
	readBytes, rowsDone atomic.Int64
	prog                *progress

	order chan *chunk    // read -> assemble, every chunk in input order
	work  chan *chunk    // read -> parse, the chunks with data
	full  chan *rowGroup // assemble -> write
	free  chan *rowGroup // write -> assemble

	// partNames are the parts in input order (rowGroup.part indexes them);
	// srcPart[i] is the index of source i's part.
	partNames []string
	srcPart   []int32

	// newWriter starts documents.parquet on w (newColumnWriter; tests
	// substitute a failing writer).
	newWriter func(w io.Writer, nfeat int, cs *commentSchema, rowGroupRows int) (docsWriter, error)
}

// chunkReader is the read stage's source of chunks: lineReader for text,
// parquetReader for Parquet.
type chunkReader interface {
	next() (*chunk, error)
	close()
}

// rowGroupsInFlight is the number of row groups circulating between the
// assemble and write stages.
const rowGroupsInFlight = 3

// convert runs the read -> parse -> assemble -> write pipeline into dir.
func convert(ctx context.Context, opts Options, res *resolved, dir string) (*Manifest, error) {
	p, err := newPipeline(ctx, opts, res)
	if err != nil {
		return nil, err
	}
	defer p.stop()
	return p.run(dir)
}

// newPipeline opens the sources and reads ahead to the first data line,
// which fixes the schema: the number of features (unless opts.Features
// does), the format, the largest label and the comment columns.
func newPipeline(ctx context.Context, opts Options, res *resolved) (*pipeline, error) {
	ctx, cancel := context.WithCancel(ctx)
	p := &pipeline{ctx: ctx, cancel: cancel, opts: opts, sources: res.sources, newWriter: newDocsWriter}
	var total int64
	for _, s := range res.sources {
		total += s.size
	}
	p.prog = startProgress(ctx, opts, total, &p.readBytes, &p.rowsDone)
	if res.parquet {
		if err := p.setupParquet(res); err != nil {
			p.stop()
			return nil, err
		}
		return p, nil
	}
	lr := newLineReader(res.sources, &p.readBytes)
	p.lr = lr
	first, firstSrc, firstLine, err := p.readToFirstLine()
	if err != nil {
		p.stop()
		return nil, err
	}
	nfeat := opts.Features
	if nfeat == 0 {
		n, fe := countFeatures(first, math.MaxInt32)
		if fe != nil {
			p.stop()
			return nil, fe.at(res.sources[firstSrc].name, firstLine)
		}
		nfeat = n
	}
	_, comment := splitComment(trimLine(first))
	cs := detectCommentSchema(comment)
	if err := p.setup(res, nfeat, cs); err != nil {
		p.stop()
		return nil, err
	}
	return p, nil
}

// maxColumns is the most columns a Parquet file written by parquet-go
// holds (column indices are int16); documents.parquet has four besides
// the features and the comment columns.
const maxColumns = parquet.MaxColumnIndex + 1

// MaxFeatures is the most features a dataset without comment columns has:
// documents.parquet's qid, doc, label and part take four of its
// maxColumns columns.
const MaxFeatures = maxColumns - 4

// checkWidth refuses a schema documents.parquet cannot hold: more than
// maxColumns columns in all.
func checkWidth(file string, nfeat int, cs *commentSchema) error {
	nc := len(cs.columns())
	if 4+nfeat+nc <= maxColumns {
		return nil
	}
	return fmt.Errorf("%s: %d features and %d comment columns: documents.parquet holds at most %d columns (qid, doc, label, part, the features and the comment columns), so at most %d features here; reduce the features (or the extra columns) before ingesting", file, nfeat, nc, maxColumns, maxColumns-4-nc)
}

// setup fixes the schema (nfeat features, comment columns cs), the format
// and the largest label, and makes the stages' channels. It refuses a
// schema wider than documents.parquet can hold.
func (p *pipeline) setup(res *resolved, nfeat int, cs commentSchema) error {
	if err := checkWidth(res.sources[0].name, nfeat, &cs); err != nil {
		return err
	}
	opts := p.opts
	p.format = res.format
	if p.format == "" {
		switch nfeat {
		case 136:
			p.format = FormatMSLR
		case 46:
			p.format = FormatLETOR4
		default:
			p.format = FormatSVMlight
		}
	}
	labelMax, labelHint := opts.LabelMax, ""
	if labelMax == 0 {
		labelMax = 4
		labelHint = " (the default range; --label-max N for another)"
		if p.format == FormatLETOR4 {
			labelMax = 2
			labelHint = " (LETOR 4.0's range; --label-max N for another)"
			if res.format == "" {
				labelHint = " (LETOR 4.0's range, guessed from the 46 features; --label-max N for another)"
			}
		}
	}
	p.cfg = &parseConfig{nfeat: nfeat, labelMax: labelMax, labelHint: labelHint, cs: &cs, lenient: opts.Lenient, rows: newRowRule(p.format, opts.AllowRagged), sources: res.sources}

	p.rgRows = opts.RowGroupRows
	if p.rgRows <= 0 {
		p.rgRows = defaultRowGroupRows
	}
	p.workers = opts.Workers
	if p.workers <= 0 {
		p.workers = runtime.GOMAXPROCS(0)
	}
	p.order = make(chan *chunk, 2*p.workers+2)
	p.work = make(chan *chunk, p.workers)
	p.full = make(chan *rowGroup, 1)
	p.free = make(chan *rowGroup, rowGroupsInFlight)

	partIdx := map[string]int{}
	p.srcPart = make([]int32, len(res.sources))
	for i, s := range res.sources {
		if _, ok := partIdx[s.part]; !ok {
			partIdx[s.part] = len(p.partNames)
			p.partNames = append(p.partNames, s.part)
		}
		p.srcPart[i] = int32(partIdx[s.part])
	}
	return nil
}

// readToFirstLine reads chunks into p.pending up to the first data line
// and returns that line with its source and line number. In lenient mode
// (without opts.Features) it is the first well-formed line; the parse
// stage still reports, and skips, the bad ones before it.
func (p *pipeline) readToFirstLine() (line []byte, src int, lineNo int64, err error) {
	for {
		c, err := p.lr.next()
		if err == io.EOF {
			return nil, 0, 0, &ParseError{File: p.sources[0].name, Field: "file", Msg: "empty input: no data lines"}
		}
		if err != nil {
			return nil, 0, 0, err
		}
		p.pending = append(p.pending, c)
		if c.eos {
			continue
		}
		data, ln := c.data, c.firstLine
		for len(data) > 0 {
			var line []byte
			if k := indexNL(data); k >= 0 {
				line, data = data[:k], data[k+1:]
			} else {
				line, data = data, nil
			}
			if !isBlank(line) {
				if _, fe := countFeatures(line, math.MaxInt32); fe == nil || !p.opts.Lenient || p.opts.Features > 0 {
					return line, c.src, ln, nil
				}
			}
			ln++
		}
	}
}

// stop cancels the stages and releases the inputs; run's goroutines have
// ended by then.
func (p *pipeline) stop() {
	p.cancel()
	p.lr.close()
	p.prog.stop()
}

// run starts the stages, writes dir/documents.parquet and returns the
// manifest of the dataset.
func (p *pipeline) run(dir string) (*Manifest, error) {
	f, err := disk.Create(filepath.Join(dir, DocumentsFile))
	if err != nil {
		return nil, err
	}
	closed := false
	defer func() {
		if !closed {
			f.Close()
		}
	}()
	docHash := sha256.New()
	bw := bufio.NewWriterSize(io.MultiWriter(f, docHash), 1<<20)
	pw, err := p.newWriter(bw, p.cfg.nfeat, p.cfg.cs, p.rgRows)
	if err != nil {
		return nil, err
	}
	for range rowGroupsInFlight {
		p.free <- newRowGroup(p.cfg.nfeat, p.cfg.cs, p.rgRows)
	}

	var wg sync.WaitGroup
	wg.Go(p.read)
	for range p.workers {
		wg.Go(p.parse)
	}
	fstats := newFeatureAcc(p.cfg.nfeat)
	rows := newRowHasher(p.cfg.nfeat, p.cfg.cs)
	written := make(chan error, 1)
	go func() { written <- p.write(pw, fstats, rows) }()
	a, err := p.assemble()
	werr := <-written
	p.cancel()
	wg.Wait()
	// An assembler stopped by the writer's cancellation reports the
	// writer's error.
	if werr != nil && (err == nil || errors.Is(err, context.Canceled)) {
		return nil, werr
	}
	if err != nil {
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
	closed = true
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("write %s: %w", DocumentsFile, err)
	}
	m := a.m
	m.Rows = a.rows
	m.Queries = len(a.docs)
	m.FileHash = hex.EncodeToString(docHash.Sum(nil))
	m.DataHash = rows.sum()
	m.Sources = a.srcStats
	m.FeatureStats = fstats.result(a.rows)
	m.DocsPerQuery = DocsPerQuery{Min: a.docs[0], Max: a.docs[0], Mean: float64(a.rows) / float64(len(a.docs))}
	for _, d := range a.docs {
		m.DocsPerQuery.Min = min(m.DocsPerQuery.Min, d)
		m.DocsPerQuery.Max = max(m.DocsPerQuery.Max, d)
	}
	return m, nil
}

// newDocsWriter is newColumnWriter as a docsWriter.
func newDocsWriter(w io.Writer, nfeat int, cs *commentSchema, rowGroupRows int) (docsWriter, error) {
	return newColumnWriter(w, nfeat, cs, rowGroupRows)
}

// send hands c to the assembler and, when it has data, to a parser. It
// reports false when the pipeline was cancelled.
func (p *pipeline) send(c *chunk) bool {
	select {
	case p.order <- c:
	case <-p.ctx.Done():
		return false
	}
	if c.data != nil {
		select {
		case p.work <- c:
		case <-p.ctx.Done():
			return false
		}
	}
	return true
}

// read is the read stage: the chunks read ahead, then the rest of the
// sources. A read error goes to the assembler as a chunk and ends the stage.
func (p *pipeline) read() {
	defer close(p.order)
	defer close(p.work)
	for _, c := range p.pending {
		if c.data != nil {
			c.res = make(chan *parsedChunk, 1)
		}
		if !p.send(c) {
			return
		}
	}
	for {
		c, err := p.lr.next()
		if err == io.EOF {
			return
		}
		if err != nil {
			c = &chunk{err: err}
		} else if c.data != nil {
			c.res = make(chan *parsedChunk, 1)
		}
		if !p.send(c) || err != nil {
			return
		}
	}
}

// parse is one worker of the parse stage.
func (p *pipeline) parse() {
	for c := range p.work {
		pc := p.cfg.parseChunk(c)
		putBytes(c.data)
		c.res <- pc
	}
}

// write is the write stage: it encodes the row groups from full until the
// assembler closes it, hashing their rows for the data hash and
// accumulating the feature statistics meanwhile. After an error it only
// recycles them (and has cancelled the pipeline).
func (p *pipeline) write(pw docsWriter, fstats *featureAcc, rows *rowHasher) error {
	var err error
	for rg := range p.full {
		if err == nil {
			var wg sync.WaitGroup
			wg.Go(func() {
				fstats.add(rg)
				rows.add(rg)
			})
			err = pw.writeRowGroup(rg)
			wg.Wait()
			if err != nil {
				p.cancel()
			}
		}
		rg.reset()
		p.free <- rg
	}
	return err
}

// assemble is the assemble stage. It closes full when it returns, so the
// write stage ends after the last row group.
func (p *pipeline) assemble() (*assembler, error) {
	defer close(p.full)
	a := newAssembler(p)
	select {
	case a.rg = <-p.free:
	case <-p.ctx.Done():
		return nil, p.ctx.Err()
	}
	for c := range p.order {
		if err := a.add(c); err != nil {
			return nil, err
		}
	}
	if err := p.ctx.Err(); err != nil {
		return nil, err
	}
	a.endQuery()
	if a.rows == 0 {
		return nil, &ParseError{File: p.sources[0].name, Field: "file", Msg: "empty input: no valid data lines"}
	}
	if a.rg.n > 0 {
		a.rg.parts = p.partNames
		select {
		case p.full <- a.rg:
		case <-p.ctx.Done():
			return nil, p.ctx.Err()
		}
	}
	return a, nil
}

// assembler is the state of the assemble stage: the manifest so far, the
// query being read and the row group being filled.
type assembler struct {
	p        *pipeline
	m        *Manifest
	srcStats []Source

	// seen records where each qid started; a qid may not come back after
	// another query.
	seen    map[int64]seenAt
	inQuery bool // a query is open: curQID and curSrc are its qid and source
	curQID  int64
	curSrc  int
	curPart int32 // the open query's part (index into the manifest's parts)
	doc     int32 // position of the next document in its query
	docs    []int // documents per finished query
	rows    int

	rg      *rowGroup // being filled
	keepDoc []int32   // scratch: doc of each row of a chunk
	skipped []bool    // scratch: rows of a chunk skipped in lenient mode
}

type seenAt struct {
	src  int
	line int64
}

func newAssembler(p *pipeline) *assembler {
	cs := p.cfg.cs
	m := &Manifest{
		SchemaVersion:  SchemaVersion,
		Features:       p.cfg.nfeat,
		Format:         p.format,
		LabelMax:       p.cfg.labelMax,
		LabelHistogram: make([]int64, p.cfg.labelMax+1),
		Lenient:        p.opts.Lenient,
		RowGroupRows:   p.rgRows,
		Writer:         writerName,
		Skipped:        SkippedLines{Examples: []string{}},
		CommentColumns: []CommentColumn{},
	}
	if p.opts.AllowRagged {
		m.Ragged = &SkippedLines{Examples: []string{}}
	}
	for k, name := range cs.columns() {
		t := "string"
		if cs.isNumeric(k) {
			t = "double"
		}
		m.CommentColumns = append(m.CommentColumns, CommentColumn{Name: name, Type: t})
	}
	for _, name := range p.partNames {
		m.Parts = append(m.Parts, PartStats{Name: name})
	}
	a := &assembler{p: p, m: m, seen: map[int64]seenAt{}, srcStats: make([]Source, len(p.sources))}
	for i, s := range p.sources {
		a.srcStats[i] = Source{Input: s.input, File: s.file, Part: s.part}
	}
	return a
}

// skip records a bad line skipped in lenient mode.
func (a *assembler) skip(err error) {
	a.m.Skipped.Count++
	if len(a.m.Skipped.Examples) < maxSkippedExamples {
		a.m.Skipped.Examples = append(a.m.Skipped.Examples, err.Error())
	}
}

// endQuery closes the query being read.
func (a *assembler) endQuery() {
	if a.inQuery {
		a.docs = append(a.docs, int(a.doc))
	}
}

// add takes the next chunk in input order: the end of a source, a read
// error, or lines whose parse it waits for, checks and appends.
func (a *assembler) add(c *chunk) error {
	p := a.p
	if c.err != nil {
		return c.err
	}
	if c.eos {
		st := &a.srcStats[c.src]
		st.Bytes, st.SHA256, st.Lines = c.bytes, c.sha256, c.lines
		if st.Rows == 0 && !p.opts.Lenient {
			return &ParseError{File: p.sources[c.src].name, Line: 0, Field: "file", Msg: "empty input: no data lines"}
		}
		return nil
	}
	var pc *parsedChunk
	select {
	case pc = <-c.res:
	case <-p.ctx.Done():
		return p.ctx.Err()
	}
	if pc.err != nil {
		return pc.err
	}
	for _, b := range pc.bad {
		a.skip(b)
	}
	for _, b := range pc.ragged {
		a.m.Ragged.Count++
		if len(a.m.Ragged.Examples) < maxSkippedExamples {
			a.m.Ragged.Examples = append(a.m.Ragged.Examples, b.Error())
		}
	}
	a.m.CommentsIgnored += pc.commentsIgnored
	a.keepDoc = grow(a.keepDoc, pc.rows)
	a.skipped = a.skipped[:0]
	anySkipped := false
	st := &a.srcStats[c.src]
	if pc.partNames != nil {
		// A Parquet part column: the reader's names so far.
		p.partNames = pc.partNames
		for len(a.m.Parts) < len(p.partNames) {
			a.m.Parts = append(a.m.Parts, PartStats{Name: p.partNames[len(a.m.Parts)]})
		}
	}
	pi := p.srcPart[c.src]
	for r := 0; r < pc.rows; r++ {
		q := pc.qid[r]
		if pc.part != nil {
			pi = pc.part[r]
		}
		if !a.inQuery || q != a.curQID || c.src != a.curSrc || pi != a.curPart {
			if at, dup := a.seen[q]; dup {
				perr := &ParseError{
					File: p.sources[c.src].name, Line: pc.line[r], Field: "qid",
					Token: "qid:" + strconv.FormatInt(q, 10),
					Msg:   fmt.Sprintf("qid reappears after other queries (first seen at %s:%d)", p.sources[at.src].name, at.line),
				}
				if !p.opts.Lenient {
					return perr
				}
				a.skip(perr)
				if !anySkipped {
					a.skipped = append(a.skipped[:0], make([]bool, pc.rows)...)
					anySkipped = true
				}
				a.skipped[r] = true
				continue
			}
			a.endQuery()
			a.seen[q] = seenAt{c.src, pc.line[r]}
			a.inQuery, a.curQID, a.curSrc, a.curPart, a.doc = true, q, c.src, pi, 0
			st.Queries++
			a.m.Parts[pi].Queries++
		}
		a.keepDoc[r] = a.doc
		a.doc++
		a.m.LabelHistogram[pc.label[r]]++
		st.Rows++
		a.m.Parts[pi].Rows++
		a.rows++
	}
	lo := 0
	if anySkipped {
		for r := 0; r < pc.rows; r++ {
			if a.skipped[r] {
				if err := a.appendRows(pc, c.src, lo, r); err != nil {
					return err
				}
				lo = r + 1
			}
		}
	}
	if err := a.appendRows(pc, c.src, lo, pc.rows); err != nil {
		return err
	}
	if pc.flat != nil {
		putFloats(pc.flat)
	}
	p.rowsDone.Store(int64(a.rows))
	return nil
}

// appendRows copies rows lo..hi of pc into row groups, sending each full
// one to the write stage.
func (a *assembler) appendRows(pc *parsedChunk, src, lo, hi int) error {
	p := a.p
	for lo < hi {
		n := min(p.rgRows-a.rg.n, hi-lo)
		a.rg.append(pc, p.srcPart[src], a.keepDoc, lo, lo+n)
		lo += n
		if a.rg.n < p.rgRows {
			continue
		}
		a.rg.parts = p.partNames
		select {
		case p.full <- a.rg:
		case <-p.ctx.Done():
			return p.ctx.Err()
		}
		select {
		case a.rg = <-p.free:
		case <-p.ctx.Done():
			return p.ctx.Err()
		}
	}
	return nil
}
