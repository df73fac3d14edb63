package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"

	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/runner"
)

// The tests of attack round 2 on the run side (docs/reliability.md):
// each is named by its case id and runs the command in-process, as a user
// would type it, under a context deadline.

// synTOML is the round's common synthetic sweep (w/syn.toml), with its
// seeds as a parameter.
func synTOML(seeds int) string {
	return fmt.Sprintf(`name = "syn small"
seeds = %d
[[instance]]
name = "s"
kind = "synthetic"
d = 4
k = 5
seed = 2
[[algorithm]]
name = "fedlinucb"
[[algorithm]]
name = "ldp"
[grid]
eps = [1]
delta = [0.1]
M = [3]
B = [5]
T = [50]
`, seeds)
}

// writeFile writes a file and returns its path.
func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runCLI runs `run args...` in-process under a 60 s deadline and returns
// its standard output and error.
func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var app cli
	k, err := kong.New(&app, kong.Name("run"), kong.Exit(func(int) {}))
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.CreateTemp(t.TempDir(), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = out
	defer func() { os.Stdout = saved; out.Close() }()
	kctx, err := k.Parse(args)
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		kctx.BindTo(ctx, (*context.Context)(nil))
		err = kctx.Run()
	}
	b, _ := os.ReadFile(out.Name())
	return string(b), err
}

// wantErr fails unless err is non-nil and contains every part.
func wantErr(t *testing.T, what string, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want one containing %q", what, parts)
		return
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %q does not contain %q", what, err, p)
		}
	}
}

