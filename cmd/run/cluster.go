package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/fedbandit/fedbandit/internal/atomicfile"
	"github.com/fedbandit/fedbandit/runner"
)

// The array-job files of a sweep directory, under DIR/slurm/.
const (
	clusterDir   = "slurm"
	jobFile      = "job.json"       // what the array executes (arrayJob)
	arrayScript  = "array.sbatch"   // the task array
	collectJob   = "collect.sbatch" // the collect, after the array
	clusterBin   = "run"            // the private copy of this program
	clusterLogs  = "logs"           // %A_%a.out of every task
	indexEnvList = "SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX"
)

// arrayJob is DIR/slurm/job.json: what every task of the array needs to
// find its runs, and what `run status` reads.
type arrayJob struct {
	// Sweep is the absolute path of the sweep file.
	Sweep string `json:"sweep"`
	// Tasks is the number of tasks the plan is split into.
	Tasks int `json:"tasks"`
	// Runs and PlanDigest identify the plan (runner.Plan.Digest): a task
	// refuses to run another plan.
	Runs       int    `json:"runs"`
	PlanDigest string `json:"plan_digest"`
	// Binary is the copy of the run program the tasks execute.
	Binary string `json:"binary"`
	// Parallel is the array's limit of tasks running at once.
	Parallel int `json:"parallel"`
}

// check reports the first field that run slurm always sets and a job
// file lacks.
func (j *arrayJob) check() error {
	switch {
	case j.Sweep == "":
		return errors.New(`no "sweep" (the sweep file's path)`)
	case j.Tasks < 1 || j.Tasks > runner.MaxTasks:
		return fmt.Errorf(`"tasks" = %d, want 1..%d`, j.Tasks, runner.MaxTasks)
	case j.Runs < 1:
		return fmt.Errorf(`"runs" = %d, want >= 1`, j.Runs)
	case j.PlanDigest == "":
		return errors.New(`no "plan_digest"`)
	}
	return nil
}

// TaskCmd is `run task`.
type TaskCmd struct {
	Config     string `arg:"" type:"existingfile" help:"Sweep file (TOML)."`
	Out        string `required:"" type:"path" help:"Output directory shared by all tasks."`
	Tasks      int    `required:"" help:"Number of tasks the plan is split into (the array's size), 1..1001."`
	Index      *int   `help:"Task index, 0..tasks-1 (default: $SLURM_ARRAY_TASK_ID, else $JOB_COMPLETION_INDEX)."`
	Workers    *int   `help:"Concurrent runs, 1..4096 (default: $SLURM_CPUS_PER_TASK, else 1)."`
	PlanDigest string `help:"Refuse to run unless the plan's digest (64 hex digits) is this (run slurm sets it, so that a sweep file edited after submission is not executed with another split)."`
	memoryFlag
}

// Validate checks the options.
func (c *TaskCmd) Validate() error {
	if c.Tasks < 1 || c.Tasks > runner.MaxTasks {
		return fmt.Errorf("--tasks %d: want 1..%d", c.Tasks, runner.MaxTasks)
	}
	if c.Index != nil && (*c.Index < 0 || *c.Index >= c.Tasks) {
		return fmt.Errorf("--index %d: want 0..%d (--tasks %d)", *c.Index, c.Tasks-1, c.Tasks)
	}
	if err := checkWorkers(c.Workers); err != nil {
		return err
	}
	if c.PlanDigest != "" && !hexDigestRE.MatchString(c.PlanDigest) {
		return fmt.Errorf("--plan-digest %q: want the 64 hex digits run slurm writes", c.PlanDigest)
	}
	return nil
}

