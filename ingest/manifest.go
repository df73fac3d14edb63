package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// SchemaVersion is the version of documents.parquet and manifest.json
// written by this package.
const SchemaVersion = 1

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
	SchemaVersion int    `json:"schema_version"`
	Features      int    `json:"features"` // number of feature columns f1..fN
	Rows          int    `json:"rows"`
	Queries       int    `json:"queries"`
	DocumentsHash string `json:"documents_sha256"` // sha256 of documents.parquet: the dataset's content hash

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
	// RowGroupRows is the number of rows per Parquet row group (the last
	// may be shorter).
	RowGroupRows int `json:"row_group_rows"`
	// Writer names the Parquet writer that produced documents.parquet.
	Writer string `json:"writer"`
}

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
	p := filepath.Join(dir, ManifestFile)
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("read manifest %s: %w", p, err)
	}
	if m.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("read manifest %s: schema version %d, this build reads %d (re-run prep ingest)", p, m.SchemaVersion, SchemaVersion)
	}
	return &m, nil
}

// Verify checks that DIR/documents.parquet still has the sha256 recorded in
// DIR/manifest.json (documents_sha256), i.e. that the dataset is intact.
func Verify(dir string) (*Manifest, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	p := filepath.Join(dir, DocumentsFile)
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, fmt.Errorf("verify %s: %w", p, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != m.DocumentsHash {
		return nil, fmt.Errorf("verify %s: sha256 %s, manifest documents_sha256 %s (file changed or corrupt)", p, got, m.DocumentsHash)
	}
	return m, nil
}
