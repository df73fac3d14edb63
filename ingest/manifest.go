package ingest

// SchemaVersion is the version of documents.parquet and manifest.json
// written by this package.
const SchemaVersion = 1

// Manifest describes a prepared dataset (DATASET_DIR/manifest.json).
// The ingest owner completes this type; fields here are the contract
// other packages rely on.
type Manifest struct {
	SchemaVersion int    `json:"schema_version"`
	Features      int    `json:"features"` // number of feature columns f1..fN
	Rows          int    `json:"rows"`
	Queries       int    `json:"queries"`
	DocumentsHash string `json:"documents_sha256"` // sha256 of documents.parquet: the dataset's content hash
}
