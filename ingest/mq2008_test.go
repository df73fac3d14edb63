package ingest

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fedbandit/fedbandit/datasets/mq2008"
)

// ingestMQ2008 ingests the embedded real MQ2008 partitions (as a LETOR 4.0
// directory) into a fresh dataset directory.
func ingestMQ2008(t *testing.T) (string, *Manifest) {
	t.Helper()
	src := t.TempDir()
	if _, err := mq2008.Extract(src); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "mq2008")
	m, err := Run(context.Background(), Options{Inputs: []string{src}, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	return out, m
}

func TestMQ2008Complete(t *testing.T) {
	out, m := ingestMQ2008(t)
	if m.Rows != 15211 || m.Queries != 784 || m.Features != 46 {
		t.Fatalf("rows/queries/features = %d/%d/%d, want 15211/784/46", m.Rows, m.Queries, m.Features)
	}
	if want := []int64{12279, 2001, 931}; !slices.Equal(m.LabelHistogram, want) {
		t.Fatalf("label histogram %v, want %v", m.LabelHistogram, want)
	}
	if m.Format != FormatLETOR4 || m.LabelMax != 2 {
		t.Errorf("format %q label max %d, want letor4 / 2", m.Format, m.LabelMax)
	}
	wantParts := []PartStats{{"S1", 2933, 157}, {"S2", 3635, 157}, {"S3", 3062, 157}, {"S4", 2707, 157}, {"S5", 2874, 156}}
	if !slices.Equal(m.Parts, wantParts) {
		t.Errorf("parts %v, want %v", m.Parts, wantParts)
	}
	wantSHA := []string{
		"cbd42504549a2388f6c0aefdb506f22074225b574c7a5df10194174c9b00e4e0",
		"055ac792cb8f7d5a029090b8acbfb6c57323339d1371251bf2465ac182aa8605",
		"a03fe2b6e76479de60fecdb37d560a40a4e899b0cd685553d2da31ea205af1ab",
		"a239850bc6fe960ad08c2b7b0d99db90fe976dd93a15358e98036591b4e7a2ac",
		"c68c52feb1ecae7f17b64c8e2fda2098302681bbd4ea5fad8c73a1d32a1cf2b2",
	}
	for i, s := range m.Sources {
		if s.SHA256 != wantSHA[i] {
			t.Errorf("source %d sha256 %s, want %s", i, s.SHA256, wantSHA[i])
		}
	}
	wantComments := []CommentColumn{{"docid", "string"}, {"inc", "double"}, {"prob", "double"}}
	if !slices.Equal(m.CommentColumns, wantComments) {
		t.Errorf("comment columns %v, want %v", m.CommentColumns, wantComments)
	}
	if m.DocsPerQuery.Min < 1 || m.DocsPerQuery.Max > 200 {
		t.Errorf("docs per query %+v", m.DocsPerQuery)
	}
	ds, err := Load(out, []int{1, 46})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Queries) != 784 || ds.Rows() != 15211 {
		t.Fatalf("loaded %d queries %d rows", len(ds.Queries), ds.Rows())
	}
	q := ds.Queries[0]
	// First line of S1.txt: "0 qid:10002 1:0.007477 ... 46:0.007042 #docid = GX008-86-4444840 ..."
	if q.QID != 10002 || q.Part != "S1" || q.Labels[0] != 0 || q.X.At(0, 0) != 0.007477 || q.X.At(0, 1) != 0.007042 {
		t.Errorf("first row: qid %d part %s label %v x %v %v", q.QID, q.Part, q.Labels[0], q.X.At(0, 0), q.X.At(0, 1))
	}
	last := ds.Queries[len(ds.Queries)-1]
	if last.Part != "S5" {
		t.Errorf("last part %s", last.Part)
	}
}
