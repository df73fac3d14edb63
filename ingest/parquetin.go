package ingest

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/parquet-go/parquet-go"
)

// Parquet input. A learning-to-rank dataset published as Parquet has one
// row per document: a relevance label, a query id, and the features either
// as scalar columns f1..fN (the layout of documents.parquet, written by any
// tool) or as one list column. Any codec, encoding, row-group size and
// optional (nullable) columns without nulls are read. The rows go through
// the same assembly as text lines, so the same rows give the same dataset
// (the same data_sha256) as from text. Columns:
//
//	label     Options.LabelColumn, default "label": integers (or integral
//	          floating-point values) 0..LabelMax
//	qid       Options.QIDColumn, default "qid": integers
//	features  Options.FeatureColumns, default the columns f1..fN, else the
//	          one list column: numbers, no nulls, every list of one length
//	part      optional STRING column: each row's part (else the file's
//	          name, as for text)
//	doc       ignored: a document's position in its query is recomputed
//	others    carried as comment columns (STRING, or numbers as DOUBLE)

// parquetMagic starts (and ends) every Parquet file.
const parquetMagic = "PAR1"

// isParquetFile reports whether the file at p starts with the Parquet
// magic bytes.
func isParquetFile(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [4]byte
	n, _ := io.ReadFull(f, b[:])
	return n == 4 && string(b[:]) == parquetMagic
}

// pqCol is one column of a Parquet input.
type pqCol struct {
	name   string // the top-level field name
	index  int    // leaf column index
	maxDef int
	maxRep int
	// repDef is the definition level of the list's repeated node: a value
	// below it is a null or empty list, one from it up to maxDef-1 a null
	// element.
	repDef int
	ty     pqType
}

// pqLayout says which columns of a Parquet input hold what.
type pqLayout struct {
	label, qid pqCol
	part       *pqCol
	feats      []pqCol // scalar feature columns, in order (nil with list)
	list       *pqCol  // the list column of the features
	nfeat      int     // features per row (for a list: from the first row)
	comments   []pqCol
	cs         commentSchema
}

// schemaError is an error about a column of the whole file (every row
// group).
func schemaError(file, column, format string, args ...any) error {
	return &colError{File: file, RowGroup: -1, Column: column, Msg: fmt.Sprintf(format, args...)}
}

// leafOf returns the column of the top-level field f: its only leaf.
func leafOf(pf *parquet.File, f parquet.Field) (pqCol, error) {
	path := []string{f.Name()}
	n := parquet.Node(f)
	def, repDef := 0, 0
	for {
		if n.Optional() {
			def++
		}
		if n.Repeated() {
			def++
			repDef = def
		}
		if n.Leaf() {
			break
		}
		fs := n.Fields()
		if len(fs) != 1 {
			return pqCol{}, fmt.Errorf("a group of %d fields, not a column or a list", len(fs))
		}
		path = append(path, fs[0].Name())
		n = fs[0]
	}
	lc, ok := pf.Schema().Lookup(path...)
	if !ok {
		return pqCol{}, fmt.Errorf("no leaf column at %s", strings.Join(path, "."))
	}
	return pqCol{name: f.Name(), index: lc.ColumnIndex, maxDef: lc.MaxDefinitionLevel, maxRep: lc.MaxRepetitionLevel, repDef: repDef, ty: classify(lc.Node.Type())}, nil
}

