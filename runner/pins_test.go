package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// sweepPins is what the tests expect of one shipped sweep file, read from
// the file beside it: NAME.pins for NAME.toml, in sweeps/ or docs/
// (sweeps/README.md, "Pins"). A new shipped sweep is its file and its
// pins, and no Go edit.
type sweepPins struct {
	Runs int // the plan's runs
	// M and T of every run (0: the sweep grids over it, or the family has
	// no M), the settings of its linear runs (certified: the exact
	// preset, clamped, lazy where needed; else the published code's) and
	// its runs per algorithm: required in sweeps/, absent in docs/ (whose
	// variants are checked by their number of runs).
	M, T       *int
	Certified  *bool
	Algorithms map[string]int
	// FirstID and Digest pin the run ids: the first run's id and the
	// SHA-256 of every "id group-id" line in plan order (TestRunIDsPinned).
	FirstID string `toml:"first_id"`
	Digest  string
}

// pinsPath is the pins file of sweep file f.
func pinsPath(f string) string { return strings.TrimSuffix(f, ".toml") + ".pins" }

// readPins reads the pins of sweep file f; full asks for the keys a
// sweep of sweeps/ must state. Every key is required (an absent one is
// an error naming it, never a zero) and an unknown key is an error.
func readPins(f string, full bool) (sweepPins, error) {
	var p sweepPins
	path := pinsPath(f)
	md, err := toml.DecodeFile(path, &p)
	if errors.Is(err, fs.ErrNotExist) {
		return p, fmt.Errorf("%s: no pins beside it (%s): write its runs, M, T, certified and runs per algorithm there (sweeps/README.md, \"Pins\"), and its run ids (`%s` prints them)", f, path, printIDs)
	}
	if err != nil {
		return p, err
	}
	if u := md.Undecoded(); len(u) > 0 {
		return p, fmt.Errorf("%s: unknown key %s", path, u[0])
	}
	need := []string{"runs", "first_id", "digest"}
	if full {
		need = append(need, "M", "T", "certified", "algorithms")
	}
	for _, k := range need {
		if !md.IsDefined(k) {
			return p, fmt.Errorf("%s: key %s missing", path, k)
		}
	}
	return p, nil
}

// shippedSweeps lists the shipped sweep files: sweeps/*.toml and the
// variants docs/ ships beside its write-ups. A pins file without its
// sweep is an error of the test.
func shippedSweeps(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, dir := range []string{"sweeps", "docs"} {
		fs, _ := filepath.Glob(filepath.Join("..", dir, "*.toml"))
		files = append(files, fs...)
		pins, _ := filepath.Glob(filepath.Join("..", dir, "*.pins"))
		for _, p := range pins {
			if f := strings.TrimSuffix(p, ".pins") + ".toml"; !slices.Contains(fs, f) {
				t.Errorf("%s: pins of no sweep (%s is missing)", p, f)
			}
		}
	}
	return files
}

// TestReadPinsStrict: a pins file with a key missing, an unknown key or
// no file at all is an error naming the file and the key.
func TestReadPinsStrict(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "x.toml")
	full := "runs = 1\nM = 0\nT = 5\ncertified = true\nalgorithms = { se = 1 }\nfirst_id = \"a\"\ndigest = \"b\"\n"
	for _, tc := range []struct{ text, want string }{
		{"", "no pins beside it"},
		{strings.Replace(full, "M = 0\n", "", 1), "key M missing"},
		{strings.Replace(full, "runs = 1\n", "", 1), "key runs missing"},
		{full + "run = 2\n", "unknown key run"},
	} {
		os.Remove(pinsPath(f))
		if tc.text != "" {
			os.WriteFile(pinsPath(f), []byte(tc.text), 0o644)
		}
		if _, err := readPins(f, true); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "x.") {
			t.Errorf("%q: error %v, want %q naming the file", tc.text, err, tc.want)
		}
	}
	os.WriteFile(pinsPath(f), []byte(full), 0o644)
	p, err := readPins(f, true)
	if err != nil || p.Runs != 1 || *p.M != 0 || *p.T != 5 || !*p.Certified || p.Algorithms["se"] != 1 || p.FirstID != "a" || p.Digest != "b" {
		t.Errorf("%+v, %v", p, err)
	}
}
