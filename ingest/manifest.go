package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/fedbandit/fedbandit/internal/atomicfile"
)

// SchemaVersion is the dataset format version (manifest.json's
// schema_version) written by this package: 2 since the dataset's identity
// is the hash of its rows (data_sha256). ReadManifest also reads version 1
// (datasets prepared up to release 98ad0ae): same columns, no
// data_sha256, and the identity was documents_sha256, which such a
// dataset keeps (see Manifest.DataHash).
const SchemaVersion = 2

// legacySchemaVersion is the previous format that ReadManifest still reads.
const legacySchemaVersion = 1

// File names inside a dataset directory.
const (
	// DocumentsFile holds one row per document (see datasets.md for the schema).
	DocumentsFile = "documents.parquet"
	// ManifestFile describes the dataset (the Manifest type, as JSON).
	ManifestFile = "manifest.json"
)

// Manifest describes a prepared dataset (DATASET_DIR/manifest.json). Every
// field is derived from the input bytes and the options only, so the same
// input gives a byte-identical manifest.
type Manifest struct {
	SchemaVersion int `json:"schema_version"`
	Features      int `json:"features"` // number of feature columns f1..fN
	Rows          int `json:"rows"`
	Queries       int `json:"queries"`
	// DataHash is the dataset's identity, the hash of its rows (see
	// rowHasher): what fitted artifacts and run ids carry. The same rows
	// give the same DataHash whatever wrote the file (library, codec, row
	// groups, machine). For a version-1 manifest, which has no
	// data_sha256, ReadManifest sets it to FileHash: such a dataset keeps
	// the identity it was prepared with.
	DataHash string `json:"data_sha256"`
	// FileHash is the sha256 of documents.parquet's bytes: the integrity
	// check of the file (Verify, Load), not the dataset's identity.
	FileHash string `json:"documents_sha256"`

	// Format is FormatMSLR, FormatLETOR4 or FormatSVMlight.
	Format string `json:"format"`
	// LabelMax is the largest label allowed (labels are 0..LabelMax).
	LabelMax int `json:"label_max"`
	// LabelHistogram[l] is the number of documents with label l, l = 0..LabelMax.
	LabelHistogram []int64 `json:"label_histogram"`
	// DocsPerQuery summarises the number of documents per query.
	DocsPerQuery DocsPerQuery `json:"docs_per_query"`
	// FeatureStats has one entry per feature f1..fN, in order.
	FeatureStats []FeatureStats `json:"feature_stats"`
	// CommentColumns are the columns made from the "# ..." comments, in
	// schema order (e.g. docid, inc, prob for LETOR 4.0); empty when the
	// first line has no comment.
	CommentColumns []CommentColumn `json:"comment_columns"`
	// CommentsIgnored counts comments dropped because the first line had
	// none (so the schema has no comment column).
	CommentsIgnored int64 `json:"comments_ignored"`
	// Parts lists the splits / partitions in input order.
	Parts []PartStats `json:"parts"`
	// Sources lists the files read, in order.
	Sources []Source `json:"sources"`
	// Lenient is true when bad lines were allowed to be skipped.
	Lenient bool `json:"lenient"`
	// Skipped reports the lines skipped in lenient mode.
	Skipped SkippedLines `json:"skipped"`
	// Ragged counts the MSLR-WEB / LETOR 4.0 lines with fewer features than
	// the format's count that AllowRagged accepted (zero-filled), with the
	// first examples; absent when they were errors (the default).
	Ragged *SkippedLines `json:"ragged_rows,omitempty"`
	// RowGroupRows is the number of rows per Parquet row group (the last
	// may be shorter).
	RowGroupRows int `json:"row_group_rows"`
	// Writer names the Parquet writer that produced documents.parquet.
	Writer string `json:"writer"`
}

// ShortHash is the first 12 hex digits of a content hash, the one short
// form messages, instance descriptions (DataTag) and labels (run table's
// rows, legends: outputs/figure's instance_hash= tag) show.
func ShortHash(h string) string { return h[:min(12, len(h))] }

// DataTag is the word of an instance description that names the dataset
// an instance reads: "data=" and the ShortHash of its identity (the
// manifest's DataHash, data_sha256). Every data-backed kind's description
// carries it, so the runs of one configuration on a dataset before and
// after a re-ingest have other descriptions, and tables and plots show
// the differing word (attack round 4, R4-22).
func DataTag(m *Manifest) string { return "data=" + ShortHash(m.DataHash) }

