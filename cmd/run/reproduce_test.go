package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fedbandit/fedbandit/reproduce"
	"github.com/fedbandit/fedbandit/runner"
)

// quickRepro is `run reproduce --quick --only ONLY --out OUT` with a
// fixed --rate (no timing pilots) and the MQ2008 stand-in cached in
// cache.
func quickRepro(out, cache string, workers int, only ...string) *ReproduceCmd {
	rate := 4e9
	return &ReproduceCmd{Out: out, Quick: true, Scale: reproduce.Default, Workers: &workers, Only: only, Cache: cache,
		LogEvery: time.Hour, speedFlags: speedFlags{Rate: &rate}}
}

// TestReproduceBadInput: an --out that is another command's results, a
// dataset or a folder of other files, an unknown experiment, a --mslr
// that is not a prepared MSLR-WEB10K and contradictory flags are usage
// errors (exit status 2) that say what is wrong, and nothing is written.
func TestReproduceBadInput(t *testing.T) {
	tmp := t.TempDir()
	sweepDir := filepath.Join(tmp, "sweep")
	os.MkdirAll(sweepDir, 0o755)
	os.WriteFile(filepath.Join(sweepDir, runner.ResultsMarker), nil, 0o644)
	mine := filepath.Join(tmp, "mine")
	os.MkdirAll(mine, 0o755)
	os.WriteFile(filepath.Join(mine, "notes.txt"), []byte("keep"), 0o644)
	mq := filepath.Join(tmp, "mq")
	os.MkdirAll(mq, 0o755)
	os.WriteFile(filepath.Join(mq, "manifest.json"), []byte(`{"schema_version":1,"queries":784,"features":46}`), 0o644)

	for name, tc := range map[string]struct {
		cmd  *ReproduceCmd
		want []string
	}{
		"sweep dir": {quickRepro(sweepDir, tmp, 1), []string{"results directory of another run command"}},
		"own files": {quickRepro(mine, tmp, 1), []string{"not a reproduction directory", "holds other files"}},
		"dataset":   {quickRepro(mq, tmp, 1), []string{"prepared dataset"}},
		"unknown":   {quickRepro(filepath.Join(tmp, "new1"), tmp, 1, "zc-fig3a", "fig9"), []string{`unknown experiment "fig9"`, "huang-gloc"}},
		"mslr":      {func() *ReproduceCmd { c := quickRepro(filepath.Join(tmp, "new2"), tmp, 1); c.MSLR = mq; return c }(), []string{"46 features, want 136", "784 queries, want 10000", "prep ingest", "prep fit"}},
		"mslr none": {func() *ReproduceCmd { c := quickRepro(filepath.Join(tmp, "new3"), tmp, 1); c.MSLR = mine; return c }(), []string{"not a prepared dataset", "prep ingest"}},
		"two scales": {func() *ReproduceCmd {
			c := quickRepro(filepath.Join(tmp, "new4"), tmp, 1)
			c.Scale = reproduce.PaperScale
			return c
		}(), []string{"--quick and --scale paper"}},
		"no out":  {quickRepro("", tmp, 1), []string{"--out DIR is required"}},
		"report":  {&ReproduceCmd{ReportOnly: mine, Scale: reproduce.Default, LogEvery: time.Hour}, []string{"not a reproduction directory"}},
		"copy-to": {&ReproduceCmd{ReportOnly: mine, CopyTo: filepath.Join(tmp, "docs"), Scale: reproduce.Default, LogEvery: time.Hour}, []string{"--copy-to", "want a Markdown file"}},
	} {
		err := tc.cmd.Run(context.Background())
		var ue usageError
		if !errors.As(err, &ue) || ue.ExitCode() != 2 {
			t.Errorf("%s: %v, want a usage error (exit 2)", name, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v, want it to say %q", name, err, w)
			}
		}
	}
	// Nothing written.
	for dir, n := range map[string]int{sweepDir: 1, mine: 1, mq: 1} {
		if ents, _ := os.ReadDir(dir); len(ents) != n {
			t.Errorf("%s: %d entries after the refusals", dir, len(ents))
		}
	}
	for _, d := range []string{"new1", "new2", "new3", "new4"} {
		if _, err := os.Stat(filepath.Join(tmp, d)); err == nil {
			t.Errorf("%s created by a refused command", d)
		}
	}
}