// smallResults runs the common sweep with the given seeds and returns its
// output directory.
func smallResults(t *testing.T, seeds int) string {
	t.Helper()
	dir := t.TempDir()
	sweep := writeFile(t, filepath.Join(dir, "syn.toml"), synTOML(seeds))
	out := filepath.Join(dir, "r")
	if _, err := runCLI(t, "sweep", sweep, "--out", out, "--no-plot", "--rate", "1e9", "--workers", "2"); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestOD1OD2OutputDirectories (cases 1, 2): sweep, slurm, audit and
// collect refuse a prepared dataset directory and a project folder
// (--out .), leaving every file as it was.
func TestOD1OD2OutputDirectories(t *testing.T) {
	dir := t.TempDir()
	sweep := writeFile(t, filepath.Join(dir, "syn.toml"), synTOML(2))
	ds := filepath.Join(dir, "ds")
	os.MkdirAll(ds, 0o755)
	manifest := `{"schema_version":1,"queries":784}`
	writeFile(t, filepath.Join(ds, "manifest.json"), manifest)
	for _, args := range [][]string{
		{"sweep", sweep, "--out", ds, "--no-plot", "--rate", "1e9"},
		{"slurm", sweep, "--out", ds, "--rate", "1e9"},
		{"audit", "--trials", "10", "--learner", "lazy", "--out", ds},
		{"collect", ds},
	} {
		_, err := runCLI(t, args...)
		wantErr(t, "OD1 run "+args[0], err, "refusing to write into "+ds, runner.ResultsMarker)
	}
	if ents, _ := os.ReadDir(ds); len(ents) != 1 {
		t.Errorf("OD1: the dataset directory now holds %d entries", len(ents))
	}
	if b, _ := os.ReadFile(filepath.Join(ds, "manifest.json")); string(b) != manifest {
		t.Errorf("OD1: manifest.json overwritten: %s", b)
	}

	proj := filepath.Join(dir, "proj")
	os.MkdirAll(proj, 0o755)
	writeFile(t, filepath.Join(proj, "sweep.toml"), "name = \"mine\"\n")
	writeFile(t, filepath.Join(proj, "manifest.json"), `{"mine":1}`)
	writeFile(t, filepath.Join(proj, "other.toml"), synTOML(2))
	t.Chdir(proj)
	_, err := runCLI(t, "sweep", "other.toml", "--out", ".", "--no-plot", "--rate", "1e9")
	wantErr(t, "OD2 run sweep --out .", err, "refusing to write into", runner.ResultsMarker)
	if b, _ := os.ReadFile(filepath.Join(proj, "sweep.toml")); string(b) != "name = \"mine\"\n" {
		t.Errorf("OD2: sweep.toml overwritten: %s", b)
	}
	if b, _ := os.ReadFile(filepath.Join(proj, "manifest.json")); string(b) != `{"mine":1}` {
		t.Errorf("OD2: manifest.json overwritten: %s", b)
	}
}

// hugeTOML is case 6's sweep (w/huge.toml): about 4,367 GiB at peak.
const hugeTOML = `name = "huge"
seeds = 1000
[[instance]]
kind = "synthetic"
d = 100
k = 10000
[[algorithm]]
name = "fedlinucb"
[[algorithm]]
name = "ldp"
[grid]
eps = [1]
delta = [0.1]
M = [1000000]
B = [25]
T = [1000000000]
`

// TestR8bMemoryPreflight (case 6): a sweep (and a task of it) whose
// estimated peak memory exceeds the available memory is refused before
// any run starts, naming the override; nothing is written.
func TestR8bMemoryPreflight(t *testing.T) {
	if _, _, ok := availableMemory(); !ok {
		t.Skip("no /proc/meminfo here: the pre-flight checks nothing")
	}
	dir := t.TempDir()
	huge := writeFile(t, filepath.Join(dir, "huge.toml"), hugeTOML)
	out := filepath.Join(dir, "r_huge")
	_, err := runCLI(t, "sweep", huge, "--out", out, "--rate", "1e9", "--no-plot")
	wantErr(t, "run sweep", err, "estimated peak memory", "GiB", "--ignore-memory-check")
	if _, serr := os.Stat(out); !errors.Is(serr, os.ErrNotExist) {
		t.Errorf("run sweep wrote %s before refusing", out)
	}
	_, err = runCLI(t, "task", huge, "--out", out, "--tasks", "1", "--index", "0")
	wantErr(t, "run task", err, "estimated peak memory", "--ignore-memory-check")
	if _, serr := os.Stat(out); !errors.Is(serr, os.ErrNotExist) {
		t.Errorf("run task wrote %s before refusing", out)
	}
	// An estimate that overflowed is refused too; the override passes.
	wantErr(t, "overflowed estimate", memoryFlag{}.check("x", -1), "overflows")
	if err := (memoryFlag{IgnoreMemoryCheck: true}).check("x", 1<<62); err != nil {
		t.Error(err)
	}
	if err := (memoryFlag{}).check("x", 1<<20); err != nil {
		t.Errorf("1 MiB refused: %v", err)
	}
}

// TestR8aPlanCostNeverNegative (case 22): a cost beyond what a
// time.Duration holds is printed in hours, never wrapped negative.
func TestR8aPlanCostNeverNegative(t *testing.T) {
	for _, s := range []float64{1e13, 1e20, 1e300} {
		if got := durText(s); strings.HasPrefix(got, "-") || !strings.HasSuffix(got, "h") {
			t.Errorf("durText(%g) = %q", s, got)
		}
	}
	if got := durText(3600); got != "1h0m0s" {
		t.Errorf("durText(3600) = %q", got)
	}
	huge := writeFile(t, filepath.Join(t.TempDir(), "huge.toml"), hugeTOML)
	out, err := runCLI(t, "plan", huge, "--rate", "1e3")
	if err != nil || !strings.Contains(out, "cost: ") || strings.Contains(out, "cost: -") {
		t.Errorf("run plan: %v\n%s", err, out)
	}
	_, err = runCLI(t, "plan", huge, "--rate", "1e-300")
	wantErr(t, "run plan --rate 1e-300", err, "--rate")
}

// TestR10PlotSize (cases 7, 8, 25, 35): figure sizes outside 2..100 cm,
// non-finite or zero, are errors naming the flag; no panic, no huge
// allocation; a size in range draws.
func TestR10PlotSize(t *testing.T) {
	out := smallResults(t, 2)
	for _, args := range [][]string{
		{"--width-cm", "NaN"}, {"--width-cm", "Inf"}, {"--width-cm=-5"}, {"--height-cm=-5"},
		{"--width-cm", "1e9"}, {"--height-cm", "1e6"}, {"--width-cm", "0"}, {"--width-cm", "0.001"},
	} {
		_, err := runCLI(t, append([]string{"plot", out}, args...)...)
		flag, _, _ := strings.Cut(args[0], "=")
		wantErr(t, strings.Join(args, " "), err, flag, "2..100")
	}
	if _, err := runCLI(t, "plot", out, "--width-cm", "2", "--height-cm", "100"); err != nil {
		t.Error(err)
	}
}

// TestA1A2A5AuditFlags (cases 9, 26, 27): --trials outside 10..1000000
// (0, negative, two billion) and --sigma-scale 0 are errors naming the
// flag, before anything is drawn.
func TestA1A2A5AuditFlags(t *testing.T) {
	for _, v := range []string{"0", "-1", "9", "2000000000"} {
		_, err := runCLI(t, "audit", "--trials="+v)
		wantErr(t, "--trials "+v, err, "--trials", "10..1000000")
	}
	for _, v := range []string{"0", "-1", "NaN", "Inf", "1e308"} {
		_, err := runCLI(t, "audit", "--trials", "100", "--sigma-scale="+v)
		wantErr(t, "--sigma-scale "+v, err, "--sigma-scale")
	}
	// A legal control still runs at the scale asked for, and its NOISE
	// SCALE verdict exits 1 (issue 42).
	out, err := runCLI(t, "audit", "--trials", "100", "--learner", "lazy", "--sigma-scale", "2")
	if !errors.Is(err, errAuditFailed) || !strings.Contains(out, "noise x 2") || !strings.Contains(out, "NOISE SCALE") {
		t.Errorf("--sigma-scale 2: %v\n%s", err, out)
	}
}

// TestR4kWorkers (case 19): --workers 0 and -1 are errors naming the flag
// for plan, sweep, task and the main job (not "one per core").
func TestR4kWorkers(t *testing.T) {
	dir := t.TempDir()
	sweep := writeFile(t, filepath.Join(dir, "syn.toml"), synTOML(2))
	for _, v := range []string{"0", "-1", "5000"} {
		for _, args := range [][]string{
			{"plan", sweep, "--rate", "1e9"},
			{"sweep", sweep, "--out", filepath.Join(dir, "o"), "--rate", "1e9"},
			{"task", sweep, "--out", filepath.Join(dir, "t"), "--tasks", "1", "--index", "0"},
			{"quickstart", "--out", filepath.Join(dir, "q")},
		} {
			_, err := runCLI(t, append(args, "--workers="+v)...)
			wantErr(t, args[0]+" --workers "+v, err, "--workers", "1..4096")
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("something was written: %d entries", len(ents))
	}
}

// TestSL3SlurmTimeMem (case 28): --time and --mem outside Slurm's syntax
// are refused before any file is written.
func TestSL3SlurmTimeMem(t *testing.T) {
	dir := t.TempDir()
	sweep := writeFile(t, filepath.Join(dir, "syn.toml"), synTOML(2))
	out := filepath.Join(dir, "slx")
	for _, c := range []struct{ flag, v string }{
		{"--time", "abc"}, {"--time", "0"}, {"--time", "1:2:3:4"}, {"--time", "-5"},
		{"--mem", "-5G"}, {"--mem", "0"}, {"--mem", "5GB"}, {"--mem", "1.5G"},
	} {
		_, err := runCLI(t, "slurm", sweep, "--out", out, "--rate", "1e9", c.flag+"="+c.v)
		wantErr(t, c.flag+" "+c.v, err, c.flag)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Error("slurm wrote its directory before refusing")
	}
	for _, ok := range []string{"90", "1:30", "2:00:00", "1-0", "1-12:00", "0-00:10:00"} {
		if err := checkSlurmTime(ok); err != nil {
			t.Error(err)
		}
	}
	for _, ok := range []string{"512", "4G", "100M", "1T", "64K"} {
		if err := checkSlurmMem(ok); err != nil {
			t.Error(err)
		}
	}
}

// TestSL4SlurmTasksZero (case 29): --tasks 0 is an error, not the default.
func TestSL4SlurmTasksZero(t *testing.T) {
	sweep := writeFile(t, filepath.Join(t.TempDir(), "syn.toml"), synTOML(2))
	for _, v := range []string{"0", "-1", "1002"} {
		_, err := runCLI(t, "slurm", sweep, "--out", filepath.Join(t.TempDir(), "s"), "--tasks="+v)
		wantErr(t, "--tasks "+v, err, "--tasks", "1..1001")
	}
}

// TestSL7NewlineInjection (case 30): a newline (or any control
// character) in the sweep's name, --partition, --account or --sbatch is
// refused before a script is written, so nothing can run as a shell
// command on the cluster.
//
// Mutation control (run once): without the check of the sweep's name in
// SlurmCmd.Run, the name's newline reached array.sbatch and this test
// failed ("no error", "slurm wrote its directory before refusing").
func TestSL7NewlineInjection(t *testing.T) {
	dir := t.TempDir()
	sweep := writeFile(t, filepath.Join(dir, "syn.toml"), synTOML(2))
	nl := writeFile(t, filepath.Join(dir, "nl.toml"),
		strings.Replace(synTOML(2), `name = "syn small"`, `name = "nl test\necho INJECTED > INJECTED"`, 1))
	out := filepath.Join(dir, "sl_nl")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"slurm", nl, "--out", out}, "name"},
		{[]string{"slurm", sweep, "--out", out, "--partition", "short\necho INJ2"}, "--partition"},
		{[]string{"slurm", sweep, "--out", out, "--account", "a\rb"}, "--account"},
		{[]string{"slurm", sweep, "--out", out, "--sbatch=--qos=x\necho INJ3"}, "--sbatch"},
		{[]string{"slurm", sweep, "--out", out + "\nx"}, "--out"},
	} {
		_, err := runCLI(t, append(c.args, "--rate", "1e9")...)
		wantErr(t, strings.Join(c.args[3:], " "), err, c.want, "control character")
	}
	// A directive that is not an option is refused as well.
	_, err := runCLI(t, "slurm", sweep, "--out", out, "--rate", "1e9", "--sbatch=echo INJ4")
	wantErr(t, "--sbatch=echo INJ4", err, "--sbatch", "want one sbatch option")
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Error("slurm wrote its directory before refusing")
	}
}

