package registry

import (
	"fmt"
	"path/filepath"

	"github.com/fedbandit/fedbandit/bco"
	"github.com/fedbandit/fedbandit/features"
	"github.com/fedbandit/fedbandit/ingest"
	"github.com/fedbandit/fedbandit/outputs"
)

var bcoLTRKind = &Kind{
	Name: "bco-ltr", Family: FamilyBCO,
	Summary: "online least squares on the documents of a dataset prepared with `prep`: each user brings one document (x, y) and suffers the loss of <x, w> - y (docs/bco.md)",
	Keys: []Key{
		{"dataset", "a dataset directory prepared with `prep` (relative to the sweep file; $VARIABLES expanded)"},
		{"features", "the feature set of x, as the ltr kind's (all, title, body or a column list); x is its learner's view (unit norm, intercept 0.01 first)"},
		{"radius", "radius R of the ball w lives in (default 1; 1e-8 to 1e100: the targets do not scale with R, so a smaller ball's regret is rounding noise)"},
		{"loss", fmt.Sprintf("%q ((<x, w> - y)^2 / 2) or %q (|<x, w> - y|); no default", bco.LossSquared, bco.LossAbsolute)},
		{"order", fmt.Sprintf("the order the documents arrive in: %q (default: a permutation drawn from seed, a fresh one per pass) or %q (the dataset's, repeated)", bco.OrderShuffled, bco.OrderDataset)},
		{"seed", "draws the shuffled order (>= 0, default 0; only with order = \"shuffled\")"},
	},
	Columns: []string{"features", "instance_seed"},
	Decode:  decodeBCOLTR,
}

type bcoLTRTable struct {
	Dataset  string  `toml:"dataset"`
	Features string  `toml:"features"`
	Radius   float64 `toml:"radius"`
	Loss     string  `toml:"loss"`
	Order    string  `toml:"order"`
	Seed     int64   `toml:"seed"`
}

// bcoLTRInstance is a decoded bco-ltr instance: the table, the resolved
// feature set and the dataset's manifest (no documents read yet).
type bcoLTRInstance struct {
	t   bcoLTRTable
	dir string
	set features.Set
	man *ingest.Manifest
}

func decodeBCOLTR(table map[string]any, base string) (Instance, error) {
	var t bcoLTRTable
	set, err := decodeTable(table, &t)
	if err != nil {
		return nil, tableError(err)
	}
	if !set("radius") {
		t.Radius = 1
	}
	if !set("order") {
		t.Order = bco.OrderShuffled
	}
	if !set("loss") {
		return nil, &KeyError{Key: "loss", Msg: fmt.Sprintf("missing: want %q or %q", bco.LossSquared, bco.LossAbsolute)}
	}
	if t.Seed < 0 {
		return nil, &KeyError{Key: "seed", Msg: fmt.Sprintf("%d, want a seed >= 0", t.Seed)}
	}
	if set("seed") && t.Order != bco.OrderShuffled {
		return nil, &KeyError{Key: "seed", Msg: fmt.Sprintf("only with order = %q (order = %q uses no seed)", bco.OrderShuffled, t.Order)}
	}
	// The family's rules, on a placeholder of one document (the data is
	// read by Load).
	probe := bco.LTRInstance{Data: &bco.LTRData{D: 1, X: []float64{1}, Y: []float64{0}}, Radius: t.Radius, Loss: t.Loss, Order: t.Order}
	if err := probe.Validate(); err != nil {
		return nil, keyError(err)
	}
	dir, man, err := preparedDataset(t.Dataset, base)
	if err != nil {
		return nil, err
	}
	if !set("features") {
		return nil, &KeyError{Key: "features", Msg: "missing: a feature set (all, title, body or a column list such as \"1-5,7\")"}
	}
	fs, err := features.Resolve(t.Features, man.Features, features.DefaultIntercept)
	if err != nil {
		return nil, &KeyError{Key: "features", Msg: fmt.Sprintf("%v (dataset %s)", err, dir)}
	}
	if man.LabelMax < 1 {
		return nil, &KeyError{Key: "dataset", Msg: fmt.Sprintf("%s: maximum label %d, need at least 1", dir, man.LabelMax)}
	}
	return &bcoLTRInstance{t: t, dir: dir, set: fs, man: man}, nil
}

func (*bcoLTRInstance) Kind() string     { return bcoLTRKind.Name }
func (*bcoLTRInstance) PerM() bool       { return false }
func (*bcoLTRInstance) CheckM(int) error { return nil }
func (*bcoLTRInstance) ShareKey() string { return "" }

// Record fills the feature set (the column the ltr kind fills too) and,
// for a shuffled order, the seed that draws it.
func (y *bcoLTRInstance) Record(_ *Loaded, rec *outputs.RunRecord) {
	rec.Features = y.set.ID()
	if y.t.Order == bco.OrderShuffled {
		rec.InstanceSeed = outputs.Some(uint64(y.t.Seed))
	}
}

// Load reads the feature set's columns and the labels: every document's
// learner's view x (unit norm) and target y = label / the dataset's
// maximum label, in the dataset's order.
func (y *bcoLTRInstance) Load(_ int, env Env) (*Loaded, error) {
	ds, err := env.Dataset(y.dir, y.set.Columns)
	if err != nil {
		return nil, &KeyError{Key: "dataset", Msg: err.Error()}
	}
	loc, err := y.set.Locate(ds)
	if err != nil {
		return nil, &KeyError{Key: "features", Msg: err.Error()}
	}
	d := y.set.Dim()
	n := ds.Rows()
	data := &bco.LTRData{D: d, X: make([]float64, n*d), Y: make([]float64, 0, n)}
	off := 0
	for qi := range ds.Queries {
		q := &ds.Queries[qi]
		y.set.QueryRows(q, loc, true, data.X[off*d:(off+len(q.Labels))*d])
		for _, l := range q.Labels {
			data.Y = append(data.Y, l/float64(ds.Manifest.LabelMax))
		}
		off += len(q.Labels)
	}
	in := bco.LTRInstance{Data: data, Radius: y.t.Radius, Loss: y.t.Loss, Order: y.t.Order, Seed: uint64(y.t.Seed)}
	if err := in.Validate(); err != nil {
		return nil, keyError(err)
	}
	hash := contentHash("fedbandit/bco-ltr/v1", struct {
		Documents string
		Features  features.Set
		Instance  bco.LTRInstance
	}{ds.Manifest.DataHash, y.set, in})
	name := fmt.Sprintf("bco-ltr %s %s %s d=%d docs=%d loss=%s R=%g order=%s", filepath.Base(filepath.Clean(y.dir)), ingest.DataTag(&ds.Manifest), y.set.ID(), d, n, in.Loss, in.Radius, in.Order)
	if in.Order == bco.OrderShuffled {
		name += fmt.Sprintf(" seed=%d", in.Seed)
	}
	return &Loaded{Hash: hash, Name: name, Dim: d, Actions: 1, Bytes: int64(len(data.X)+len(data.Y)) * 8,
		LoadBytes: ingest.LoadBytes(ds.Manifest, len(ds.Columns)), Value: in}, nil
}

// bcoLTRSpec is the family's spec of a run on a bco-ltr instance: the
// header as bcoSpec fills it.
func bcoLTRSpec(rs RunSpec, in bco.LTRInstance) bco.LTRSpec {
	h := bcoHeader(rs)
	return bco.LTRSpec{Algorithm: h.Algorithm, Instance: in, Params: h.Params, Eps: h.Eps, Delta: h.Delta,
		M: h.M, B: h.B, T: h.T, Every: h.Every, Seed: h.Seed}
}
