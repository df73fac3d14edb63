package runner

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// TestR3_K3SeedsAndGridBounded (attack round 3, case K3): seeds = 10^12
// (or 10^8) made planning grow memory until "fatal error: out of
// memory". seeds above MaxSeeds is an error naming seeds, and a grid
// whose runs would pass MaxRuns one naming grid, both before anything
// is expanded (at once); MaxSeeds itself is accepted.
func TestR3_K3SeedsAndGridBounded(t *testing.T) {
	body := func(seeds, eps string) string {
		return "name = \"s\"\nseeds = " + seeds + "\n[[instance]]\nname = \"i\"\nkind = \"mab\"\ngap = 0.5\n[[algorithm]]\nname = \"dist-dp-se\"\n[grid]\nT = [10]\neps = " + eps + "\n"
	}
	for _, tc := range []struct{ seeds, eps, key string }{
		{"1000000000000", "[1]", "seeds"},
		{"100000000", "[1]", "seeds"},
		{"1000001", "[1]", "seeds"},
		{"1000000", "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]", "grid"},
	} {
		start := time.Now()
		_, err := ParseConfig([]byte(body(tc.seeds, tc.eps)), t.TempDir())
		var ke *KeyError
		if !errors.As(err, &ke) || ke.Key != tc.key {
			t.Errorf("seeds %s, eps %s: %v, want an error naming %s", tc.seeds, tc.eps, err, tc.key)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("seeds %s: refused after %v", tc.seeds, d)
		}
	}
	if _, err := ParseConfig([]byte(body("1000000", "[1]")), t.TempDir()); err != nil && strings.Contains(err.Error(), "seeds") {
		t.Errorf("seeds = MaxSeeds: %v", err)
	}
}

// TestR3_U6HugeT (case U6): T = 2^63 - 1 went through float64 in the
// grid of the mab and bco families and came back as -2^63 ("need at
// least 1"). T above 2^53 is an error naming grid.T[i] with the file's
// value; 2^53 itself passes the bound.
func TestR3_U6HugeT(t *testing.T) {
	body := func(T string) string {
		return "name = \"s\"\nseeds = 1\n[[instance]]\nname = \"i\"\nkind = \"mab\"\ngap = 0.5\n[[algorithm]]\nname = \"se\"\n[grid]\nT = [10, " + T + "]\n"
	}
	for _, T := range []string{"9223372036854775807", "9007199254740993"} {
		_, err := ParseConfig([]byte(body(T)), t.TempDir())
		var ke *KeyError
		if !errors.As(err, &ke) || ke.Key != "grid.T[1]" || !strings.Contains(ke.Msg, "T = "+T+": at most 2^53") {
			t.Errorf("T = %s: %v", T, err)
		}
	}
	if _, err := ParseConfig([]byte(body("9007199254740992")), t.TempDir()); err != nil && strings.Contains(err.Error(), "2^53") {
		t.Errorf("T = 2^53: %v", err)
	}
}

// TestR3_W10W11KeysNotRead (cases W10, W11): a per-algorithm delta list
// on a pure-DP algorithm (dist-dp-se) was dropped without a word: it is
// an error naming algorithm[0].delta. grid.M, advanced.reward and
// advanced.no_clip, which no mab run reads (nor reward and no_clip a bco
// run), are listed by IgnoredKeys (`run plan`'s "ignores" line) like the
// other keys an algorithm does not read; the linear family reads them.
func TestR3_W10W11KeysNotRead(t *testing.T) {
	_, err := ParseConfig([]byte(`name = "p"
seeds = 1
[[instance]]
name = "e"
kind = "mab"
gap = 0.5
[[algorithm]]
name = "dist-dp-se"
delta = [0.5, 0.1]
[grid]
eps = [1]
T = [1000]
`), t.TempDir())
	var ke *KeyError
	if !errors.As(err, &ke) || ke.Key != "algorithm[0].delta" {
		t.Errorf("dist-dp-se with its own delta: %v", err)
	}
	advanced := "[advanced]\nreward = [0, 0.5]\nno_clip = true\n"
	for _, tc := range []struct {
		body, want string
	}{
		{"[[instance]]\nname = \"e\"\nkind = \"mab\"\ngap = 0.5\n[[algorithm]]\nname = \"dist-dp-se\"\n[grid]\neps = [1]\nT = [1000]\nM = [5, 7]\n" + advanced,
			"grid.M advanced.reward advanced.no_clip"},
		{"[[instance]]\nname = \"c\"\nkind = \"bco\"\nloss = \"absolute\"\n[[algorithm]]\nname = \"ldp-one-point\"\n[grid]\neps = [1]\ndelta = [1e-5]\nT = [1000]\nM = [2]\n" + advanced,
			"advanced.reward advanced.no_clip"},
		{"[[instance]]\nname = \"s\"\nkind = \"synthetic\"\nd = 4\nk = 5\n[[algorithm]]\nname = \"fedlinucb\"\n[grid]\nT = [50]\nM = [3]\nB = [5]\n" + advanced,
			""},
	} {
		c, err := ParseConfig([]byte("name = \"k\"\nseeds = 1\n"+tc.body), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(c.IgnoredKeys()[0], " "); got != tc.want {
			t.Errorf("ignored %q, want %q", got, tc.want)
		}
	}
}

// TestR3_U15DanglingSymlinkOut (case U15): --out a symbolic link to a
// missing directory failed late with "create output directory: mkdir
// DIR: file exists". CheckOwned (which sweep, slurm and audit call before
// anything else) refuses it as not ours, naming the link and its target;
// nothing is created at the target.
func TestR3_U15DanglingSymlinkOut(t *testing.T) {
	dir := t.TempDir()
	target := dir + "/nonexist_target"
	link := dir + "/dangling"
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for _, f := range []func(string) error{CheckOwned, ClaimDir} {
		err := f(link)
		if !errors.Is(err, ErrNotOwned) || !strings.Contains(err.Error(), "symbolic link to "+target) {
			t.Errorf("%v", err)
		}
	}
	if _, err := os.Lstat(target); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the target was created: %v", err)
	}
}