// TestSL8QuotedPaths (case 39): paths and names with spaces, quotes, $
// and # reach the scripts only quoted (sbatch's double quotes in #SBATCH
// lines, the shell's single quotes in commands), and the printed submit
// command is quoted. TestSlurmArray runs such an array on a real Slurm.
func TestSL8QuotedPaths(t *testing.T) {
	dir := filepath.Join(t.TempDir(), `sp ace $HOME "q" #c`)
	os.MkdirAll(dir, 0o755)
	sweep := writeFile(t, filepath.Join(dir, "syn.toml"), synTOML(2))
	out := filepath.Join(dir, "out dir")
	stdout, err := runCLI(t, "slurm", sweep, "--out", out, "--rate", "1e9", "--sbatch=--comment=a b")
	if err != nil {
		t.Fatal(err)
	}
	script, _ := os.ReadFile(filepath.Join(out, "slurm", "array.sbatch"))
	logs := filepath.Join(out, "slurm", "logs")
	for _, want := range []string{
		`#SBATCH --job-name="fedbandit-syn small"`,
		`#SBATCH --output="` + strings.ReplaceAll(logs, `"`, `\"`) + `/%A_%a.out"`,
		`#SBATCH --comment="a b"`,
		"exec " + shellQuote(filepath.Join(out, "slurm", "run")) + " task " + shellQuote(sweep) + " --out " + shellQuote(out),
	} {
		if !strings.Contains(string(script), want) {
			t.Errorf("array.sbatch lacks %s:\n%s", want, script)
		}
	}
	if want := "sbatch --parsable " + shellQuote(filepath.Join(out, "slurm", "array.sbatch")); !strings.Contains(stdout, want) {
		t.Errorf("submit command not quoted:\n%s", stdout)
	}
}