// detectLayout reads the schema of a Parquet input and decides its layout.
// Every column is read as what its type denotes (classify) or refused
// naming its type; a name given twice, a column in two roles, and an
// extra column that would take a name documents.parquet gives to another
// (a feature fK, the label, the qid, the part) are refused.
func detectLayout(path string, pf *parquet.File, opts Options) (*pqLayout, error) {
	fields := pf.Schema().Fields()
	byName := map[string]parquet.Field{}
	pos := map[string]int{}
	var names []string
	for i, f := range fields {
		if j, dup := pos[f.Name()]; dup {
			return nil, schemaError(path, f.Name(), "appears twice (columns %d and %d of the file): rename one", j+1, i+1)
		}
		pos[f.Name()] = i
		byName[f.Name()] = f
		names = append(names, f.Name())
	}
	have := strings.Join(names, ", ")
	col := func(name, flag string) (pqCol, error) {
		f, ok := byName[name]
		if !ok {
			err := schemaError(path, name, "missing (the file has columns %s; name another with %s)", have, flag)
			err.(*colError).missing = true
			return pqCol{}, err
		}
		c, err := leafOf(pf, f)
		if err != nil {
			return pqCol{}, schemaError(path, name, "%v", err)
		}
		return c, nil
	}
	scalar := func(name, flag, what string) (pqCol, error) {
		c, err := col(name, flag)
		if err != nil {
			return c, err
		}
		if c.maxRep > 0 {
			return c, schemaError(path, name, "a list column, want %s per row", what)
		}
		if !c.ty.class.numeric() {
			return c, schemaError(path, name, "not numeric (%s), want %s", c.ty.name, what)
		}
		return c, nil
	}
	l := &pqLayout{}
	var err error
	labelName := cmp.Or(opts.LabelColumn, "label")
	qidName := cmp.Or(opts.QIDColumn, "qid")
	if labelName == qidName {
		return nil, schemaError(path, labelName, "named as both the label and the qid (--label-column, --qid-column): they are two columns")
	}
	if l.label, err = scalar(labelName, "--label-column", "an integer label"); err != nil {
		return nil, err
	}
	if l.qid, err = scalar(qidName, "--qid-column", "an integer query id"); err != nil {
		return nil, err
	}
	used := map[string]bool{labelName: true, qidName: true, "doc": true}

	featNames := opts.FeatureColumns
	if len(featNames) == 0 {
		for j := 1; ; j++ {
			if _, ok := byName["f"+strconv.Itoa(j)]; !ok {
				break
			}
			featNames = append(featNames, "f"+strconv.Itoa(j))
		}
		// A column fK beyond a gap is an error: f1..fN must be complete.
		for _, n := range names {
			if k, err := strconv.Atoi(strings.TrimPrefix(n, "f")); err == nil && n[0] == 'f' && k > len(featNames) {
				return nil, schemaError(path, "f"+strconv.Itoa(len(featNames)+1), "missing (the file has %s: the feature columns must be f1..fN)", n)
			}
		}
		if len(featNames) == 0 {
			var lists []string
			for _, f := range fields {
				if c, err := leafOf(pf, f); err == nil && c.maxRep > 0 {
					lists = append(lists, f.Name())
				}
			}
			if len(lists) != 1 {
				return nil, schemaError(path, "f1", "missing: no feature columns f1..fN and %d list columns %v (name the features with --feature-columns)", len(lists), lists)
			}
			featNames = lists
		}
	}
	// One column has one role, whether the features were named with
	// --feature-columns or are the default f1..fN (a --label-column f3
	// beside f1..f3 would otherwise be feature 3 too, R4-13).
	role := map[string]string{labelName: "the label (--label-column)", qidName: "the qid (--qid-column)"}
	for i, n := range featNames {
		r, ok := role[n]
		switch {
		case !ok:
			role[n] = "feature " + strconv.Itoa(i+1)
			continue
		case strings.HasPrefix(r, "feature"):
			return nil, schemaError(path, n, "listed twice in --feature-columns (as %s and feature %d)", r, i+1)
		case len(opts.FeatureColumns) == 0:
			return nil, schemaError(path, n, "is %s, and the default features f1..f%d include it: it cannot be a feature too (name the features with --feature-columns)", r, len(featNames))
		}
		return nil, schemaError(path, n, "is %s: it cannot be a feature too (--feature-columns)", r)
	}
	if len(featNames) == 1 {
		if c, err := col(featNames[0], "--feature-columns"); err == nil && c.maxRep > 0 {
			if c.maxRep > 1 {
				return nil, schemaError(path, c.name, "a nested list, want a list of numbers")
			}
			if !c.ty.class.numeric() {
				return nil, schemaError(path, c.name, "a list of %s, want a list of numbers", c.ty.name)
			}
			l.list = &c
			used[c.name] = true
		}
	}
	if l.list == nil {
		for _, n := range featNames {
			c, err := col(n, "--feature-columns")
			if err == nil && c.maxRep > 0 {
				err = schemaError(path, n, "a list column; --feature-columns names one list column alone, or scalar columns")
			}
			if err != nil {
				return nil, err
			}
			if c, err = scalar(n, "--feature-columns", "one number"); err != nil {
				return nil, err
			}
			l.feats = append(l.feats, c)
			used[n] = true
		}
		l.nfeat = len(l.feats)
	}
	if f, ok := byName["part"]; ok && !used["part"] {
		c, err := leafOf(pf, f)
		if err != nil || c.maxRep > 0 || c.ty.class != pqString {
			return nil, schemaError(path, "part", "want a STRING column (each row's part)")
		}
		l.part = &c
		used["part"] = true
	}
	for _, f := range fields {
		if used[f.Name()] {
			continue
		}
		if reservedColumn(f.Name()) && f.Name() != "comment" {
			return nil, schemaError(path, f.Name(), "would be carried as an extra column, but documents.parquet gives this name to its own %s column (the features are %s): drop or rename the column in the input", f.Name(), strings.Join(featNames, ", "))
		}
		c, err := leafOf(pf, f)
		switch {
		case err != nil:
			return nil, schemaError(path, f.Name(), "%v: not a column prep ingest can carry (only numbers and strings)", err)
		case c.maxRep > 0:
			return nil, schemaError(path, f.Name(), "a second list column (the features are in %s)", strings.Join(featNames, ", "))
		case c.ty.class == pqString:
			l.cs.keys = append(l.cs.keys, c.name)
			l.cs.numeric = append(l.cs.numeric, false)
		case c.ty.class.numeric():
			l.cs.keys = append(l.cs.keys, c.name)
			l.cs.numeric = append(l.cs.numeric, true)
		default:
			return nil, schemaError(path, f.Name(), "of type %s: prep ingest carries numbers and strings only", c.ty.name)
		}
		l.comments = append(l.comments, c)
	}
	if len(l.cs.keys) == 1 && l.cs.keys[0] == "comment" && !l.cs.numeric[0] {
		l.cs = commentSchema{raw: true}
	}
	return l, nil
}