// TestR3_U16CacheErrorSaysWhatToDo (case U16): an unwritable cache
// directory stopped `run plan` with "rate cache: mkdir ...: read-only
// file system" and no word of --rate. The error now says what to do:
// XDG_CACHE_HOME or --rate. (A directory made read-only stands for the
// read-only file system; root ignores the mode, so the file under it is
// a regular file, which no user can make a directory of.)
func TestR3_U16CacheErrorSaysWhatToDo(t *testing.T) {
	dir := t.TempDir()
	blocker := dir + "/cache"
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := writeRateCache(blocker+"/fedbandit/rates.json", map[string]float64{"k": 1})
	if err == nil || !strings.Contains(err.Error(), "--rate") || !strings.Contains(err.Error(), "XDG_CACHE_HOME") {
		t.Errorf("unwritable cache: %v", err)
	}
}

// TestR3_U17ManifestAfterStop (case U17): a sweep stopped by a run it
// could not publish (a full disk) left manifest.json at "runs: 0" until
// the resume. The manifest now indexes the runs published before the
// stop and says what stopped it ("stopped"); the resume rewrites it
// without. The publish failure is simulated by the AfterPublish hook,
// which takes the same path.
func TestR3_U17ManifestAfterStop(t *testing.T) {
	plan := mustPlan(t, tinyTOML)
	dir := t.TempDir()
	_, err := sweepInto(t, plan, dir, 1, fakeSim{}, func(n int, id string) error {
		if n == 3 {
			return errors.New("publish x: no space left on device")
		}
		return nil
	})
	if err == nil {
		t.Fatal("no error")
	}
	read := func() manifest {
		b, err := os.ReadFile(dir + "/" + ManifestFile)
		if err != nil {
			t.Fatal(err)
		}
		var m manifest
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := read()
	if m.Runs != 3 || m.Done != 3 || !strings.Contains(m.Stopped, "no space left on device") || !strings.Contains(m.Stopped, "rerun") {
		t.Errorf("after the stop: runs %d, done %d, stopped %q", m.Runs, m.Done, m.Stopped)
	}
	if _, err := sweepInto(t, plan, dir, 1, fakeSim{}, nil); err != nil {
		t.Fatal(err)
	}
	if m := read(); m.Runs != tinyRuns || m.Stopped != "" {
		t.Errorf("after the resume: runs %d, stopped %q", m.Runs, m.Stopped)
	}
}

// TestR3_U3SupersededDocumented (case U3): outputs/README.md said a
// layout-1 resume redoes no run, while it redoes the FedUCB runs and
// moves their files to runs/superseded/, which the directory table did
// not list. The README now lists SupersededDir and says which runs a
// resume redoes (TestResumeLayout1 checks the behaviour).
func TestR3_U3SupersededDocumented(t *testing.T) {
	b, err := os.ReadFile("../outputs/README.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, want := range []string{"`DIR/runs/" + SupersededDir + "/`", "redoes\nthat run under its new id", "2 FedUCB runs set aside and redone"} {
		if !strings.Contains(doc, want) {
			t.Errorf("outputs/README.md does not say %q", want)
		}
	}
	if strings.Contains(doc, "0 runs redone") || strings.Contains(doc, "no run redone") {
		t.Error("outputs/README.md still says a layout-1 resume redoes no run")
	}
}