// DocsPerQuery summarises the number of documents per query.
type DocsPerQuery struct {
	Min  int     `json:"min"`
	Mean float64 `json:"mean"`
	Max  int     `json:"max"`
}

// FeatureStats summarises one feature column over all rows.
type FeatureStats struct {
	// Index is the 1-based feature index (column "f<Index>").
	Index int     `json:"index"`
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
	Mean  float64 `json:"mean"`
	// ZeroFraction is the fraction of rows where the value is exactly 0
	// (explicit or missing from a sparse line).
	ZeroFraction float64 `json:"zero_fraction"`
}

// CommentColumn is a column made from the line comments.
type CommentColumn struct {
	Name string `json:"name"`
	// Type is "string" or "double".
	Type string `json:"type"`
}

// PartStats counts the rows and queries of one split or partition.
type PartStats struct {
	Name    string `json:"name"`
	Rows    int    `json:"rows"`
	Queries int    `json:"queries"`
}

// Source is one input file.
type Source struct {
	// Input is the base name of the input argument (file, directory or zip).
	Input string `json:"input"`
	// File is the path inside the directory or zip archive ("" for a file input).
	File string `json:"file,omitempty"`
	// Part is the split or partition recorded in the part column.
	Part string `json:"part"`
	// Bytes and SHA256 are over the bytes as stored: the file for plain
	// and gzip files, the decompressed member for zip archives.
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
	// Lines counts all lines read, including blank and skipped ones.
	Lines   int64 `json:"lines"`
	Rows    int   `json:"rows"`
	Queries int   `json:"queries"`
}

// SkippedLines reports bad lines skipped in lenient mode.
type SkippedLines struct {
	Count int64 `json:"count"`
	// Examples are the first (at most 10) errors, as printed.
	Examples []string `json:"examples"`
}

// maxSkippedExamples bounds SkippedLines.Examples.
const maxSkippedExamples = 10

// ReadManifest reads DIR/manifest.json.
func ReadManifest(dir string) (*Manifest, error) {
	if err := notResults(dir); err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	p := filepath.Join(dir, ManifestFile)
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("read manifest %s: %w", p, err)
	}
	switch {
	case m.SchemaVersion == legacySchemaVersion && m.DataHash == "":
		m.DataHash = m.FileHash
	case m.SchemaVersion == SchemaVersion && m.DataHash != "":
	case m.SchemaVersion == SchemaVersion:
		return nil, fmt.Errorf("read manifest %s: no data_sha256 (re-run prep ingest)", p)
	default:
		return nil, fmt.Errorf("read manifest %s: schema version %d, this build reads %d and %d (re-run prep ingest)", p, m.SchemaVersion, legacySchemaVersion, SchemaVersion)
	}
	return &m, nil
}

// Verify checks that DIR/documents.parquet still has the sha256 recorded in
// DIR/manifest.json (documents_sha256), and that its rows still hash to
// the dataset identity recorded there (data_sha256; a version-1 dataset's
// identity is the file hash), i.e. that the dataset is intact and the
// manifest describes it.
func Verify(dir string) (*Manifest, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	p := filepath.Join(dir, DocumentsFile)
	_, got, err := hashFile(p)
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	if got != m.FileHash {
		return nil, fmt.Errorf("verify %s: sha256 %s, manifest documents_sha256 %s (file changed or corrupt: re-run prep ingest)", p, got, m.FileHash)
	}
	if m.SchemaVersion == legacySchemaVersion {
		return m, nil // its identity is the file's hash, just checked
	}
	rows, err := dataHashOf(p, m)
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	if rows != m.DataHash {
		return nil, fmt.Errorf("verify %s: its rows hash to %s, the manifest records data_sha256 %s (the manifest does not describe these rows: re-run prep ingest)", p, rows, m.DataHash)
	}
	return m, nil
}

