package reproduce

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/fedbandit/fedbandit/sweeps"
)

// Data says where a data-backed experiment reads its dataset.
type Data struct {
	// Dir is the prepared dataset directory ("": none given).
	Dir string
	// StandIn is true when Dir is the embedded MQ2008 prepared as a
	// stand-in for MSLR-WEB10K: the experiment's stand_in settings
	// apply and its sweep is named as such.
	StandIn bool
}

// StandInSuffix is added to the sweep name of a stand-in run.
const StandInSuffix = " [on MQ2008, stand-in for MSLR-WEB10K]"

// SweepSource returns the shipped sweep file of e.
func (e *Experiment) SweepSource() ([]byte, error) {
	b, err := fs.ReadFile(sweeps.FS, e.Sweep)
	if err != nil {
		return nil, fmt.Errorf("experiment %s: sweep file %s: %w", e.Name, e.Sweep, err)
	}
	return b, nil
}

// SweepFile returns the sweep file of e at scale: the shipped file with
// the scale's settings (none at Paper), and for a data-backed
// experiment the dataset of data (with the stand-in's settings when
// data.StandIn).
func (e *Experiment) SweepFile(scale string, data Data) ([]byte, error) {
	src, err := e.SweepSource()
	if err != nil {
		return nil, err
	}
	var tree map[string]any
	if err := toml.Unmarshal(src, &tree); err != nil {
		return nil, fmt.Errorf("experiment %s: sweep file %s: %w", e.Name, e.Sweep, err)
	}
	if sc, ok := e.Scale[scale]; ok {
		if err := apply(tree, sc.Set); err != nil {
			return nil, fmt.Errorf("experiment %s: scale.%s: %w", e.Name, scale, err)
		}
	} else if scale != PaperScale {
		return nil, fmt.Errorf("experiment %s: no scale %q", e.Name, scale)
	}
	if e.Data == DataMSLR {
		if data.Dir == "" {
			return nil, fmt.Errorf("experiment %s needs a prepared MSLR-WEB10K (or the MQ2008 stand-in)", e.Name)
		}
		set := map[string]any{"instance.dataset": data.Dir}
		if data.StandIn {
			maps.Copy(set, e.StandIn.Set)
			tree["name"] = fmt.Sprint(tree["name"]) + StandInSuffix
		}
		if err := apply(tree, set); err != nil {
			return nil, fmt.Errorf("experiment %s: stand_in: %w", e.Name, err)
		}
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# %s, %s: `run reproduce` at scale %s, from sweeps/%s\n", e.Name, e.Figure, scale, e.Sweep)
	if err := toml.NewEncoder(&buf).Encode(tree); err != nil {
		return nil, fmt.Errorf("experiment %s: %w", e.Name, err)
	}
	return buf.Bytes(), nil
}

// apply sets the keys of set in a sweep file's tree (Scaling.Set).
func apply(tree map[string]any, set map[string]any) error {
	for _, key := range slices.Sorted(maps.Keys(set)) {
		v := set[key]
		head, rest, dotted := strings.Cut(key, ".")
		switch {
		case !dotted && (key == "seeds" || key == "checkpoint_every" || key == "first_seed"):
			tree[key] = v
		case !dotted && key == "instances":
			names, ok := v.([]any)
			if !ok {
				return fmt.Errorf("instances: want a list of instance names")
			}
			tabs, _ := tree["instance"].([]map[string]any)
			var kept []map[string]any
			for _, n := range names {
				i := slices.IndexFunc(tabs, func(t map[string]any) bool { return t["name"] == n })
				if i < 0 {
					return fmt.Errorf("instances: no instance named %v", n)
				}
				kept = append(kept, tabs[i])
			}
			tree["instance"] = kept
		case dotted && head == "grid":
			g, _ := tree["grid"].(map[string]any)
			if g == nil {
				g = map[string]any{}
				tree["grid"] = g
			}
			g[rest] = v
		case dotted && (head == "instance" || head == "algorithm"):
			tabs, _ := tree[head].([]map[string]any)
			if len(tabs) == 0 {
				return fmt.Errorf("%s: the sweep has no [[%s]]", key, head)
			}
			for _, t := range tabs {
				t[rest] = v
			}
		default:
			return fmt.Errorf("key %q: want seeds, first_seed, checkpoint_every, instances, grid.KEY, instance.KEY or algorithm.KEY", key)
		}
	}
	return nil
}