// sameLayout reports why two inputs' layouts differ ("" when they agree).
func (l *pqLayout) same(o *pqLayout) string {
	switch {
	case (l.list == nil) != (o.list == nil):
		return "one has a list column of features, the other feature columns"
	case l.list == nil && l.nfeat != o.nfeat:
		return fmt.Sprintf("%d feature columns, the first input %d", o.nfeat, l.nfeat)
	case (l.part == nil) != (o.part == nil):
		return "one has a part column, the other not"
	case !slices.Equal(l.cs.columns(), o.cs.columns()) || !slices.Equal(l.cs.numeric, o.cs.numeric):
		return fmt.Sprintf("other columns %v, the first input %v", o.cs.columns(), l.cs.columns())
	}
	return ""
}

// parquetReader is the read stage for Parquet inputs: it decodes one row
// group at a time into a parsed chunk (column by column), and ends each
// source with its end-of-source chunk.
type parquetReader struct {
	sources  []*source
	layouts  []*pqLayout
	labelMax int
	read     *atomic.Int64

	cur   int
	f     *pqFile
	g     int   // next row group of f
	row   int64 // rows of the source so far
	names []string
	nameI map[string]int32
	vals  []parquet.Value
	buf   []byte // a value spelled in decimal
	// labelHint follows a label error: where the label range came from.
	labelHint string
}

// next returns the next row group of the current source as a parsed
// chunk, or its end-of-source chunk, or io.EOF after the last source.
func (r *parquetReader) next() (*chunk, error) {
	for r.cur < len(r.sources) {
		if r.f == nil {
			f, err := openParquet(r.sources[r.cur].name)
			if err != nil {
				return nil, err
			}
			r.f, r.g, r.row = f, 0, 0
		}
		rgs := r.f.pf.RowGroups()
		for r.g < len(rgs) && rgs[r.g].NumRows() == 0 {
			r.g++ // an empty row group holds no rows
		}
		if r.g < len(rgs) {
			pc, err := r.decode(rgs[r.g])
			if err != nil {
				return nil, err
			}
			r.g++
			res := make(chan *parsedChunk, 1)
			res <- pc
			return &chunk{src: r.cur, firstLine: pc.line[0], res: res}, nil
		}
		s := r.sources[r.cur]
		size, sum, err := hashFile(s.name)
		r.f.close()
		r.f = nil
		if err != nil {
			return nil, err
		}
		r.read.Add(size)
		c := &chunk{src: r.cur, eos: true, bytes: size, sha256: sum, lines: r.row}
		r.cur++
		return c, nil
	}
	return nil, io.EOF
}

func (r *parquetReader) close() {
	if r.f != nil {
		r.f.close()
		r.f = nil
	}
}

