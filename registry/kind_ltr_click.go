package registry

import (
	"fmt"
	"strings"

	"github.com/fedbandit/fedbandit/features"
	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/ingest"
	"github.com/fedbandit/fedbandit/internal/click"
	"github.com/fedbandit/fedbandit/ltr"
	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/partition"
)

// ltrClickKind is a learning-to-rank dataset played by the linear family
// with clicks for rewards: the contexts are the documents of each silo's
// queries (the ltr kind's learner's view and partition), the reward of a
// document is Bernoulli(P(click | label)) under a click model, with no
// fitted theta* (only `prep ingest`). A linear model of the documents is
// misspecified for these means, as it is for users.
var ltrClickKind = &Kind{
	Name: "ltr-click", Family: FamilyLinear,
	Summary: "a learning-to-rank dataset prepared with `prep ingest`: each silo's users are its queries, the actions their documents, the reward a click (Bernoulli, the click model's probability of the document's label)",
	Keys: []Key{
		{"dataset", "a dataset directory prepared with `prep` (relative to the sweep file; $VARIABLES expanded)"},
		{"features", "the learner's feature set (title, body, all or a column list)"},
		{"click_model", fmt.Sprintf("the click probability per relevance label: one of %s (Hofmann et al. 2013, Oosterhuis & de Rijke 2018; docs/instances.md)", strings.Join(click.Models, ", "))},
		{"strategy", fmt.Sprintf("partition strategy: one of %s (default %s)", strings.Join(partition.Strategies, ", "), partition.Contiguous)},
		{"partition_seed", "seeds the random partition strategy (>= 0, default 0)"},
	},
	Columns: []string{"noise_var", "features", "reward_model", "partition_strategy", "partition_seed"},
	Decode:  decodeLTRClick,
}

type ltrClickTable struct {
	Dataset       string `toml:"dataset"`
	Features      string `toml:"features"`
	ClickModel    string `toml:"click_model"`
	Strategy      string `toml:"strategy"`
	PartitionSeed int64  `toml:"partition_seed"`
}

// ltrClickInstance is a decoded ltr-click instance: its table and the
// dataset's manifest (no documents read yet).
type ltrClickInstance struct {
	t   ltrClickTable
	dir string
	man *ingest.Manifest
}

func decodeLTRClick(table map[string]any, base string) (Instance, error) {
	var t ltrClickTable
	set, err := decodeTable(table, &t)
	if err != nil {
		return nil, tableError(err)
	}
	if !set("strategy") {
		t.Strategy = partition.Contiguous
	}
	if t.Features == "" {
		return nil, &KeyError{Key: "features", Msg: "missing: the learner's feature set (title, body, all, a column list)"}
	}
	if !set("click_model") {
		return nil, &KeyError{Key: "click_model", Msg: fmt.Sprintf("missing: one of %s", strings.Join(click.Models, ", "))}
	}
	dir, man, err := rankedDocuments(t.Dataset, base, t.Strategy, t.PartitionSeed)
	if err != nil {
		return nil, err
	}
	if _, err := features.Resolve(t.Features, man.Features, features.DefaultIntercept); err != nil {
		return nil, &KeyError{Key: "features", Msg: fmt.Sprintf("%v (dataset %s)", err, dir)}
	}
	if _, err := click.Probabilities(t.ClickModel, man.LabelMax); err != nil {
		return nil, &KeyError{Key: "click_model", Msg: fmt.Sprintf("%s (dataset %s)", strings.TrimPrefix(err.Error(), "click_model = "), dir)}
	}
	return &ltrClickInstance{t: t, dir: dir, man: man}, nil
}

func (*ltrClickInstance) Kind() string { return ltrClickKind.Name }
func (*ltrClickInstance) PerM() bool   { return true }

func (c *ltrClickInstance) CheckM(m int) error { return checkQueries(m, c.man.Queries, c.dir) }

func (*ltrClickInstance) Settings(s *federate.Spec) {
	s.Instance, s.Synthetic = federate.InstanceLTR, federate.SyntheticSpec{}
}

// ShareKey: the instances for other M share the documents (ShareData
// compares them before sharing).
func (c *ltrClickInstance) ShareKey() string {
	return fmt.Sprintf("ltr-click\x00%s\x00%s\x00%s", c.t.Dataset, c.t.Features, c.t.ClickModel)
}

// Load reads the partitioned documents and computes their means, the
// click model's probability of each document's label, played as
// Bernoulli rewards.
func (c *ltrClickInstance) Load(m int, env Env) (*Loaded, error) {
	docs, err := env.Documents(ltr.DocOptions{Dataset: c.dir, Features: c.t.Features, Silos: m, Strategy: c.t.Strategy, PartitionSeed: uint64(c.t.PartitionSeed)})
	if err != nil {
		return nil, err
	}
	data := &federate.LTRData{
		Name: docs.Name + " click-" + c.t.ClickModel, Dim: docs.Dim, Silos: docs.Silos,
		Queries: make([]federate.LTRQuery, len(docs.Queries)), Bernoulli: true, R: 1, Crs: 0.1,
		Hash: contentHash("fedbandit/ltr-click/v1", struct{ Documents, ClickModel string }{docs.Hash, c.t.ClickModel}),
	}
	for i, q := range docs.Queries {
		mu, err := click.Means(q.Labels, docs.LabelMax, c.t.ClickModel)
		if err != nil {
			return nil, &KeyError{Key: "dataset", Msg: fmt.Sprintf("%s: query %d: %v", c.dir, i+1, err)}
		}
		data.Queries[i] = federate.LTRQuery{X: q.X, Mu: mu}
	}
	l, err := ltrLoaded(data)
	if err != nil {
		return nil, err
	}
	// The dataset's columns as read, before they become the documents
	// (at most Dim columns: the feature set's and the intercept).
	l.LoadBytes = ingest.LoadBytes(*c.man, docs.Dim)
	return l, nil
}

// Record records the kind's columns: the feature set, the reward model
// ("click-" and the click model), the partition, and no reward noise.
func (c *ltrClickInstance) Record(_ *Loaded, rec *outputs.RunRecord) {
	rec.NoiseVar = outputs.Some(0.0)
	rec.Features, rec.RewardModel = c.t.Features, "click-"+c.t.ClickModel
	rec.PartitionStrategy, rec.PartitionSeed = c.t.Strategy, outputs.Some(uint64(c.t.PartitionSeed))
}