// hexDigestRE is a SHA-256 digest in lower-case hex.
var hexDigestRE = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Run executes one task.
func (c *TaskCmd) Run(ctx context.Context) error {
	index, err := taskIndex(c.Index)
	if err != nil {
		return err
	}
	plan, err := loadPlan(c.Config)
	if err != nil {
		return err
	}
	if c.PlanDigest != "" && plan.Digest() != c.PlanDigest {
		return fmt.Errorf("task %d: the plan of %s (%d runs, digest %.12s) is not the one this array was made for (digest %.12s): the sweep file or the data changed after `run slurm`; make the array again", index, c.Config, len(plan.Runs), plan.Digest(), c.PlanDigest)
	}
	workers := 1
	if c.Workers != nil {
		workers = *c.Workers
	} else if v := os.Getenv("SLURM_CPUS_PER_TASK"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxWorkers {
			return fmt.Errorf("$SLURM_CPUS_PER_TASK = %q: want 1..%d (or give --workers)", v, maxWorkers)
		}
		workers = n
	}
	t := runner.Task{Index: index, Of: c.Tasks}
	if err := t.Validate(len(plan.Runs)); err != nil {
		return fmt.Errorf("--tasks: %w", err)
	}
	if err := runner.CheckOwned(c.Out); errors.Is(err, runner.ErrNotOwned) {
		return err
	}
	e := plan.Estimate(nil, workers, nil, 0)
	if err := c.memoryFlag.check(fmt.Sprintf("run task %d of %d", index, c.Tasks), e.PeakBytes); err != nil {
		return err
	}
	s := &runner.Sweep{Plan: plan, Out: c.Out, Workers: workers, Task: &t, LogEvery: 30 * time.Second, Log: slog.Default()}
	rep, err := s.Execute(ctx)
	if rep != nil {
		fmt.Printf("task %d of %d: %d runs, %d done before, %d executed now (%d done, %d failed) in %s\n",
			index, c.Tasks, rep.Runs, rep.Skipped, rep.Executed, rep.Done, len(rep.Failed), rep.Elapsed.Round(time.Millisecond))
	}
	return err
}

// taskIndex is the flag's index, else the array index from the
// environment.
func taskIndex(flag *int) (int, error) {
	if flag != nil {
		return *flag, nil
	}
	for _, name := range []string{"SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"} {
		if v := os.Getenv(name); v != "" {
			i, err := strconv.Atoi(v)
			if err != nil || i < 0 {
				return 0, fmt.Errorf("$%s = %q: not a task index", name, v)
			}
			return i, nil
		}
	}
	return 0, fmt.Errorf("no task index: give --index, or run inside an array job (%s)", indexEnvList)
}

// SlurmCmd is `run slurm`.
type SlurmCmd struct {
	Config    string   `arg:"" type:"existingfile" help:"Sweep file (TOML)."`
	Out       string   `required:"" type:"path" help:"Output directory, on a filesystem every node sees."`
	Tasks     *int     `help:"Number of array tasks, 1..1001 (Slurm's default MaxArraySize) and at most one per run (default: one per run, up to 1001)."`
	Parallel  int      `help:"Tasks running at once, >= 1 (the %P of --array)." default:"100"`
	CPUs      int      `name:"cpus-per-task" help:"CPUs per task, 1..4096: its runs go concurrently on them." default:"1"`
	Partition string   `help:"Slurm partition: letters, digits, _ . - (a comma-separated list is allowed; default: the cluster's default)."`
	Account   string   `help:"Slurm account to charge: letters, digits, _ . - (default: yours)."`
	Time      string   `help:"Time limit per task, > 0, in Slurm's syntax MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS (default: twice the largest task's estimate plus 10 minutes: the estimate counts each run's simulation, its overhead of about 0.9 ms and its hindsight minima, as run plan does)."`
	Mem       string   `help:"Memory per task, > 0, in Slurm's syntax: an integer with an optional unit K, M (default), G or T (default: from the plan's memory estimate, at least 1G)."`
	Sbatch    []string `name:"sbatch" sep:"none" help:"An extra #SBATCH line for both jobs, as --option or --option=value (the value is quoted), e.g. --sbatch=--qos=short (repeatable)."`
	Submit    bool     `help:"Submit the array and the collect job (sbatch) instead of only writing the scripts."`
	speedFlags
}

