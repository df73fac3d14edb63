package ingest

import (
	"archive/zip"
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Dataset formats recorded in Manifest.Format.
const (
	// FormatMSLR is MSLR-WEB10K / MSLR-WEB30K (136 features, labels 0-4).
	FormatMSLR = "mslr-web"
	// FormatLETOR4 is LETOR 4.0 MQ2007 / MQ2008 (46 features, labels 0-2).
	FormatLETOR4 = "letor4"
	// FormatSVMlight is any other file in the LETOR / SVMlight ranking format.
	FormatSVMlight = "svmlight"
)

// source is one text file to read: a plain or gzip file, or a member of a
// directory layout or a zip archive.
type source struct {
	name  string // shown in errors: a path, or "archive.zip!Fold1/train.txt"
	input string // base name of the input argument it came from
	file  string // path inside the directory or archive ("" for a plain file)
	part  string // split or partition: "Fold1/train", "S1", "train"
	size  int64  // bytes counted for progress (on-disk, or uncompressed for zip members)
	// parquet marks a Parquet file (read by parquetReader, not opened
	// through open).
	parquet bool
	// open returns the decompressed content. Every raw byte (file bytes for
	// files, decompressed bytes for zip members) is also written to tap.
	open func(tap io.Writer) (io.ReadCloser, error)
}

// tree is a directory or a zip archive holding a dataset layout.
type tree interface {
	// lookup returns the member for rel (also trying rel+".gz" for directories).
	lookup(rel string) (*source, bool)
	// hasPrefix reports whether a top-level entry starts with prefix.
	hasPrefix(prefix string) bool
	describe() string
}

// resolved is the outcome of resolving the inputs.
type resolved struct {
	sources []*source
	format  string // FormatMSLR, FormatLETOR4 or "" (decided later from the data)
	closers []io.Closer
	// parquet is true when the inputs are Parquet files (all of them).
	parquet bool
}

func (r *resolved) close() {
	for _, c := range r.closers {
		c.Close()
	}
}

var mslrParts = []string{"train", "vali", "test"}
var letorParts = []string{"S1", "S2", "S3", "S4", "S5"}

// resolveInputs turns the input arguments into the ordered list of files to read.
func resolveInputs(opts Options) (*resolved, error) {
	if len(opts.Inputs) == 0 {
		return nil, errors.New("no input given")
	}
	res := &resolved{}
	formats := map[string]bool{}
	for _, in := range opts.Inputs {
		fi, err := os.Stat(in)
		if err != nil {
			res.close()
			return nil, fmt.Errorf("input: %w", err)
		}
		var t tree
		switch {
		case fi.IsDir():
			t = &dirTree{root: in}
		case strings.EqualFold(filepath.Ext(in), ".zip"):
			zt, err := openZipTree(in)
			if err != nil {
				res.close()
				return nil, err
			}
			res.closers = append(res.closers, zt.zr)
			t = zt
		default:
			if opts.Fold != "" || len(opts.Parts) > 0 {
				res.close()
				return nil, fmt.Errorf("input %s: --fold and --parts apply to directories and zip archives, not to single files", in)
			}
			s := fileSource(in, filepath.Base(in), "")
			if isParquetFile(in) {
				s.parquet = true
				s.part = strings.TrimSuffix(filepath.Base(in), filepath.Ext(in))
				res.parquet = true
			} else if strings.EqualFold(filepath.Ext(in), ".parquet") {
				res.close()
				return nil, fmt.Errorf("input %s: named .parquet but does not start with the Parquet magic bytes (PAR1): not a Parquet file (a text file is read as text under another name)", in)
			}
			res.sources = append(res.sources, s)
			continue
		}
		srcs, format, err := layoutSources(t, opts.Fold, opts.Parts)
		if err != nil {
			res.close()
			return nil, err
		}
		formats[format] = true
		res.sources = append(res.sources, srcs...)
	}
	if res.parquet {
		pq := slices.IndexFunc(res.sources, func(s *source) bool { return s.parquet })
		for _, s := range res.sources {
			if !s.parquet {
				res.close()
				return nil, fmt.Errorf("input %s is text, %s Parquet: give the Parquet files to one prep ingest and the text to another", s.name, res.sources[pq].name)
			}
		}
	} else if len(opts.FeatureColumns) > 0 || opts.LabelColumn != "" || opts.QIDColumn != "" {
		res.close()
		return nil, errors.New("--label-column, --qid-column and --feature-columns name the columns of Parquet inputs; the inputs are text")
	}
	if len(formats) == 1 {
		for f := range formats {
			res.format = f
		}
	}
	return res, nil
}

var foldRE = regexp.MustCompile(`^Fold[0-9]+$`)

// layoutSources picks the files of an MSLR or LETOR 4.0 layout.
func layoutSources(t tree, fold string, parts []string) ([]*source, string, error) {
	if fold != "" && !foldRE.MatchString(fold) {
		return nil, "", fmt.Errorf("%s: fold %q: want Fold1..Fold5", t.describe(), fold)
	}
	_, letor := t.lookup("S1.txt")
	format := FormatMSLR
	var rels []string
	switch {
	case letor:
		format = FormatLETOR4
		if fold == "" {
			if len(parts) == 0 {
				parts = letorParts
			}
			for _, p := range parts {
				if !slices.Contains(letorParts, p) {
					return nil, "", fmt.Errorf("%s: LETOR 4.0 partition %q: want S1..S5 (or --fold with train, vali, test)", t.describe(), p)
				}
				rels = append(rels, p+".txt")
			}
			break
		}
		fallthrough
	case t.hasPrefix("Fold"):
		if fold == "" {
			fold = "Fold1"
		}
		if len(parts) == 0 {
			parts = mslrParts
		}
		for _, p := range parts {
			if !slices.Contains(mslrParts, p) {
				return nil, "", fmt.Errorf("%s: part %q: want train, vali or test", t.describe(), p)
			}
			rels = append(rels, fold+"/"+p+".txt")
		}
	default:
		return nil, "", fmt.Errorf("%s: not a dataset layout: expected MSLR-WEB Fold1..Fold5/{train,vali,test}.txt or LETOR 4.0 S1..S5.txt", t.describe())
	}
	var out []*source
	for _, rel := range rels {
		s, ok := t.lookup(rel)
		if !ok {
			return nil, "", fmt.Errorf("%s: missing %s (layout %s)", t.describe(), rel, format)
		}
		out = append(out, s)
	}
	return out, format, nil
}

// partName derives the part of a stand-alone file: its base name without
// .gz/.txt, prefixed with its parent directory when that is a Fold.
func partName(p string) string {
	base := filepath.Base(p)
	base = strings.TrimSuffix(base, ".gz")
	base = strings.TrimSuffix(base, ".txt")
	if parent := filepath.Base(filepath.Dir(p)); foldRE.MatchString(parent) {
		return parent + "/" + base
	}
	return base
}

// fileSource reads a plain or gzip-compressed file (gzip detected from its
// magic bytes).
func fileSource(p, input, rel string) *source {
	s := &source{name: p, input: input, file: rel, part: partName(p)}
	if rel != "" {
		s.part = strings.TrimSuffix(strings.TrimSuffix(rel, ".gz"), ".txt")
	}
	if fi, err := os.Stat(p); err == nil {
		s.size = fi.Size()
	}
	s.open = func(tap io.Writer) (io.ReadCloser, error) {
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("input: %w", err)
		}
		br := bufio.NewReaderSize(io.TeeReader(f, tap), 1<<20)
		magic, _ := br.Peek(2)
		if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
			zr, err := gzip.NewReader(br)
			if err != nil {
				f.Close()
				return nil, fmt.Errorf("%s: truncated or corrupt gzip: %w", p, err)
			}
			return &gzipFile{zr: zr, f: f, name: p}, nil
		}
		return struct {
			io.Reader
			io.Closer
		}{br, f}, nil
	}
	return s
}

