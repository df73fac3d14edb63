package figure

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/ingest"
	"github.com/fedbandit/fedbandit/outputs"
)

// TestR4_22DatasetIdentityInLabels (attack round 4, R4-22): after a
// dataset is ingested again, the old and the new runs of one mab-ltr
// configuration have descriptions that differ in their data= word
// (ingest.DataTag), and their labels (run table's rows, the legend) show
// that word, the one tag a user sees for a dataset. Runs of one
// description but other contents (what a description does not name)
// are told apart by contentTag, "instance_hash=" and its ShortHash, not
// by another data=; groups whose descriptions differ keep the words
// (U14), with the hash added only where one description has two.
//
// Mutation control (run once): leaving the hash out of the suffixes
// (hashes never counted) gives "SE [c8480e5a]" again and fails here; a
// contentTag saying "data=" or 8 digits fails the "other contents" case.
func TestR4_22DatasetIdentityInLabels(t *testing.T) {
	rec := func(id, hash, desc string) outputs.RunRecord {
		return outputs.RunRecord{RunID: id, GroupID: id, Algorithm: "se", Family: "mab", Instance: "q", InstanceKind: "mab-ltr",
			InstanceHash: hash, InstanceName: desc, T: 1000, Params: map[string]float64{"conf": 0.1, "crs": 1, "growth": 4}}
	}
	old := &ingest.Manifest{DataHash: "3d5aa94f739d0123"}
	again := &ingest.Manifest{DataHash: "9e07b2c4a1b24567"}
	desc := func(m *ingest.Manifest, query int) string {
		return fmt.Sprintf("mab-ltr ds_ml %s query=%d K=6 reward=navigational", ingest.DataTag(m), query)
	}
	runs := []outputs.RunRecord{
		rec("c8480e5a0000", "aaaa11112222", desc(old, 15522)),
		rec("ca1f47d30000", "bbbb33334444", desc(again, 15522)),
	}
	l := Labels(runs)
	if l["c8480e5a0000"] != "SE [data=3d5aa94f739d]" || l["ca1f47d30000"] != "SE [data=9e07b2c4a1b2]" {
		t.Errorf("re-ingested dataset: labels %v", l)
	}

	// One description, other contents: the content hash, named as such.
	const ml = "mab-ltr ds_ml data=3d5aa94f739d query=15522 K=6 reward=navigational"
	runs = []outputs.RunRecord{
		rec("c8480e5a0000", "3d5aa94f1111ffff", ml),
		rec("ca1f47d30000", "9e07b2c42222ffff", ml),
	}
	l = Labels(runs)
	if l["c8480e5a0000"] != "SE [instance_hash=3d5aa94f1111]" || l["ca1f47d30000"] != "SE [instance_hash=9e07b2c42222]" {
		t.Errorf("other contents: labels %v", l)
	}
	// A third group on another query: its words; the two on one query
	// also their contents.
	runs = append(runs, rec("0b0b0b0b0000", "3d5aa94f1111ffff", "mab-ltr ds_ml data=3d5aa94f739d query=10002 K=6 reward=navigational"))
	l = Labels(runs)
	if l["c8480e5a0000"] != "SE [query=15522, instance_hash=3d5aa94f1111]" || l["ca1f47d30000"] != "SE [query=15522, instance_hash=9e07b2c42222]" || l["0b0b0b0b0000"] != "SE [query=10002]" {
		t.Errorf("two queries: labels %v", l)
	}
	// Same description and same contents (they differ elsewhere): group ids.
	runs = runs[:2]
	runs[1].InstanceHash = runs[0].InstanceHash
	l = Labels(runs)
	if l["c8480e5a0000"] != "SE [c8480e5a]" || l["ca1f47d30000"] != "SE [ca1f47d3]" {
		t.Errorf("same data: labels %v", l)
	}
}

// TestR4_22OverInstancesKeepsDatasetsApart: --over instance pools the
// instances whose descriptions differ only in their seed; the runs of one
// description but other contents are not two instances of a class but
// two classes, one panel each, titled by their contentTag.
//
// Mutation control (run once): instanceClasses without the data suffix
// pools them (one panel, 2 instances) and fails here.
func TestR4_22OverInstancesKeepsDatasetsApart(t *testing.T) {
	const ml = "mab-ltr ds_ml query=15522 K=6 reward=navigational"
	var runs []outputs.RunRecord
	var curves []outputs.CurvePoint
	for i, hash := range []string{"3d5aa94f1111", "9e07b2c42222"} {
		for seed := uint64(1); seed <= 2; seed++ {
			id := fmt.Sprintf("r%d%d", i, seed)
			runs = append(runs, outputs.RunRecord{RunID: id, GroupID: fmt.Sprint("g", i), Algorithm: "se", Family: "mab", Instance: "q",
				InstanceKind: "mab-ltr", InstanceHash: hash, InstanceName: ml, Seed: seed, T: 20, Status: outputs.StatusDone,
				Params: map[string]float64{"conf": 0.1, "crs": 1, "growth": 4}})
			for _, round := range []int64{10, 20} {
				curves = append(curves, outputs.Derive(&runs[len(runs)-1], outputs.Point{Round: round, Pseudo: float64(i+1) * float64(round)}))
			}
		}
	}
	panels, err := BuildOverInstances(runs, curves, "pseudo")
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, p := range panels {
		titles = append(titles, p.Title)
		if len(p.Series) != 1 || p.Series[0].Instances != 1 || p.Series[0].N != 2 {
			t.Errorf("panel %q: %d series, first of %d instances and %d runs; want one, 1 instance, 2 runs", p.Title, len(p.Series), p.Series[0].Instances, p.Series[0].N)
		}
	}
	if len(panels) != 2 || !strings.Contains(titles[0], "instance_hash=3d5aa94f1111") || !strings.Contains(titles[1], "instance_hash=9e07b2c42222") {
		t.Errorf("panels %q, want one per dataset content, titled by it", titles)
	}
}