// Validate checks the options.
func (c *SlurmCmd) Validate() error {
	if c.Tasks != nil && (*c.Tasks < 1 || *c.Tasks > runner.MaxTasks) {
		return fmt.Errorf("--tasks %d: want 1..%d (or leave it out for one task per run)", *c.Tasks, runner.MaxTasks)
	}
	if c.Parallel < 1 {
		return fmt.Errorf("--parallel %d: want >= 1", c.Parallel)
	}
	if c.CPUs < 1 || c.CPUs > maxCPUsPerTask {
		return fmt.Errorf("--cpus-per-task %d: want 1..%d", c.CPUs, maxCPUsPerTask)
	}
	if c.Time != "" {
		if err := checkSlurmTime(c.Time); err != nil {
			return err
		}
	}
	if c.Mem != "" {
		if err := checkSlurmMem(c.Mem); err != nil {
			return err
		}
	}
	if err := checkSlurmName("--partition", c.Partition); err != nil {
		return err
	}
	if err := checkSlurmName("--account", c.Account); err != nil {
		return err
	}
	for _, x := range c.Sbatch {
		if _, err := sbatchDirective(x); err != nil {
			return err
		}
	}
	return c.speedFlags.validate()
}

// maxCPUsPerTask bounds --cpus-per-task (a node with more cores is rare;
// a larger value is a typo).
const maxCPUsPerTask = 4096

// Run writes (and submits) the scripts.
func (c *SlurmCmd) Run(ctx context.Context) error {
	sweep, err := filepath.Abs(c.Config)
	if err != nil {
		return err
	}
	out, err := filepath.Abs(c.Out)
	if err != nil {
		return err
	}
	plan, err := loadPlan(sweep)
	if err != nil {
		return err
	}
	if len(plan.Runs) == 0 {
		return errors.New("the plan has no runs")
	}
	tasks := runner.DefaultTasks(len(plan.Runs))
	if c.Tasks != nil {
		tasks = *c.Tasks
	}
	if err := (runner.Task{Index: 0, Of: tasks}).Validate(len(plan.Runs)); err != nil {
		return fmt.Errorf("--tasks: %w", err)
	}
	// Everything that reaches the scripts, checked before anything is
	// written.
	for _, f := range []struct{ what, s string }{
		{sweep + ": name", plan.Config.Name}, {"sweep file path", sweep}, {"--out", out},
	} {
		if err := noControl(f.what, f.s); err != nil {
			return err
		}
	}
	if err := runner.ClaimDir(out); err != nil {
		return err
	}
	dir := filepath.Join(out, clusterDir)
	if err := os.MkdirAll(filepath.Join(dir, clusterLogs), 0o755); err != nil {
		return err
	}
	var est strings.Builder
	e, runSeconds, err := c.estimateRates(ctx, &est, plan, nil, c.CPUs, nil)
	if err != nil {
		return err
	}
	limit, mem := c.Time, c.Mem
	if limit == "" {
		limit = slurmMinutes(slurmTimeFactor*taskSeconds(plan, tasks, runSeconds, c.CPUs) + slurmTimeExtra)
	}
	collectMem := mem
	if mem == "" {
		mem = fmt.Sprintf("%dM", max(1024, (e.PeakBytes+(256<<20))>>20))
		collectMem = fmt.Sprintf("%dM", max(1024, (plan.CollectMemory()+(256<<20))>>20))
	}
	if err := checkSlurmTime(limit); err != nil {
		return err
	}
	if err := checkSlurmMem(mem); err != nil {
		return err
	}
	var extra []string
	for _, x := range c.Sbatch {
		d, err := sbatchDirective(x)
		if err != nil {
			return err
		}
		extra = append(extra, d)
	}
	bin := filepath.Join(dir, clusterBin)
	if err := copyExecutable(bin); err != nil {
		return err
	}
	job := arrayJob{Sweep: sweep, Tasks: tasks, Runs: len(plan.Runs), PlanDigest: plan.Digest(), Binary: bin, Parallel: c.Parallel}
	b, _ := json.MarshalIndent(job, "", "  ")
	if err := atomicfile.WriteFile(filepath.Join(dir, jobFile), append(b, '\n')); err != nil {
		return err
	}
	data := scriptData{
		Name: "fedbandit-" + plan.Config.Name, Out: out, Dir: dir, Bin: bin, Sweep: sweep, Job: job,
		Last: tasks - 1, Parallel: c.Parallel, CPUs: c.CPUs, Time: limit, Mem: mem, CollectMem: collectMem,
		Partition: c.Partition, Account: c.Account, Extra: extra,
		Logs: strings.ReplaceAll(filepath.Join(dir, clusterLogs), "%", "%%"),
	}
	for _, s := range []struct {
		file string
		tmpl *template.Template
	}{{arrayScript, arrayTmpl}, {collectJob, collectTmpl}} {
		var buf bytes.Buffer
		if err := s.tmpl.Execute(&buf, data); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(filepath.Join(dir, s.file), buf.Bytes()); err != nil {
			return err
		}
	}
	fmt.Printf("%d runs in %d tasks (up to %d at once, %d CPU(s), %s and %s each)\n", len(plan.Runs), tasks, min(c.Parallel, tasks), c.CPUs, limit, mem)
	fmt.Print(est.String())
	fmt.Printf("wrote %s\n      %s\n", filepath.Join(dir, arrayScript), filepath.Join(dir, collectJob))
	if !c.Submit {
		fmt.Printf("submit with\n  %s\n", submitCommand(dir))
		return nil
	}
	arrayID, err := sbatch(filepath.Join(dir, arrayScript))
	if err != nil {
		return err
	}
	collectID, err := sbatch("--dependency=afterok:"+arrayID, filepath.Join(dir, collectJob))
	if err != nil {
		return fmt.Errorf("array job %s submitted, but the collect job was not (run `run collect %s` when the array is done): %w", arrayID, out, err)
	}
	fmt.Printf("submitted array job %s (%d tasks) and collect job %s (after the array succeeds)\n", arrayID, tasks, collectID)
	fmt.Printf("watch with\n  squeue -j %s,%s\n  run status %s\n", arrayID, collectID, out)
	return nil
}

