package figure

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fedbandit/fedbandit/ingest"
	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/registry"
)

// Aggregations: what one curve of a figure averages over.
const (
	// OverSeed (the default) draws one curve per configuration: the mean
	// over its run seeds, with a band of one standard error over seeds.
	OverSeed = "seed"
	// OverInstance draws the mean over instances, as the MAB paper's
	// figures do (their curves are means over 20 random instances): the
	// instances of one class (registry.InstanceClass: the same
	// description but for the seed they are drawn from) are pooled, one
	// panel per class and eps.
	OverInstance = "instance"
)

// Panel is one panel of a figure: its curves on its own axes
// (SavePanels). BuildOverInstances makes one per instance class and eps.
type Panel struct {
	// Title says what sets the panel apart from the others (from
	// BuildOverInstances: the words of its instance class that differ
	// between classes, and eps).
	Title string
	// Row and Col place it in the grid (from BuildOverInstances: the
	// instance class and the eps).
	Row, Col int
	Series   []Series
	// LogX and LogY make its axes logarithmic.
	LogX, LogY bool
}

// BuildOverInstances averages the done runs over instances: a curve is a
// configuration without its seed and its instance, on one instance class.
// At every checkpoint it is the mean over the class's instances of each
// instance's mean over its seeds; SE is the standard error of that mean
// over instances (sample sd of the instance means / sqrt(instances);
// for a curve of one instance, its seeds' mean and standard error), the band of the paper's figures. Series.Instances
// counts the instances, Series.N the runs. A configuration that does not
// use eps (a non-private one) is drawn in every eps panel of its class.
// Runs of one curve with other checkpoints are an error.
func BuildOverInstances(runs []outputs.RunRecord, curves []outputs.CurvePoint, metric string) ([]Panel, error) {
	done, byRun, err := doneRuns(runs, curves, metric)
	if err != nil {
		return nil, err
	}
	classOf := instanceClasses(done)
	type curve struct {
		key, class string
		config     string            // the legend's key: the configuration without instance and eps
		rec        outputs.RunRecord // the first run, labelled without its instance
		eps        string            // "" when the algorithm does not use eps
		instances  map[string][][]outputs.CurvePoint
		order      []string // instances in order of first appearance
	}
	byKey := map[string]*curve{}
	var keys []string
	for _, r := range done {
		c := registry.FromRecord(&r)
		c.Instance, c.InstanceDesc = "", ""
		class := classOf(&r)
		key := class + "\x00" + registry.Label(c)
		c.Eps = 0
		config := registry.Label(c)
		cv := byKey[key]
		if cv == nil {
			cv = &curve{key: key, class: class, config: config, rec: r, instances: map[string][][]outputs.CurvePoint{}}
			if a, err := registry.Lookup(r.Algorithm); err == nil && a.UsesKey("eps") {
				cv.eps = strconv.FormatFloat(outputs.Deref(r.Eps), 'g', -1, 64)
			}
			// The legend names the configuration alone, the same on every
			// instance class: the instance and eps are the panel's.
			cv.rec.GroupID, cv.rec.Instance, cv.rec.InstanceName, cv.rec.Eps = config, "", "", nil
			byKey[key] = cv
			keys = append(keys, key)
		}
		inst := r.InstanceHash
		if inst == "" {
			inst = r.InstanceName
		}
		if _, ok := cv.instances[inst]; !ok {
			cv.order = append(cv.order, inst)
		}
		cv.instances[inst] = append(cv.instances[inst], byRun[r.RunID])
	}
	var recs []outputs.RunRecord
	seen := map[string]bool{}
	for _, k := range keys {
		if cv := byKey[k]; !seen[cv.config] {
			seen[cv.config] = true
			recs = append(recs, cv.rec)
		}
	}
	byConfig := Labels(recs)
	labels := map[string]string{}
	for _, k := range keys {
		labels[k] = byConfig[byKey[k].config]
	}

	series := map[string]Series{}
	for _, k := range keys {
		cv := byKey[k]
		first := cv.instances[cv.order[0]][0]
		s := Series{GroupID: k, Label: labels[k], Instances: len(cv.order), Algorithm: cv.rec.Algorithm}
		instMeans := make([]float64, len(cv.order))
		for i, p := range first {
			for j, inst := range cv.order {
				var sum float64
				for _, run := range cv.instances[inst] {
					if len(run) != len(first) || run[i].Round != p.Round {
						return nil, fmt.Errorf("figure: runs of %s have different checkpoints (run %s)", labels[k], run[0].RunID)
					}
					sum += value(run[i], metric)
				}
				instMeans[j] = sum / float64(len(cv.instances[inst]))
			}
			m, se := meanSE(instMeans)
			if len(cv.order) == 1 {
				// One instance: the band is over its seeds.
				runs := cv.instances[cv.order[0]]
				vals := make([]float64, len(runs))
				for j, run := range runs {
					vals[j] = value(run[i], metric)
				}
				m, se = meanSE(vals)
			}
			s.Rounds = append(s.Rounds, float64(p.Round))
			s.Mean = append(s.Mean, m)
			s.SE = append(s.SE, se)
		}
		for _, inst := range cv.order {
			s.N += len(cv.instances[inst])
		}
		series[k] = s
	}
	// The curves in legend order; each keeps its style in every panel.
	slices.SortFunc(keys, func(a, b string) int {
		return legendOrder(byKey[a].rec.Algorithm, labels[a], a, byKey[b].rec.Algorithm, labels[b], b)
	})

	// Panels: one per class (rows, in the natural order of their first
	// instance names: "easy0" before "hard0") and eps (columns, ascending).
	var classes []string
	firstName := map[string]string{}
	epsOf := map[string]map[string]bool{}
	var allEps []string
	for _, k := range keys {
		cv := byKey[k]
		if epsOf[cv.class] == nil {
			epsOf[cv.class] = map[string]bool{}
		}
		if cv.eps != "" {
			epsOf[cv.class][cv.eps] = true
			if !contains(allEps, cv.eps) {
				allEps = append(allEps, cv.eps)
			}
		}
	}
	for _, r := range done {
		c := classOf(&r)
		if !contains(classes, c) {
			classes = append(classes, c)
			firstName[c] = r.Instance
		} else if naturalCompare(r.Instance, firstName[c]) < 0 {
			firstName[c] = r.Instance
		}
	}
	slices.SortFunc(classes, func(a, b string) int {
		return cmp.Or(naturalCompare(firstName[a], firstName[b]), strings.Compare(a, b))
	})
	slices.SortFunc(allEps, func(a, b string) int {
		x, _ := strconv.ParseFloat(a, 64)
		y, _ := strconv.ParseFloat(b, 64)
		return cmp.Compare(x, y)
	})
	titles := classTitles(classes)
	var panels []Panel
	for row, class := range classes {
		cols := []string{""}
		if len(epsOf[class]) > 0 {
			cols = nil
			for _, e := range allEps {
				if epsOf[class][e] {
					cols = append(cols, e)
				}
			}
		}
		for _, e := range cols {
			col := 0
			var title []string
			if titles[class] != "" {
				title = append(title, titles[class])
			}
			if e != "" {
				col = indexOf(allEps, e)
				title = append(title, "eps="+e)
			}
			p := Panel{Title: strings.Join(title, ", "), Row: row, Col: col}
			for _, k := range keys {
				cv := byKey[k]
				if cv.class == class && (cv.eps == e || cv.eps == "") {
					p.Series = append(p.Series, series[k])
				}
			}
			panels = append(panels, p)
		}
	}
	AssignVariants(panels)
	return panels, nil
}