// TestReproduceResume: a quick reproduction of two experiments writes
// REPORT.md; regenerating it from the directory gives the same bytes; a
// rerun redoes no run; 1 and 2 workers write the same curves; a damaged
// or missing reference file fails the report naming the file.
func TestReproduceResume(t *testing.T) {
	tmp := t.TempDir()
	out := filepath.Join(tmp, "repro")
	if err := quickRepro(out, tmp, 2, "zc-fig3a", "huang-gloc").Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	report, err := os.ReadFile(filepath.Join(out, reproduce.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"| [zc-fig3a](#zc-fig3a) | Zhou & Chowdhury, Figure 3a | 8 |", "## huang-gloc", "LDP-FedLinUCB (eps=5)", "Not compared at scale quick", "| holds |",
		"](reproduction/zc-fig3a-regret-realised.png)", "SVG: `zc-fig3a/regret-realised.svg`", "](reproduction/huang-gloc-regret.png)"} {
		if !bytes.Contains(report, []byte(w)) {
			t.Errorf("report lacks %q", w)
		}
	}
	cat, _ := reproduce.Load()
	again, err := reproduce.Report(out, cat, reproduce.ReferenceFS)
	if err != nil || !bytes.Equal(again, report) {
		t.Errorf("regenerated report differs (%v)", err)
	}
	if err := (&ReproduceCmd{ReportOnly: out, Scale: reproduce.Default, LogEvery: time.Hour}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, reproduce.ReportFile)); !bytes.Equal(b, report) {
		t.Error("--report-only wrote other bytes")
	}
	// Its image links resolve beside it, and so do those of the copy
	// --copy-to writes (the committed docs/reproduction.md), whose
	// figures are the same bytes; a PNG the copy it replaces showed and
	// this report does not is removed from the copy's folder, the user's
	// files there (a PNG among them) are kept; a figure that would
	// overwrite a user's file is refused (exit status 2), nothing written.
	docs := filepath.Join(tmp, "docs")
	os.MkdirAll(filepath.Join(docs, reproduce.FiguresDir), 0o755)
	os.WriteFile(filepath.Join(docs, "reproduction.md"), append(slices.Clip(report), "![old](reproduction/stale.png)\n"...), 0o644)
	os.WriteFile(filepath.Join(docs, reproduce.FiguresDir, "stale.png"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(docs, reproduce.FiguresDir, "mine.png"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(docs, reproduce.FiguresDir, "notes.txt"), []byte("x"), 0o644)
	if err := (&ReproduceCmd{ReportOnly: out, CopyTo: filepath.Join(docs, "reproduction.md"), Scale: reproduce.Default, LogEvery: time.Hour}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(tmp, "mine")
	os.MkdirAll(filepath.Join(mine, reproduce.FiguresDir), 0o755)
	os.WriteFile(filepath.Join(mine, reproduce.FiguresDir, "huang-gloc-regret.png"), []byte("x"), 0o644)
	err = (&ReproduceCmd{ReportOnly: out, CopyTo: filepath.Join(mine, "reproduction.md"), Scale: reproduce.Default, LogEvery: time.Hour}).Run(context.Background())
	var ue usageError
	if !errors.As(err, &ue) || ue.ExitCode() != 2 || !strings.Contains(err.Error(), "huang-gloc-regret.png: a file run reproduce did not write") {
		t.Errorf("--copy-to over a user's PNG: %v, want a usage error naming it", err)
	}
	if ents, _ := os.ReadDir(filepath.Join(mine, reproduce.FiguresDir)); len(ents) != 1 {
		t.Errorf("the refused copy wrote %d files", len(ents)-1)
	}
	if _, err := os.Stat(filepath.Join(mine, "reproduction.md")); err == nil {
		t.Error("the refused copy wrote its FILE")
	}
	if b, _ := os.ReadFile(filepath.Join(docs, "reproduction.md")); !bytes.Equal(b, report) {
		t.Error("--copy-to wrote other bytes than REPORT.md")
	}
	links := reproduce.ImageLinks(report)
	if len(links) < 2 {
		t.Fatalf("%d image links in the report", len(links))
	}
	for _, l := range links {
		a, err := os.ReadFile(filepath.Join(out, l))
		if err != nil {
			t.Errorf("link %s: %v", l, err)
		}
		if b, err := os.ReadFile(filepath.Join(docs, l)); err != nil || !bytes.Equal(a, b) {
			t.Errorf("link %s in the copy: %v (same bytes: %v)", l, err, bytes.Equal(a, b))
		}
	}
	if _, err := os.Stat(filepath.Join(docs, reproduce.FiguresDir, "stale.png")); err == nil {
		t.Error("--copy-to kept a PNG the copy it replaces showed and the report does not")
	}
	for _, f := range []string{"mine.png", "notes.txt"} {
		if _, err := os.Stat(filepath.Join(docs, reproduce.FiguresDir, f)); err != nil {
			t.Errorf("--copy-to removed the user's %s", f)
		}
	}

	// A rerun redoes nothing: every run file keeps its modification time.
	mtimes := func() map[string]time.Time {
		m := map[string]time.Time{}
		files, _ := filepath.Glob(filepath.Join(out, "*", "runs", "*"))
		for _, f := range files {
			st, _ := os.Stat(f)
			m[f] = st.ModTime()
		}
		return m
	}
	before := mtimes()
	if len(before) < 26 {
		t.Fatalf("%d run files", len(before))
	}
	time.Sleep(20 * time.Millisecond)
	if err := quickRepro(out, tmp, 1, "zc-fig3a", "huang-gloc").Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	after := mtimes()
	for f, m := range before {
		if !after[f].Equal(m) {
			t.Errorf("%s rewritten by the rerun", f)
		}
	}

	// Another worker count, the same curves.
	one := filepath.Join(tmp, "one")
	if err := quickRepro(one, tmp, 1, "zc-fig3a", "huang-gloc").Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, e := range []string{"zc-fig3a", "huang-gloc"} {
		a, _ := os.ReadFile(filepath.Join(out, e, "curves.arrow"))
		b, _ := os.ReadFile(filepath.Join(one, e, "curves.arrow"))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s: curves.arrow differs between 2 workers and 1 (%d and %d bytes)", e, len(a), len(b))
		}
	}

	// A damaged or missing reference file fails the report, naming it.
	good, _ := reproduce.ReferenceFS.ReadFile("reference/zc-published-3a.csv")
	for name, data := range map[string][]byte{
		"damaged": bytes.Replace(good, []byte("1.21,0.09"), []byte("1.21;0.09"), 1),
		"no note": bytes.Replace(good, []byte("# SOURCE:"), []byte("# source"), 1),
	} {
		fsys := fstest.MapFS{"reference/zc-published-3a.csv": {Data: data}}
		if _, err := reproduce.Report(out, cat, fsys); err == nil || !strings.Contains(err.Error(), "reference/zc-published-3a.csv") {
			t.Errorf("%s reference: %v", name, err)
		}
	}
	if _, err := reproduce.Report(out, cat, fstest.MapFS{}); err == nil || !strings.Contains(err.Error(), "reference/zc-published-3a.csv") {
		t.Errorf("missing reference: %v", err)
	}

	// A resumed reproduction must keep its scale.
	c := quickRepro(out, tmp, 1, "huang-gloc")
	c.Quick = false
	if err := c.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "holds a reproduction at scale quick") {
		t.Errorf("other scale: %v", err)
	}
}

// TestReproduceQuickGolden runs `run reproduce --quick` end to end (every
// experiment, about a minute on 2 cores: .ci/run sets
// FEDBANDIT_REPRODUCE_QUICK=1) and compares its REPORT.md with
// testdata/reproduce-quick.md. Only the machine and time fields are
// normalised: the command, commit and machine of the record, and every
// experiment's CPU and wall seconds (set to 0), before the report is
// regenerated. FEDBANDIT_UPDATE_GOLDEN=1 rewrites the golden copy.
func TestReproduceQuickGolden(t *testing.T) {
	if os.Getenv("FEDBANDIT_REPRODUCE_QUICK") == "" {
		t.Skip("FEDBANDIT_REPRODUCE_QUICK=1 runs the whole quick reproduction (.ci/run does)")
	}
	tmp := t.TempDir()
	out := filepath.Join(tmp, "repro")
	if err := quickRepro(out, tmp, 2).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	rec, err := reproduce.ReadRecord(out)
	if err != nil {
		t.Fatal(err)
	}
	rec.Command, rec.Commit, rec.Machine = "run reproduce --quick --out DIR", "COMMIT", "MACHINE"
	for i := range rec.Experiments {
		rec.Experiments[i].CPUSeconds, rec.Experiments[i].WallSeconds = 0, 0
	}
	if err := reproduce.WriteRecord(out, rec); err != nil {
		t.Fatal(err)
	}
	cat, _ := reproduce.Load()
	got, err := reproduce.Report(out, cat, reproduce.ReferenceFS)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "reproduce-quick.md")
	if os.Getenv("FEDBANDIT_UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		os.WriteFile(filepath.Join(t.TempDir(), "got.md"), got, 0o644)
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < min(len(gl), len(wl)); i++ {
			if gl[i] != wl[i] {
				t.Fatalf("REPORT.md differs from %s at line %d:\n got  %s\n want %s", golden, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("REPORT.md differs from %s in length (%d and %d lines)", golden, len(gl), len(wl))
	}
	b, _ := json.Marshal(rec)
	t.Logf("record: %s", b)
}

// TestReproducePaperScale: --scale paper runs nothing and writes, per
// experiment, the shipped sweep file unchanged (the paper's scale) and a
// Slurm array for it (run slurm's scripts).
func TestReproducePaperScale(t *testing.T) {
	out := filepath.Join(t.TempDir(), "paper")
	rate, workers := 4e9, 1
	c := &ReproduceCmd{Out: out, Scale: reproduce.PaperScale, Workers: &workers, Only: []string{"huang-gloc"}, LogEvery: time.Hour, speedFlags: speedFlags{Rate: &rate}}
	quietStdout(t)
	if err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"huang-gloc/slurm/array.sbatch", "huang-gloc/slurm/collect.sbatch", "sweeps/huang-gloc.toml", reproduce.RecordFile} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	if runs, _ := filepath.Glob(filepath.Join(out, "huang-gloc", "runs", "*")); len(runs) != 0 {
		t.Errorf("%d runs executed at the paper's scale", len(runs))
	}
	cfg, err := runner.LoadConfig(filepath.Join(out, "sweeps", "huang-gloc.toml"))
	if err != nil || cfg.Seeds != 10 || cfg.Grid.T[0] != 2000 {
		t.Errorf("paper-scale sweep: %+v %v", cfg, err)
	}
}