// submitCommand is the shell command that submits the array and its
// collect job (paths quoted for the shell).
func submitCommand(dir string) string {
	return fmt.Sprintf("jid=$(sbatch --parsable %s) && sbatch --dependency=afterok:${jid%%;*} %s",
		shellQuote(filepath.Join(dir, arrayScript)), shellQuote(filepath.Join(dir, collectJob)))
}

// sbatch submits a script and returns the job id.
func sbatch(args ...string) (string, error) {
	cmd := exec.Command("sbatch", append([]string{"--parsable"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	outb, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("sbatch %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	id, _, _ := strings.Cut(strings.TrimSpace(string(outb)), ";") // "jobid;cluster"
	if id == "" {
		return "", fmt.Errorf("sbatch %s printed no job id", strings.Join(args, " "))
	}
	return id, nil
}

// The default --time of run slurm: slurmTimeFactor times the slowest
// task's estimate (taskSeconds, of runner.EstimateRun: each run's
// simulation, overhead and memoised work) plus slurmTimeExtra seconds
// (the task's start, its plan and a node slower than the one that timed
// the pilots), as --help and docs/cluster.md say.
const (
	slurmTimeFactor = 2
	slurmTimeExtra  = 600
)

// taskSeconds is the estimated wall time of the slowest task on cpus
// CPUs: over the tasks, the larger of its runs' CPU time over the CPUs
// and its longest run (runSeconds estimates one run).
func taskSeconds(plan *runner.Plan, tasks int, runSeconds func(*runner.Run) float64, cpus int) float64 {
	var worst float64
	for i := 0; i < tasks; i++ {
		var sum, longest float64
		for _, r := range plan.TaskRuns(runner.Task{Index: i, Of: tasks}) {
			sec := runSeconds(r)
			sum += sec
			longest = math.Max(longest, sec)
		}
		worst = math.Max(worst, math.Max(sum/float64(cpus), longest))
	}
	return worst
}

// slurmMinutes formats seconds as a Slurm time limit, rounded up to whole
// minutes ("D-HH:MM:00").
func slurmMinutes(sec float64) string {
	m := int(math.Ceil(sec / 60))
	return fmt.Sprintf("%d-%02d:%02d:00", m/1440, m%1440/60, m%60)
}

// copyExecutable copies this program to dst, so that the array runs the
// build that planned it (and not a `go run` binary that is deleted on
// exit).
func copyExecutable(dst string) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find this program: %w", err)
	}
	src, err := os.Open(self)
	if err != nil {
		return err
	}
	defer src.Close()
	if err := atomicfile.Write(dst, func(w io.Writer) error { _, err := io.Copy(w, src); return err }); err != nil {
		return err
	}
	return os.Chmod(dst, 0o755)
}

// scriptData fills the sbatch templates.
type scriptData struct {
	Name, Out, Dir, Bin, Sweep string
	Logs                       string // Dir/logs with % doubled (sbatch filename patterns)
	Job                        arrayJob
	Last, Parallel, CPUs       int
	Time, Mem                  string
	CollectMem                 string // --mem of the collect job (outputs.CollectMemory)
	Partition, Account         string
	Extra                      []string
}

// funcs quote values: q for a shell word, sq for an #SBATCH value.
var funcs = template.FuncMap{"q": shellQuote, "sq": sbatchQuote}

// siteTmpl holds the directives both scripts end with: the site's
// partition, account and extra lines.
var siteTmpl = template.Must(template.New("site").Funcs(funcs).Parse(`{{if .Partition}}
#SBATCH --partition={{sq .Partition}}{{end}}{{if .Account}}
#SBATCH --account={{sq .Account}}{{end}}{{range .Extra}}
#SBATCH {{.}}{{end}}`))

// script is an sbatch template that can use "site".
func script(name, text string) *template.Template {
	return template.Must(template.Must(siteTmpl.Clone()).New(name).Parse(text))
}

var arrayTmpl = script("array", `#!/bin/bash
# fedbandit array job: written by run slurm. Task I executes the runs of
# share I of {{.Job.Tasks}} of the plan of {{.Sweep}} ({{.Job.Runs}} runs) into
# {{.Out}}, each run published atomically; a task that is requeued or
# submitted again redoes nothing already published.
#SBATCH --job-name={{sq .Name}}
#SBATCH --array=0-{{.Last}}%{{.Parallel}}
#SBATCH --cpus-per-task={{.CPUs}}
#SBATCH --mem={{sq .Mem}}
#SBATCH --time={{sq .Time}}
#SBATCH --output={{sq (printf "%s/%%A_%%a.out" .Logs)}}
#SBATCH --requeue{{template "site" .}}
exec {{q .Bin}} task {{q .Sweep}} --out {{q .Out}} --tasks {{.Job.Tasks}} --plan-digest {{.Job.PlanDigest}}
`)

var collectTmpl = script("collect", `#!/bin/bash
# fedbandit collect job: written by run slurm, submitted to start after the
# array succeeds (--dependency=afterok). Writes runs.arrow and curves.arrow.
#SBATCH --job-name={{sq (printf "%s-collect" .Name)}}
#SBATCH --cpus-per-task=1
#SBATCH --mem={{sq .CollectMem}}
#SBATCH --time=0-01:00:00
#SBATCH --output={{sq (printf "%s/collect_%%j.out" .Logs)}}{{template "site" .}}
exec {{q .Bin}} collect {{q .Out}}
`)

// shellQuote quotes s for bash.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// StatusCmd is `run status`.
type StatusCmd struct {
	Dir string `arg:"" type:"existingdir" help:"Output directory of an array job (run slurm)."`
	All bool   `help:"List every task, not only the incomplete ones."`
}

// Run prints the progress per task.
func (c *StatusCmd) Run() error {
	b, err := os.ReadFile(filepath.Join(c.Dir, clusterDir, jobFile))
	if err != nil {
		return fmt.Errorf("%s is not the output directory of an array job (run slurm writes %s): %w", c.Dir, filepath.Join(clusterDir, jobFile), err)
	}
	var job arrayJob
	if err := json.Unmarshal(b, &job); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(c.Dir, clusterDir, jobFile), err)
	}
	if err := job.check(); err != nil {
		return fmt.Errorf("%s: %w: not written by run slurm, or damaged; make the array again with run slurm", filepath.Join(c.Dir, clusterDir, jobFile), err)
	}
	plan, err := loadPlan(job.Sweep)
	if err != nil {
		return err
	}
	if plan.Digest() != job.PlanDigest {
		return fmt.Errorf("the plan of %s changed since the array was made (digest %.12s, array %.12s): its tasks will refuse to run; make the array again with run slurm", job.Sweep, plan.Digest(), job.PlanDigest)
	}
	st, err := plan.Status(c.Dir, job.Tasks)
	if err != nil {
		return err
	}
	printStatus(os.Stdout, c.Dir, st, job.Parallel, c.All)
	return nil
}