// TestST2StatusEmptyJob (case 40): a job.json of {} is named as not
// written by run slurm, not "open : no such file".
func TestST2StatusEmptyJob(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "slurm"), 0o755)
	writeFile(t, filepath.Join(dir, "slurm", "job.json"), "{}\n")
	_, err := runCLI(t, "status", dir)
	wantErr(t, "run status", err, "job.json", `no "sweep"`, "not written by run slurm")
}

// TestT1TableAt (case 37): --at that is not a round (0, negative) or no
// configuration's checkpoint (beyond T) is an error naming --at.
func TestT1TableAt(t *testing.T) {
	out := smallResults(t, 2)
	for _, v := range []string{"-5", "0", "1000", "7"} {
		_, err := runCLI(t, "table", out, "--at="+v)
		wantErr(t, "--at "+v, err, "--at "+v)
	}
	if s, err := runCLI(t, "table", out, "--at", "25,50"); err != nil || !strings.Contains(s, "t = 25") {
		t.Errorf("--at 25,50: %v\n%s", err, s)
	}
}

// TestS2OneSeedNoSE (case 38): with one seed per configuration, the table
// and the sweep summary say "n=1, no SE" instead of "± 0".
func TestS2OneSeedNoSE(t *testing.T) {
	out := smallResults(t, 1)
	table, err := runCLI(t, "table", out)
	if err != nil || !strings.Contains(table, "(n=1, no SE)") || strings.Contains(table, "± 0") {
		t.Errorf("run table: %v\n%s", err, table)
	}
	var sum strings.Builder
	if err := printSummary(&sum, out); err != nil || !strings.Contains(sum.String(), "(n=1, no SE)") || strings.Contains(sum.String(), "+- 0 ") {
		t.Errorf("summary: %v\n%s", err, sum.String())
	}
	if two := smallResults(t, 2); true {
		table, _ := runCLI(t, "table", two)
		if !strings.Contains(table, " ± ") || strings.Contains(table, "no SE") {
			t.Errorf("two seeds:\n%s", table)
		}
	}
}