// gzipFile turns gzip read errors into clear ones.
type gzipFile struct {
	zr   *gzip.Reader
	f    *os.File
	name string
}

// Read decompresses, naming the file in errors.
func (g *gzipFile) Read(p []byte) (int, error) {
	n, err := g.zr.Read(p)
	if err != nil && err != io.EOF {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return n, fmt.Errorf("%s: truncated gzip (unexpected end of compressed data): %w", g.name, err)
		}
		return n, fmt.Errorf("%s: corrupt gzip: %w", g.name, err)
	}
	return n, err
}

// Close closes the gzip stream and the file.
func (g *gzipFile) Close() error {
	g.zr.Close()
	return g.f.Close()
}

// dirTree is a dataset directory.
type dirTree struct{ root string }

func (d *dirTree) describe() string { return "directory " + d.root }

func (d *dirTree) lookup(rel string) (*source, bool) {
	for _, r := range []string{rel, rel + ".gz"} {
		p := filepath.Join(d.root, filepath.FromSlash(r))
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return fileSource(p, filepath.Base(filepath.Clean(d.root)), r), true
		}
	}
	return nil, false
}

func (d *dirTree) hasPrefix(prefix string) bool {
	ents, err := os.ReadDir(d.root)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if e.IsDir() && strings.HasPrefix(e.Name(), prefix) {
			return true
		}
	}
	return false
}