// decode reads row group rg of the current source into a parsed chunk: the
// rows' "line" numbers are their 1-based row numbers in the file.
func (r *parquetReader) decode(rg parquet.RowGroup) (*parsedChunk, error) {
	l := r.layouts[r.cur]
	path := r.sources[r.cur].name
	g := r.g
	n := int(rg.NumRows())
	cols := rg.ColumnChunks()
	bad := func(c pqCol, row int, format string, args ...any) error {
		msg := fmt.Sprintf(format, args...)
		if row >= 0 {
			msg = fmt.Sprintf("row %d (row %d of the file): %s", row, r.row+int64(row)+1, msg)
		}
		return &colError{File: path, RowGroup: g, Column: c.name, Msg: msg}
	}
	// scalars reads column c: one non-null value per row.
	scalars := func(c pqCol) ([]parquet.Value, error) {
		vals, err := readValues(cols[c.index], r.vals)
		r.vals = vals
		if err != nil {
			return nil, bad(c, -1, "%v", err)
		}
		if len(vals) != n {
			return nil, bad(c, -1, "%d values for %d rows", len(vals), n)
		}
		for i, v := range vals {
			if v.IsNull() {
				return nil, bad(c, i, "null")
			}
		}
		return vals, nil
	}
	pc := &parsedChunk{rows: n, line: make([]int64, n), qid: make([]int64, n), label: make([]int32, n)}
	for i := range pc.line {
		pc.line[i] = r.row + int64(i) + 1
	}
	vals, err := scalars(l.label)
	if err != nil {
		return nil, err
	}
	buf := r.buf[:0]
	for i, v := range vals {
		buf = l.label.ty.spell(buf[:0], v)
		x, fe := parseLabel(buf, r.labelMax)
		if fe != nil {
			if strings.HasPrefix(fe.msg, "label out of range") {
				fe.msg += r.labelHint
			}
			return nil, bad(l.label, i, "%s: %q", fe.msg, buf)
		}
		pc.label[i] = x
	}
	if vals, err = scalars(l.qid); err != nil {
		return nil, err
	}
	for i, v := range vals {
		buf = l.qid.ty.spell(buf[:0], v)
		q, fe := parseQIDValue(buf)
		if fe != nil {
			return nil, bad(l.qid, i, "%s: %q", fe.msg, buf)
		}
		pc.qid[i] = q
	}
	pc.x = make([][]float64, l.nfeat)
	if l.list == nil {
		for j, c := range l.feats {
			if vals, err = scalars(c); err != nil {
				return nil, err
			}
			pc.x[j] = make([]float64, n)
			for i, v := range vals {
				x, ok := c.ty.exact(v)
				if !ok {
					buf = c.ty.spell(buf[:0], v)
					var fe *fieldError
					if x, fe = parseValue(c.name, buf, buf); fe != nil {
						return nil, bad(c, i, "%s: %q", fe.msg, buf)
					}
				}
				pc.x[j][i] = x
			}
		}
	} else if err := r.decodeList(pc, l, cols[l.list.index], bad); err != nil {
		return nil, err
	}
	pc.cstr = make([][]string, len(l.comments))
	pc.cnum = make([][]float64, len(l.comments))
	for k, c := range l.comments {
		if vals, err = scalars(c); err != nil {
			return nil, err
		}
		if c.ty.class == pqString {
			pc.cstr[k] = make([]string, n)
			for i, v := range vals {
				pc.cstr[k][i] = string(v.ByteArray())
			}
			continue
		}
		pc.cnum[k] = make([]float64, n)
		for i, v := range vals {
			x, ok := c.ty.exact(v)
			if !ok {
				// A carried number may be NaN or infinite (as in a
				// text comment); only its spelling is the file's.
				buf = c.ty.spell(buf[:0], v)
				x, _ = strconv.ParseFloat(string(buf), 64)
			}
			pc.cnum[k][i] = x
		}
	}
	r.buf = buf
	if l.part != nil {
		if vals, err = scalars(*l.part); err != nil {
			return nil, err
		}
		pc.part = make([]int32, n)
		for i, v := range vals {
			k, ok := r.nameI[string(v.ByteArray())]
			if !ok {
				k = int32(len(r.names))
				r.nameI[string(v.ByteArray())] = k
				r.names = append(r.names, string(v.ByteArray()))
			}
			pc.part[i] = k
		}
		pc.partNames = r.names
	}
	r.row += int64(n)
	return pc, nil
}

