package registry

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fedbandit/fedbandit/ingest"
	"github.com/fedbandit/fedbandit/internal/click"
	"github.com/fedbandit/fedbandit/mab"
	"github.com/fedbandit/fedbandit/outputs"
)

// rewardLabel is the mab-ltr kind's reward = "label": a document's mean is
// its label / the dataset's maximum label.
const rewardLabel = "label"

var mabLTRKind = &Kind{
	Name: "mab-ltr", Family: FamilyMAB,
	Summary: "the documents of one query of a dataset prepared with `prep` as arms, clicked with their click model's probability (Bernoulli rewards)",
	Keys: []Key{
		{"dataset", "a dataset directory prepared with `prep` (relative to the sweep file; $VARIABLES expanded)"},
		{"query", "the qid of the query whose documents are the arms (at least 2 documents)"},
		{"click_model", fmt.Sprintf("the click probability per relevance label: one of %s (Hofmann et al. 2013, Oosterhuis & de Rijke 2018; docs/mab.md); or give reward", strings.Join(click.Models, ", "))},
		{"reward", fmt.Sprintf("%q: a document's mean is its label / the dataset's maximum label (instead of click_model)", rewardLabel)},
	},
	Columns: []string{"qid", "arms"},
	Decode:  decodeMABLTR,
}

type mabLTRTable struct {
	Dataset    string `toml:"dataset"`
	Query      int64  `toml:"query"`
	ClickModel string `toml:"click_model"`
	Reward     string `toml:"reward"`
}

// mabLTRInstance is a decoded mab-ltr instance: its table and the
// dataset's manifest (no documents read yet).
type mabLTRInstance struct {
	t   mabLTRTable
	dir string
	man *ingest.Manifest
}

func decodeMABLTR(table map[string]any, base string) (Instance, error) {
	var t mabLTRTable
	set, err := decodeTable(table, &t)
	if err != nil {
		return nil, tableError(err)
	}
	dir, man, err := preparedDataset(t.Dataset, base)
	if err != nil {
		return nil, err
	}
	if !set("query") {
		return nil, &KeyError{Key: "query", Msg: fmt.Sprintf("missing: the qid of a query of %s", dir)}
	}
	switch {
	case set("click_model") && set("reward"):
		return nil, &KeyError{Key: "reward", Msg: fmt.Sprintf("give click_model or reward, not both (click_model = %q)", t.ClickModel)}
	case set("click_model"):
		if _, err := click.Probabilities(t.ClickModel, man.LabelMax); err != nil {
			hint := ""
			if errors.Is(err, click.ErrLevels) {
				hint = fmt.Sprintf(" (use reward = %q)", rewardLabel)
			}
			return nil, &KeyError{Key: "click_model", Msg: fmt.Sprintf("%s%s (dataset %s)", strings.TrimPrefix(err.Error(), "click_model = "), hint, dir)}
		}
	case set("reward"):
		if t.Reward != rewardLabel {
			return nil, &KeyError{Key: "reward", Msg: fmt.Sprintf("%q: want %q (or give click_model)", t.Reward, rewardLabel)}
		}
	default:
		return nil, &KeyError{Key: "click_model", Msg: fmt.Sprintf("missing: give click_model (one of %s) or reward = %q", strings.Join(click.Models, ", "), rewardLabel)}
	}
	return &mabLTRInstance{t: t, dir: dir, man: man}, nil
}

func (*mabLTRInstance) Kind() string     { return mabLTRKind.Name }
func (*mabLTRInstance) PerM() bool       { return false }
func (*mabLTRInstance) CheckM(int) error { return nil }
func (*mabLTRInstance) ShareKey() string { return "" }

// Record records the query and the number of arms (the loaded
// instance's Dim: the query's documents), not a dimension.
func (y *mabLTRInstance) Record(l *Loaded, rec *outputs.RunRecord) {
	rec.Dim, rec.Query = nil, outputs.Some(y.t.Query)
	if l != nil {
		rec.Arms = outputs.Some(l.Dim)
	}
}

// model names the reward: the click model, or "label".
func (y *mabLTRInstance) model() string {
	if y.t.ClickModel != "" {
		return y.t.ClickModel
	}
	return rewardLabel
}

// Load reads the dataset's labels (one feature column besides), finds the
// query and turns its documents into arms: a mab.Instance with Bernoulli
// rewards of the click model's (or label's) means.
func (y *mabLTRInstance) Load(_ int, env Env) (*Loaded, error) {
	ds, err := env.Dataset(y.dir, []int{1})
	if err != nil {
		return nil, &KeyError{Key: "dataset", Msg: err.Error()}
	}
	i := slices.IndexFunc(ds.Queries, func(q ingest.Query) bool { return q.QID == y.t.Query })
	if i < 0 {
		lo, hi := ds.Queries[0].QID, ds.Queries[0].QID
		for _, q := range ds.Queries {
			lo, hi = min(lo, q.QID), max(hi, q.QID)
		}
		return nil, &KeyError{Key: "query", Msg: fmt.Sprintf("%d: no query with this qid in %s (%d queries, qids %d..%d)", y.t.Query, y.dir, len(ds.Queries), lo, hi)}
	}
	q := ds.Queries[i]
	if len(q.Labels) < 2 {
		return nil, &KeyError{Key: "query", Msg: fmt.Sprintf("%d: this query of %s has %d document; its documents are the arms and a bandit needs at least 2", y.t.Query, y.dir, len(q.Labels))}
	}
	means, err := click.Means(q.Labels, ds.Manifest.LabelMax, y.t.ClickModel)
	if err != nil {
		return nil, &KeyError{Key: "dataset", Msg: fmt.Sprintf("%s: %v", y.dir, err)}
	}
	if slices.Min(q.Labels) == slices.Max(q.Labels) {
		// mab's own check would name its key means, which mab-ltr has not
		// (R4-17).
		return nil, &KeyError{Key: "query", Msg: fmt.Sprintf("%d: its %d documents all have label %v in %s, so every arm has one mean and regret would be identically 0: choose a query with different labels", y.t.Query, len(q.Labels), q.Labels[0], y.dir)}
	}
	in := mab.DefaultInstance()
	in.Arms, in.Means, in.Reward = 0, means, mab.RewardBernoulli
	if err := in.Validate(); err != nil {
		return nil, keyError(err)
	}
	hash := contentHash("fedbandit/mab-ltr/v1", struct {
		Documents string
		Query     int64
		Model     string
		Instance  mab.Instance
	}{ds.Manifest.DataHash, y.t.Query, y.model(), in})
	name := fmt.Sprintf("mab-ltr %s %s query=%d K=%d reward=%s", filepath.Base(filepath.Clean(y.dir)), ingest.DataTag(&ds.Manifest), y.t.Query, len(means), y.model())
	return &Loaded{Hash: hash, Name: name, Dim: len(means), Actions: float64(len(means)), Value: in}, nil
}
