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
)

// pinnedIDs are, per shipped sweep, the first run id and the SHA-256 of
// every "id group-id" line in plan order, computed before JSON names were
// pinned on federate.Spec (the same at commit dd1c443): results of finished sweeps stay
// reusable only while these hold. The MSLR sweeps use a stand-in instance
// whose hash is "h" + the feature set, so only the spec part is pinned.
// An intentional change of run identity bumps outputs.FormatVersion and
// these values together.
var pinnedIDs = map[string][2]string{
	"fig2a.toml": {"00e8422180bf6157449526389604e1a0a9de7b0c9a1dc00f95793f5037bd2207", "0fee405ac24f4178ef1c4fd2179d7352fcf30710d10940b690a3bd149da9437a"},
	"fig2c.toml": {"00e13a63bdf5c2fc872a1edabfd2572864302d16989c76a95ee35ed255b48887", "274af18563f93132712ac5902d3a8119154ec7497082fef91b067f79e4442d31"},
	"fig3a.toml": {"07ce979c7e18b25a91247033e88e61b7ae2dcfde1e9ae2014b5202166ce29db9", "1c52fb03f27dcd2ca739017d4fe384531932043eaa4f795b35bc34112d0956ff"},
	"fig3b.toml": {"016ce37b0df3d4453bb3abe473ef9f1fe606f33b00a98c1ef8dfa92452c0dfe2", "0c55e9c64f81ee39e9a5a75d3b97a955506fb7706e78f3f1f165c1bf951bd34d"},
	"fig3c.toml": {"013e3584f7d2258de75610db1e4b8a27db6240d942730e47bd9a4871f88de077", "a20a83fdcfc24adf2210c97b4db3dfd1e66af6ee611e9e7f46d5b2bbd520bcfa"},
	"fig3d.toml": {"006f88bac4af48a5909a675f7ba7f5e3b37fc7efd1ec74d9256937df3f8fd7f3", "a34b4252c3c562fb17104d059f0f6284c78b051bbfab9ecf617899fcf616b790"},
}

// TestRunIDsPinned recomputes the run ids of every shipped sweep.
func TestRunIDsPinned(t *testing.T) {
	build := standInMSLR(t)
	files, _ := filepath.Glob(filepath.Join("..", "sweeps", "*.toml"))
	for _, f := range files {
		name := filepath.Base(f)
		cfg, err := LoadConfig(f)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := NewPlan(cfg, build)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		for _, r := range plan.Runs {
			fmt.Fprintf(h, "%s %s\n", r.ID, r.GroupID)
		}
		got := [2]string{plan.Runs[0].ID, hex.EncodeToString(h.Sum(nil))}
		if os.Getenv("FEDBANDIT_PRINT_IDS") != "" {
			fmt.Printf("\t%q: {%q, %q},\n", name, got[0], got[1])
			continue
		}
		if want, ok := pinnedIDs[name]; !ok || got != want {
			t.Errorf("%s: run ids changed: first %s, digest %s; want %v (a change orphans every finished sweep: see the comment on pinnedIDs)", name, got[0], got[1], want)
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