// decodeList reads the list column of the features: every row a list of
// l.nfeat numbers, no nulls.
func (r *parquetReader) decodeList(pc *parsedChunk, l *pqLayout, cc parquet.ColumnChunk, bad func(pqCol, int, string, ...any) error) error {
	c := *l.list
	vals, err := readValues(cc, r.vals)
	r.vals = vals
	if err != nil {
		return bad(c, -1, "%v", err)
	}
	n := pc.rows
	for j := range pc.x {
		pc.x[j] = make([]float64, n)
	}
	row, k := -1, 0
	end := func() error {
		if row >= 0 && k != l.nfeat {
			return bad(c, row, "%d features, the first row has %d (ragged lists)", k, l.nfeat)
		}
		return nil
	}
	for _, v := range vals {
		if v.RepetitionLevel() == 0 {
			if err := end(); err != nil {
				return err
			}
			row, k = row+1, 0
			if row >= n {
				return bad(c, -1, "more lists than the row group's %d rows", n)
			}
		}
		if d := v.DefinitionLevel(); d < c.maxDef {
			if d >= c.repDef {
				return bad(c, row, "a null feature")
			}
			continue // an empty or null list: no features
		}
		if k >= l.nfeat {
			return bad(c, row, "more than %d features, the first row has %d (ragged lists)", k, l.nfeat)
		}
		x, ok := c.ty.exact(v)
		if !ok {
			r.buf = c.ty.spell(r.buf[:0], v)
			var fe *fieldError
			if x, fe = parseValue(c.name, r.buf, r.buf); fe != nil {
				return bad(c, row, "feature %d: %s: %q", k+1, fe.msg, r.buf)
			}
		}
		pc.x[k][row] = x
		k++
	}
	if err := end(); err != nil {
		return err
	}
	if row+1 != n {
		return bad(c, -1, "%d lists for %d rows", row+1, n)
	}
	return nil
}

// firstListLength returns the number of elements in the first row of the
// list column c of the file (to fix the features per row).
func firstListLength(f *pqFile, c pqCol) (int, error) {
	for g, rg := range f.pf.RowGroups() {
		if rg.NumRows() == 0 {
			continue
		}
		vals, err := readValues(rg.ColumnChunks()[c.index], nil)
		if err != nil {
			return 0, &colError{File: f.path, RowGroup: g, Column: c.name, Msg: err.Error()}
		}
		k := 0
		for i, v := range vals {
			if i > 0 && v.RepetitionLevel() == 0 {
				break
			}
			if v.DefinitionLevel() == c.maxDef {
				k++
			}
		}
		return k, nil
	}
	return 0, nil
}

// setupParquet fixes the schema of a Parquet ingest from its inputs'
// layouts (which must agree) and makes its read stage.
func (p *pipeline) setupParquet(res *resolved) error {
	pr := &parquetReader{sources: res.sources, read: &p.readBytes, nameI: map[string]int32{}}
	p.lr = pr
	opts := p.opts
	if opts.Lenient || opts.AllowRagged {
		return fmt.Errorf("%s: --lenient and --allow-ragged apply to text inputs, not to Parquet", res.sources[0].name)
	}
	for i, s := range res.sources {
		f, err := openParquet(s.name)
		if err != nil {
			return err
		}
		l, err := detectLayout(s.name, f.pf, opts)
		if err == nil && l.list != nil {
			if i == 0 {
				l.nfeat, err = firstListLength(f, *l.list)
				if err == nil && l.nfeat == 0 {
					err = schemaError(s.name, l.list.name, "the first row has no features")
				}
			} else {
				l.nfeat = pr.layouts[0].nfeat
			}
		}
		f.close()
		if err != nil {
			return err
		}
		if i > 0 {
			if why := pr.layouts[0].same(l); why != "" {
				return fmt.Errorf("%s and %s have different layouts: %s", res.sources[0].name, s.name, why)
			}
		}
		pr.layouts = append(pr.layouts, l)
	}
	l := pr.layouts[0]
	if opts.Features > 0 && opts.Features != l.nfeat {
		return fmt.Errorf("%s: %d features per row, --features says %d", res.sources[0].name, l.nfeat, opts.Features)
	}
	if l.part != nil {
		// Each row's part comes from the part column.
		for _, s := range res.sources {
			s.part = ""
		}
	}
	if err := p.setup(res, l.nfeat, l.cs); err != nil {
		return err
	}
	pr.labelMax, pr.labelHint = p.cfg.labelMax, p.cfg.labelHint
	if l.part != nil {
		p.partNames = nil
	}
	return nil
}
