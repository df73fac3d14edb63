package ingest_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/fedbandit/fedbandit/datasets/mq2008"
	"github.com/fedbandit/fedbandit/ingest"
)

// Ingest the real LETOR 4.0 MQ2008 partitions S1..S5 (a LETOR 4.0 directory
// layout) and load two feature columns back as per-query matrices.
func Example() {
	tmp, err := os.MkdirTemp("", "ingest-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, "MQ2008")
	if _, err := mq2008.Extract(src); err != nil {
		log.Fatal(err)
	}
	dataset := filepath.Join(tmp, "mq2008")
	m, err := ingest.Run(context.Background(), ingest.Options{Inputs: []string{src}, Out: dataset})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.Format, m.Rows, "rows,", m.Queries, "queries,", m.Features, "features, labels", m.LabelHistogram)

	ds, err := ingest.Load(dataset, []int{1, 46})
	if err != nil {
		log.Fatal(err)
	}
	q := ds.Queries[0]
	rows, cols := q.X.Dims()
	fmt.Printf("query %d (%s): %d documents x %d features; first: label %v, f1 %v, f46 %v\n",
		q.QID, q.Part, rows, cols, q.Labels[0], q.X.At(0, 0), q.X.At(0, 1))
	// Output:
	// letor4 15211 rows, 784 queries, 46 features, labels [12279 2001 931]
	// query 10002 (S1): 8 documents x 2 features; first: label 0, f1 0.007477, f46 0.007042
}

// Read the manifest of a prepared dataset without loading any data.
func ExampleReadManifest() {
	tmp, err := os.MkdirTemp("", "ingest-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	in := filepath.Join(tmp, "train.txt")
	os.WriteFile(in, []byte("2 qid:1 1:0.5 2:3\r\n0 qid:1 1:0 2:1\r\n1 qid:2 1:1 2:2\r\n"), 0o644)
	if _, err := ingest.Run(context.Background(), ingest.Options{Inputs: []string{in}, Out: filepath.Join(tmp, "ds")}); err != nil {
		log.Fatal(err)
	}
	m, err := ingest.ReadManifest(filepath.Join(tmp, "ds"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.Rows, m.Queries, m.LabelHistogram, m.DocsPerQuery, m.FeatureStats[1])
	// Output:
	// 3 2 [1 1 1 0 0] {1 1.5 2} {2 1 3 2 0}
}

// Generate a small MSLR-WEB10K-shaped file.
func ExampleSynth() {
	f, err := os.CreateTemp("", "synth-*.txt")
	if err != nil {
		log.Fatal(err)
	}
	defer os.Remove(f.Name())
	if err := ingest.Synth(f, ingest.SynthOptions{Seed: 7, Queries: 20}); err != nil {
		log.Fatal(err)
	}
	f.Close()
	dataset, _ := os.MkdirTemp("", "synth-ds")
	defer os.RemoveAll(dataset)
	m, err := ingest.Run(context.Background(), ingest.Options{Inputs: []string{f.Name()}, Out: filepath.Join(dataset, "ds")})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.Format, m.Queries, "queries,", m.Features, "features, max docs per query", m.DocsPerQuery.Max)
	// Output:
	// mslr-web 20 queries, 136 features, max docs per query 908
}