// TestR12PlanHelpRate (case 36): plan's help says the times come from
// pilots measured on this machine unless --rate is given.
func TestR12PlanHelpRate(t *testing.T) {
	help := (&PlanCmd{}).Help()
	if !strings.Contains(help, "measured on this machine") || !strings.Contains(help, "With --rate R the pilots are skipped") || strings.Contains(help, "at --rate per core)") {
		t.Errorf("plan help:\n%s", help)
	}
	var app cli
	k := kong.Must(&app, kong.Name("run"))
	for _, c := range k.Model.Children {
		for _, f := range c.Flags {
			if f.Name == "rate" && !strings.Contains(f.Help, "Default: the speeds measured on this machine") {
				t.Errorf("%s --rate help: %s", c.Name, f.Help)
			}
		}
	}
}

// TestFD3TableRefusesMismatchedPair (case 33): `run table` and `run plot`
// refuse a runs.arrow and a curves.arrow of different collects, saying to
// collect again; after `run collect` they work.
func TestFD3TableRefusesMismatchedPair(t *testing.T) {
	a, b := smallResults(t, 2), smallResults(t, 3)
	other, _ := os.ReadFile(filepath.Join(b, outputs.CurvesFile))
	writeFile(t, filepath.Join(a, outputs.CurvesFile), string(other))
	for _, cmd := range []string{"table", "plot"} {
		_, err := runCLI(t, cmd, a)
		if !errors.Is(err, outputs.ErrTablesMismatch) || !strings.Contains(err.Error(), "run collect") {
			t.Errorf("run %s: err = %v", cmd, err)
		}
	}
	if _, err := runCLI(t, "collect", a); err != nil {
		t.Fatal(err)
	}
	if _, err := runCLI(t, "table", a); err != nil {
		t.Error(err)
	}
}

// TestR8bMeminfoParsing: the pre-flight reads MemAvailable (kB) and the
// cgroup v2 path and limit; "max" is no limit.
func TestR8bMeminfoParsing(t *testing.T) {
	dir := t.TempDir()
	mi := writeFile(t, filepath.Join(dir, "meminfo"), "MemTotal:       16000000 kB\nMemFree:         1000 kB\nMemAvailable:    8000000 kB\n")
	if n, ok := memAvailable(mi); !ok || n != 8000000<<10 {
		t.Errorf("memAvailable = %d, %v", n, ok)
	}
	if _, ok := memAvailable(writeFile(t, filepath.Join(dir, "bad"), "MemTotal: 1 kB\n")); ok {
		t.Error("no MemAvailable line: ok")
	}
	cg := writeFile(t, filepath.Join(dir, "cgroup"), "0::/user.slice/job\n")
	if d, ok := cgroupDir(cg); !ok || d != "/user.slice/job" {
		t.Errorf("cgroupDir = %q, %v", d, ok)
	}
	if _, ok := readBytes(writeFile(t, filepath.Join(dir, "max"), "max\n")); ok {
		t.Error(`memory.max "max" read as a limit`)
	}
	if n, ok := readBytes(writeFile(t, filepath.Join(dir, "lim"), "4294967296\n")); !ok || n != 4<<30 {
		t.Errorf("readBytes = %d, %v", n, ok)
	}
}