// printStatus prints the tasks' progress and the command that reruns the
// incomplete ones.
func printStatus(w io.Writer, dir string, st []runner.TaskStatus, parallel int, all bool) {
	var runs, done, failed, missing, complete int
	var rerun []int
	for _, s := range st {
		runs += s.Runs
		done += s.Done
		failed += s.Failed
		missing += s.Missing
		if s.Complete() {
			complete++
		} else {
			rerun = append(rerun, s.Task.Index)
		}
	}
	fmt.Fprintf(w, "%d tasks: %d complete, %d not; %d runs: %d done, %d failed, %d missing\n", len(st), complete, len(st)-complete, runs, done, failed, missing)
	for _, s := range st {
		if all || !s.Complete() {
			fmt.Fprintf(w, "  task %4d: %d runs, %d done, %d failed, %d missing\n", s.Task.Index, s.Runs, s.Done, s.Failed, s.Missing)
		}
	}
	if len(rerun) == 0 {
		if _, err := os.Stat(filepath.Join(dir, "runs.arrow")); err != nil {
			fmt.Fprintf(w, "every run is done; collect the tables with\n  run collect %s\n", shellQuote(dir))
		}
		return
	}
	fmt.Fprintf(w, "if no task is still queued or running (squeue), rerun the incomplete ones (finished runs are kept) with\n  %s\n"+
		"and cancel the first collect job if it waits for an array that failed (squeue shows it as DependencyNeverSatisfied).\n",
		rerunCommand(filepath.Join(dir, clusterDir), rerun, parallel))
}

// rerunCommand submits the given tasks of the array again, then the
// collect after them.
func rerunCommand(dir string, tasks []int, parallel int) string {
	limit := ""
	if parallel > 0 {
		limit = fmt.Sprintf("%%%d", parallel)
	}
	return fmt.Sprintf("jid=$(sbatch --parsable --array=%s%s %s) && sbatch --dependency=afterok:${jid%%;*} %s",
		indexList(tasks), limit, shellQuote(filepath.Join(dir, arrayScript)), shellQuote(filepath.Join(dir, collectJob)))
}

// indexList writes sorted indices in Slurm's array syntax: "0-3,7,9-10".
func indexList(ix []int) string {
	var b strings.Builder
	for i := 0; i < len(ix); {
		j := i
		for j+1 < len(ix) && ix[j+1] == ix[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		if j > i {
			fmt.Fprintf(&b, "%d-%d", ix[i], ix[j])
		} else {
			fmt.Fprintf(&b, "%d", ix[i])
		}
		i = j + 1
	}
	return b.String()
}