// classTitles names each instance class by its words that are not common
// to all classes ("gap=0.5"); "" when there is one class.
func classTitles(classes []string) map[string]string {
	count := map[string]int{}
	for _, c := range classes {
		for _, w := range strings.Fields(c) {
			count[w]++
		}
	}
	out := map[string]string{}
	for _, c := range classes {
		var ws []string
		for _, w := range strings.Fields(c) {
			if count[w] < len(classes) {
				ws = append(ws, w)
			}
		}
		out[c] = strings.Join(ws, " ")
	}
	return out
}

func contains(xs []string, x string) bool { return indexOf(xs, x) >= 0 }

func indexOf(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}

// value is the plotted metric of a checkpoint (doneRuns kept only the
// runs that produce it).
func value(c outputs.CurvePoint, metric string) float64 {
	m, _ := outputs.LookupMetric(metric)
	v, _ := m.Value(&c)
	return v
}

// doneRuns are the done runs that have a curve holding the metric, and
// the curves by run. Done runs that all lack the metric are an error
// naming the families that produce it.
func doneRuns(runs []outputs.RunRecord, curves []outputs.CurvePoint, metric string) ([]outputs.RunRecord, map[string][]outputs.CurvePoint, error) {
	m, err := outputs.LookupMetric(metric)
	if err != nil {
		return nil, nil, fmt.Errorf("figure: %w", err)
	}
	byRun := map[string][]outputs.CurvePoint{}
	for _, c := range curves {
		byRun[c.RunID] = append(byRun[c.RunID], c)
	}
	var done []outputs.RunRecord
	lacking := false
	for _, r := range runs {
		if c := byRun[r.RunID]; r.Status == outputs.StatusDone && len(c) > 0 {
			if _, ok := m.Value(&c[0]); !ok {
				lacking = true
				continue
			}
			done = append(done, r)
		}
	}
	if len(done) == 0 && lacking {
		return nil, nil, fmt.Errorf("figure: no done run here has metric %s: %s", m.Name, m.LackingText(runs, curves))
	}
	return done, byRun, nil
}

// instanceClasses returns the instance class of a run of runs: the
// instances whose descriptions differ only in their seed
// (registry.InstanceClass). Instances of one description but other
// contents (contentTag) are not seeds of one class: each is a class of
// its own, its name followed by its contentTag.
func instanceClasses(runs []outputs.RunRecord) func(r *outputs.RunRecord) string {
	hashes := contents{}
	for _, r := range runs {
		hashes.add(r.InstanceName, r.InstanceHash)
	}
	return func(r *outputs.RunRecord) string {
		c := registry.InstanceClass(r.InstanceName)
		if hashes.varied(r.InstanceName) {
			c += " " + contentTag(r.InstanceHash)
		}
		return c
	}
}

// contents are the instance content hashes seen per instance
// description.
type contents map[string]map[string]bool

// add records an instance of description desc and content hash hash.
func (c contents) add(desc, hash string) {
	if c[desc] == nil {
		c[desc] = map[string]bool{}
	}
	c[desc][hash] = true
}

// varied reports whether instances of description desc have more than
// one content (contentTag).
func (c contents) varied(desc string) bool { return len(c[desc]) > 1 }

// contentTag tells apart, in titles and legends, instances of one
// description but other contents: "instance_hash=" and the ShortHash of
// runs.arrow's instance_hash column (the form every content hash is
// shown in). Not "data=": that word of a description names a dataset's
// identity (ingest.DataTag), which a data-backed kind's description
// already carries, so a dataset ingested again gives another
// description; what remains are contents a description does not name,
// e.g. an ltr instance's theta* fitted again on the same data.
func contentTag(hash string) string { return "instance_hash=" + ingest.ShortHash(hash) }