// hashFile returns the size and hex SHA-256 of the file at p, read once.
func hashFile(p string) (int64, string, error) {
	f, err := os.Open(p)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return 0, "", fmt.Errorf("%s: %w", p, err)
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// verifiedFile is the name, inside a dataset directory, of the record of
// the last successful check of documents.parquet against the manifest.
const verifiedFile = ".verified.json"

// fileStamp identifies a file's content cheaply: a change of content
// through the file system changes its size or modification time, and on
// Linux its inode (a file copied or moved over it) or its status-change
// time (an edit in place, even one that restores the modification time).
type fileStamp struct {
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtime_ns"`
	Dev     uint64 `json:"dev,omitempty"`
	Inode   uint64 `json:"inode,omitempty"`
	CTime   int64  `json:"ctime_ns,omitempty"`
	SHA256  string `json:"documents_sha256"`
}

// verified caches, per documents.parquet path, the stamp of the content
// last hashed in this process.
var verified sync.Map

// documentsHashed counts verifyDocuments' hashes of a documents.parquet:
// the cost the stamps exist to save, which a test checks is paid once per
// content.
var documentsHashed atomic.Int64

// verifyDocuments checks that DIR/documents.parquet has the manifest's
// documents_sha256 before its data is used. The check hashes the file
// once per content: it is skipped while the file's size, modification
// time and (on Linux) device, inode and status-change time equal those
// recorded at the last successful check (in this process, or in
// DIR/.verified.json, which is written best-effort: a read-only dataset
// directory is hashed on every load). An edit that restores the size and
// the modification time still moves the status-change time, which no
// user can set back (attack round 2, R2b); off Linux such an edit is not
// caught at load. `prep verify` hashes unconditionally.
func verifyDocuments(dir string, m *Manifest) error {
	p := filepath.Join(dir, DocumentsFile)
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	want := fileStamp{Size: st.Size(), ModTime: st.ModTime().UnixNano(), SHA256: m.FileHash}
	want.Dev, want.Inode, want.CTime = statIdentity(st)
	abs, _ := filepath.Abs(p)
	if v, ok := verified.Load(abs); ok && v.(fileStamp) == want {
		return nil
	}
	var rec fileStamp
	if b, err := os.ReadFile(filepath.Join(dir, verifiedFile)); err == nil && json.Unmarshal(b, &rec) == nil && rec == want {
		verified.Store(abs, want)
		return nil
	}
	documentsHashed.Add(1)
	_, got, err := hashFile(p)
	if err != nil {
		return err
	}
	if got != m.FileHash {
		return fmt.Errorf("%s has sha256 %s but the manifest records documents_sha256 %s: the file was changed or is corrupt (re-run prep ingest)", p, got, m.FileHash)
	}
	verified.Store(abs, want)
	if b, err := json.Marshal(want); err == nil {
		atomicfile.WriteFile(filepath.Join(dir, verifiedFile), b) // best effort
	}
	return nil
}

// Stale compares the dataset in dir with the inputs of opts (Inputs, Fold,
// Parts) and returns why it was not made from them ("" when it was): a
// different list of source files, or a source whose bytes changed. It
// reads every input once to hash it (no parsing).
func Stale(dir string, opts Options) (string, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return "", err
	}
	res, err := resolveInputs(opts)
	if err != nil {
		return "", fmt.Errorf("ingest: %w", err)
	}
	defer res.close()
	if len(res.sources) != len(m.Sources) {
		return fmt.Sprintf("the inputs hold %d source files, the dataset was made from %d", len(res.sources), len(m.Sources)), nil
	}
	for i, s := range res.sources {
		old := m.Sources[i]
		if s.input != old.Input || s.file != old.File || s.part != old.Part {
			return fmt.Sprintf("source %d is %s, the dataset was made from %s", i+1, s.name, path.Join(old.Input, old.File)), nil
		}
		h := sha256.New()
		rc, err := s.open(h)
		if err != nil {
			return "", fmt.Errorf("ingest: %w", err)
		}
		_, err = io.Copy(io.Discard, rc)
		rc.Close()
		if err != nil {
			return "", fmt.Errorf("ingest: read %s: %w", s.name, err)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != old.SHA256 {
			return fmt.Sprintf("%s changed since the dataset was made (sha256 %s, recorded %s)", s.name, got[:12], old.SHA256[:min(12, len(old.SHA256))]), nil
		}
	}
	return "", nil
}

// isDatasetManifest reports whether b is a manifest.json of prep ingest
// (any schema version: an older dataset may be replaced by --force), not
// another program's file of the same name (e.g. a sweep's manifest).
func isDatasetManifest(b []byte) bool {
	var m struct {
		SchemaVersion *int   `json:"schema_version"`
		DocumentsHash string `json:"documents_sha256"`
	}
	return json.Unmarshal(b, &m) == nil && m.SchemaVersion != nil && m.DocumentsHash != ""
}
