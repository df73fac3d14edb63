package partition

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/fedbandit/fedbandit/ingest"
	"github.com/fedbandit/fedbandit/internal/atomicfile"
)

// Artifact identification.
const (
	// ArtifactSchema names the JSON document type.
	ArtifactSchema = "fedbandit.partition"
	// ArtifactVersion is the version of the artifact layout.
	ArtifactVersion = 1
	// Dir is the directory inside a dataset directory holding partitions.
	Dir = "partitions"
)

// Artifact is a partition as stored in DATASET_DIR/partitions/NAME.json,
// with the content hash of the dataset it was computed from.
type Artifact struct {
	Schema  string `json:"schema"`
	Version int    `json:"version"`
	// DatasetSHA256 is the dataset's identity, data_sha256 (manifest.json; documents_sha256 for a version-1 dataset).
	DatasetSHA256 string `json:"dataset_sha256"`
	// Hash is Partition.Hash() of the stored partition.
	Hash string `json:"partition_sha256"`
	Partition
}

// Hash returns the hex SHA-256 of the partition's canonical JSON encoding;
// it identifies the partition in run identities.
func (p *Partition) Hash() string {
	b, err := json.Marshal(p)
	if err != nil {
		panic(err) // plain ints and strings always encode
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// ArtifactName returns the file name of a partition: "<strategy>-M<m>.json",
// or "<strategy>-M<m>-s<seed>.json" for a seeded strategy.
func ArtifactName(strategy string, m int, seed uint64) string {
	name := strategy + "-M" + strconv.Itoa(m)
	if Seeded(strategy) {
		name += "-s" + strconv.FormatUint(seed, 10)
	}
	return name + ".json"
}

// ArtifactPath returns DATASET_DIR/partitions/ArtifactName(...).
func ArtifactPath(datasetDir, strategy string, m int, seed uint64) string {
	return filepath.Join(datasetDir, Dir, ArtifactName(strategy, m, seed))
}

// Summaries returns the per-query summaries (documents, mean label) of a
// loaded dataset, in dataset order.
func Summaries(ds *ingest.Dataset) []Query {
	qs := make([]Query, len(ds.Queries))
	for i, q := range ds.Queries {
		var s float64
		for _, l := range q.Labels {
			s += l
		}
		qs[i] = Query{Docs: len(q.Labels)}
		if len(q.Labels) > 0 {
			qs[i].Relevance = s / float64(len(q.Labels))
		}
	}
	return qs
}

// ForDataset computes the partition of the prepared dataset in dir (it
// reads only labels and query sizes).
func ForDataset(dir, strategy string, m int, seed uint64) (*Partition, *ingest.Manifest, error) {
	man, err := ingest.ReadManifest(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("partition: %w", err)
	}
	// Load one feature column only: ingest.Load reads every column
	// when given none, and only labels and query sizes are needed.
	ds, err := ingest.Load(dir, []int{1})
	if err != nil {
		return nil, nil, fmt.Errorf("partition: %w", err)
	}
	p, err := Split(strategy, Summaries(ds), m, seed)
	if err != nil {
		return nil, nil, err
	}
	return p, man, nil
}

// WriteArtifact writes p for the dataset in datasetDir (whose content hash
// is datasetHash, the manifest's data_sha256) to its ArtifactPath,
// atomically (temporary file, then rename), and returns the path.
func WriteArtifact(datasetDir, datasetHash string, p *Partition) (string, error) {
	a := Artifact{Schema: ArtifactSchema, Version: ArtifactVersion, DatasetSHA256: datasetHash, Hash: p.Hash(), Partition: *p}
	b, err := json.MarshalIndent(a, "", " ")
	if err != nil {
		return "", fmt.Errorf("partition: encode: %w", err)
	}
	path := ArtifactPath(datasetDir, p.Strategy, p.Silos, p.Seed)
	if err := atomicfile.WriteFile(path, append(b, '\n')); err != nil {
		return "", fmt.Errorf("partition: %w", err)
	}
	return path, nil
}

// ReadArtifact reads a partition artifact and checks its schema, version
// and internal hash.
func ReadArtifact(path string) (*Artifact, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("partition: %w", err)
	}
	var a Artifact
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, fmt.Errorf("partition: %s: %w", path, err)
	}
	if a.Schema != ArtifactSchema || a.Version != ArtifactVersion {
		return nil, fmt.Errorf("partition: %s: schema %q version %d, this build reads %q version %d (re-run prep partition)", path, a.Schema, a.Version, ArtifactSchema, ArtifactVersion)
	}
	if h := a.Partition.Hash(); h != a.Hash {
		return nil, fmt.Errorf("partition: %s: content hash %s does not match the recorded %s (file edited or corrupt; re-run prep partition)", path, h, a.Hash)
	}
	return &a, nil
}