// zipTree is an archive such as the original MSLR-WEB10K.zip, read in place.
// Members may sit under one top-level folder ("MSLR-WEB10K/Fold1/train.txt").
type zipTree struct {
	path    string
	zr      *zip.ReadCloser
	members map[string]*zip.File // keyed by path with the top folder removed
}

func openZipTree(p string) (*zipTree, error) {
	zr, err := zip.OpenReader(p)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot open zip archive (truncated or corrupt?): %w", p, err)
	}
	z := &zipTree{path: p, zr: zr, members: map[string]*zip.File{}}
	// Find the prefix under which the layout lives: the directory holding
	// Fold1/ or S1.txt.
	prefix := ""
	for _, f := range zr.File {
		n := f.Name
		for _, marker := range []string{"Fold1/", "S1.txt"} {
			if i := strings.Index(n, marker); i >= 0 && (i == 0 || n[i-1] == '/') {
				prefix = n[:i]
				goto found
			}
		}
	}
found:
	for _, f := range zr.File {
		if strings.HasPrefix(f.Name, prefix) && !strings.HasSuffix(f.Name, "/") {
			z.members[strings.TrimPrefix(f.Name, prefix)] = f
		}
	}
	return z, nil
}

func (z *zipTree) describe() string { return "zip archive " + z.path }

func (z *zipTree) hasPrefix(prefix string) bool {
	for k := range z.members {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

func (z *zipTree) lookup(rel string) (*source, bool) {
	f, ok := z.members[rel]
	if !ok {
		return nil, false
	}
	name := z.path + "!" + f.Name
	s := &source{
		name:  name,
		input: filepath.Base(z.path),
		file:  rel,
		part:  strings.TrimSuffix(rel, path.Ext(rel)),
		size:  int64(f.UncompressedSize64),
	}
	s.open = func(tap io.Writer) (io.ReadCloser, error) {
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("%s: cannot open zip member: %w", name, err)
		}
		return &zipMember{rc: rc, r: io.TeeReader(rc, tap), name: name}, nil
	}
	return s, true
}

// zipMember turns zip read errors into clear ones.
type zipMember struct {
	rc   io.ReadCloser
	r    io.Reader
	name string
}

// Read decompresses, naming the member in errors.
func (z *zipMember) Read(p []byte) (int, error) {
	n, err := z.r.Read(p)
	if err != nil && err != io.EOF {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return n, fmt.Errorf("%s: truncated zip member: %w", z.name, err)
		}
		return n, fmt.Errorf("%s: corrupt zip member: %w", z.name, err)
	}
	return n, err
}

// Close closes the member.
func (z *zipMember) Close() error { return z.rc.Close() }

// ValidFold reports whether fold names a fold of the MSLR-WEB / LETOR 4.0
// layouts (Fold1..Fold5).
func ValidFold(fold string) bool {
	return len(fold) == 5 && fold[:4] == "Fold" && fold[4] >= '1' && fold[4] <= '5'
}

// ValidPart reports whether part names a file of a layout: train, vali,
// test or S1..S5.
func ValidPart(part string) bool {
	return slices.Contains(mslrParts, part) || slices.Contains(letorParts, part)
}
