package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/registry"
)

// printIDs is the command that prints the run-id pins of every shipped
// sweep in the form of its pins file (first_id, digest); a pin test that
// fails names it.
const printIDs = "FEDBANDIT_PRINT_IDS=1 go test ./runner -run 'TestRunIDsPinned' -count=1 -v"

// TestRunIDsPinned recomputes the run ids of every shipped sweep (sweeps/
// and the variants docs/ ships), whatever its family, against the pins
// beside it (NAME.pins: first_id, the first run's id, and digest, the
// SHA-256 of every "id group-id" line in plan order). Results of finished
// sweeps stay reusable only while these hold: an intentional change of
// run identity bumps SemanticsVersion and the pins together (sweeps/README.md,
// "Pins"). The MSLR sweeps use a stand-in instance whose hash is made of
// the loader's options (standInHash), so only the spec part is pinned.
func TestRunIDsPinned(t *testing.T) {
	build := standInMSLR(t)
	load := standInMQ2008(t)
	families := map[string]bool{}
	for _, f := range shippedSweeps(t) {
		cfg, err := LoadConfig(f)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := NewPlan(cfg, registry.Env{BuildLTR: build, LoadDataset: load, LoadDocuments: standInDocuments})
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		for _, r := range plan.Runs {
			fmt.Fprintf(h, "%s %s\n", r.ID, r.GroupID)
			if a, err := registry.Lookup(r.Algorithm()); err == nil {
				families[a.Family] = true
			}
		}
		first, digest := plan.Runs[0].ID, hex.EncodeToString(h.Sum(nil))
		if os.Getenv("FEDBANDIT_PRINT_IDS") != "" {
			fmt.Printf("%s:\nfirst_id = %q\ndigest = %q\n", pinsPath(f), first, digest)
			continue
		}
		pins, err := readPins(f, false)
		if err != nil {
			t.Error(err)
			continue
		}
		if first != pins.FirstID || digest != pins.Digest {
			t.Errorf("%s: run ids changed: first %s, digest %s; want %s, %s (%s). A change orphans every finished sweep (sweeps/README.md, \"Pins\"); a new sweep, or an intended change with SemanticsVersion bumped, is pinned by pasting the lines `%s` prints", f, first, digest, pins.FirstID, pins.Digest, pinsPath(f), printIDs)
		}
	}
	for _, f := range []string{registry.FamilyLinear, registry.FamilyMAB, registry.FamilyBCO} {
		if !families[f] {
			t.Errorf("no shipped sweep of the %s family is pinned", f)
		}
	}
}

// v1SpecFields are the fields of federate.Spec and SyntheticSpec that
// entered run ids before JSON names were pinned; they are encoded without
// omitempty. Every other field must be omitempty.
var v1SpecFields = []string{
	"Spec.Instance", "Spec.Synthetic", "Spec.LTR", "Spec.Algorithm", "Spec.Protocol", "Spec.Lazy", "Spec.Preset",
	"Spec.Eps", "Spec.Delta", "Spec.Relation", "Spec.M", "Spec.T", "Spec.B", "Spec.Alpha", "Spec.Every", "Spec.Seed",
	"Spec.Calib", "Spec.R", "Spec.Crs", "Spec.GramNoise", "Spec.RewardLo", "Spec.RewardHi", "Spec.NoClip",
	"SyntheticSpec.D", "SyntheticSpec.K", "SyntheticSpec.NoiseVar", "SyntheticSpec.FixedBasis", "SyntheticSpec.Seed",
	"SyntheticSpec.SharedContexts", "SyntheticSpec.ContextGen",
}

// TestSpecJSONTags: every field of the structs that enter run ids has an
// explicit JSON name; the v1 fields keep their names without omitempty
// (in their original order), and any newer field is omitempty, so that its
// zero value changes no existing id.
func TestSpecJSONTags(t *testing.T) {
	var seen []string
	for _, typ := range []reflect.Type{reflect.TypeFor[federate.Spec](), reflect.TypeFor[federate.SyntheticSpec]()} {
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			if !f.IsExported() {
				continue
			}
			key := typ.Name() + "." + f.Name
			tag, ok := f.Tag.Lookup("json")
			if !ok {
				t.Errorf("%s has no json tag", key)
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if slices.Contains(v1SpecFields, key) {
				seen = append(seen, key)
				if name != f.Name || opts != "" {
					t.Errorf("%s: json tag %q, want %q (a v1 field keeps its name, without omitempty)", key, tag, f.Name)
				}
			} else if !strings.Contains(opts, "omitempty") {
				t.Errorf("%s: json tag %q lacks omitempty: its zero value would change every existing run id", key, tag)
			}
		}
	}
	if !slices.Equal(seen, v1SpecFields) {
		t.Errorf("v1 fields in declaration order %v, want %v (removing or reordering one changes every id)", seen, v1SpecFields)
	}
}

// TestLinearLabelsAsBefore: the group label of every linear run of the
// shipped sweeps, made from its compiled RunSpec (registry.FromRunSpec),
// is the label of its federate.Spec (registry.FromSpec), as before the one
// run model: runs.arrow's group column and the legends keep their text.
func TestLinearLabelsAsBefore(t *testing.T) {
	build := standInMSLR(t)
	files, _ := filepath.Glob(filepath.Join("..", "sweeps", "*.toml"))
	n := 0
	for _, f := range files {
		for _, r := range planFile(t, f, build).Runs {
			s, ok := registry.NativeLinear(r.Spec)
			if !ok {
				continue
			}
			n++
			if want := registry.Label(registry.FromSpec(s, r.Instance.Config.Name, r.Instance.Name)); r.Group != want {
				t.Fatalf("%s: group %q, want %q", f, r.Group, want)
			}
		}
	}
	if n == 0 {
		t.Fatal("no linear run")
	}
}
