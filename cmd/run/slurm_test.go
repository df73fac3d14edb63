//go:build linux

package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fedbandit/fedbandit/outputs"
)

// The tests in this file run the array job on a real Slurm: a private
// single-node cluster on loopback (its own munge key and socket, its own
// ports, state and logs in a temp directory), started for the test and
// stopped by PID whatever happens. They run whenever the daemons and
// client are installed (.ci/run installs them from Debian) and skip, with
// the reason, where they are not.

// slurmSweep is a small synthetic sweep: 16 runs, each well under a
// second.
const slurmSweep = `name = "slurm test"
seeds = 4

[[instance]]
name = "syn"
kind = "synthetic"
d = 5
k = 20
seed = 3

[[algorithm]]
name = "fedlinucb"

[[algorithm]]
name = "ldp"
eps = [1]

[[algorithm]]
name = "sdp-amp"
eps = [1]

[[algorithm]]
name = "random"

[grid]
delta = [0.1]
M = [4]
B = [10]
T = [400]
`

// cluster is a running private Slurm.
type cluster struct {
	dir, conf string
	env       []string
}

// startCluster starts munged, slurmctld and slurmd for the test.
func startCluster(t testing.TB) *cluster {
	t.Helper()
	skip := t.Skipf
	if os.Getenv("FEDBANDIT_REQUIRE_SLURM") == "1" { // CI: a skip would hide the test
		skip = t.Fatalf
	}
	for _, p := range []string{"munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "sinfo"} {
		if _, err := exec.LookPath(p); err != nil {
			skip("Slurm is not installed (%s not on PATH; .ci/run installs slurmctld slurmd slurm-client munge)", p)
		}
	}
	if os.Geteuid() != 0 {
		skip("the private cluster runs slurmd as root (SlurmdUser=root), and this test is not root")
	}
	dir, err := os.MkdirTemp("", "fbslurm-") // short: unix socket paths are limited to 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, d := range []string{"key", "sock", "state", "spool", "log"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(filepath.Join(dir, "key"), 0o700)
	key := make([]byte, 1024)
	if f, err := os.Open("/dev/urandom"); err == nil {
		f.Read(key)
		f.Close()
	}
	keyFile := filepath.Join(dir, "key", "munge.key")
	if err := os.WriteFile(keyFile, key, 0o400); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock", "munge.sock")
	host, err := exec.Command("hostname", "-s").Output()
	if err != nil {
		t.Fatal(err)
	}
	node := strings.TrimSpace(string(host))
	ctldPort, dPort := freePort(t), freePort(t)
	conf := filepath.Join(dir, "slurm.conf")
	os.WriteFile(conf, []byte(fmt.Sprintf(`ClusterName=fbtest
SlurmctldHost=%[1]s(127.0.0.1)
SlurmctldPort=%[2]d
SlurmdPort=%[3]d
AuthType=auth/munge
AuthInfo=socket=%[4]s
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=%[5]s/state
SlurmdSpoolDir=%[5]s/spool
SlurmctldPidFile=%[5]s/slurmctld.pid
SlurmdPidFile=%[5]s/slurmd.pid
SlurmctldLogFile=%[5]s/log/slurmctld.log
SlurmdLogFile=%[5]s/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
KillWait=5
NodeName=%[1]s NodeAddr=127.0.0.1 CPUs=2 RealMemory=8000 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
`, node, ctldPort, dPort, sock, dir)), 0o644)
	c := &cluster{dir: dir, conf: conf, env: append(os.Environ(), "SLURM_CONF="+conf)}

	var procs []*exec.Cmd
	t.Cleanup(func() {
		for i := len(procs) - 1; i >= 0; i-- {
			p := procs[i]
			p.Process.Signal(syscall.SIGTERM)
			done := make(chan struct{})
			go func() { p.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				p.Process.Kill()
				<-done
			}
		}
		if t.Failed() {
			for _, f := range []string{"slurmctld.log", "slurmd.log", "munged.log"} {
				b, _ := os.ReadFile(filepath.Join(dir, "log", f))
				t.Logf("--- %s (tail):\n%s", f, tail(string(b), 3000))
			}
		}
	})
	start := func(name string, args ...string) {
		cmd := exec.Command(name, args...)
		cmd.Env = c.env
		cmd.Stdout, cmd.Stderr = nil, nil
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatalf("start %s: %v", name, err)
		}
		procs = append(procs, cmd)
	}
	start("munged", "-F", "-f", "--socket="+sock, "--key-file="+keyFile, "--pid-file="+filepath.Join(dir, "sock", "munged.pid"),
		"--log-file="+filepath.Join(dir, "log", "munged.log"), "--seed-file="+filepath.Join(dir, "key", "seed"))
	waitFor(t, 10*time.Second, "munge socket", func() bool { _, err := os.Stat(sock); return err == nil })
	start("slurmctld", "-D", "-f", conf)
	start("slurmd", "-D", "-f", conf)
	waitFor(t, 30*time.Second, "the node to be idle", func() bool {
		out, _ := c.run("sinfo", "-h", "-o", "%t")
		return strings.TrimSpace(out) == "idle"
	})
	return c
}

// run runs a Slurm client command against the private cluster.
func (c *cluster) run(name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = c.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// waitIdle polls squeue until no job is left, or fails after d.
func (c *cluster) waitIdle(t testing.TB, d time.Duration) {
	t.Helper()
	waitFor(t, d, "the queue to empty", func() bool {
		out, _ := c.run("squeue", "-h")
		return strings.TrimSpace(out) == ""
	})
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func waitFor(t testing.TB, d time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// buildRun builds this command into dir and returns the binary's path.
func buildRun(t testing.TB, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "run")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runBin runs the built program with the cluster's environment.
func runBin(t testing.TB, env []string, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("run %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// tablesOf returns curves.arrow's bytes and runs.arrow's rows without
// the measured wall_seconds (the one documented non-reproducible column).
func tablesOf(t *testing.T, dir string) ([]byte, string) {
	t.Helper()
	curves, err := os.ReadFile(filepath.Join(dir, outputs.CurvesFile))
	if err != nil {
		t.Fatal(err)
	}
	runs, err := outputs.ReadRuns(filepath.Join(dir, outputs.RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range runs {
		r.WallSeconds = 0
		writeValues(&b, reflect.ValueOf(r))
		b.WriteByte('\n')
	}
	return curves, b.String()
}

// writeValues writes v's values, following pointers (a layout-3 record's
// nullable columns are pointers, whose addresses differ between two
// reads of the same table).
func writeValues(b *strings.Builder, v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			b.WriteString("null")
			return
		}
		writeValues(b, v.Elem())
	case reflect.Struct:
		b.WriteString("{")
		for i := range v.NumField() {
			fmt.Fprintf(b, "%s:", v.Type().Field(i).Name)
			writeValues(b, v.Field(i))
			b.WriteString(" ")
		}
		b.WriteString("}")
	case reflect.Slice, reflect.Array:
		b.WriteString("[")
		for i := range v.Len() {
			writeValues(b, v.Index(i))
			b.WriteString(" ")
		}
		b.WriteString("]")
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		b.WriteString("map[")
		for _, k := range keys {
			fmt.Fprintf(b, "%v:", k)
			writeValues(b, v.MapIndex(k))
			b.WriteString(" ")
		}
		b.WriteString("]")
	default:
		fmt.Fprintf(b, "%v", v)
	}
}

// TestSlurmArray runs a sweep as an 8-task array with its collect job on a
// real Slurm and requires the tables of `run sweep` on one machine; then
// cancels one task of a second array mid-run, resubmits only the
// incomplete tasks with the command `run status` prints, and requires the
// same tables again, every run published once.
func TestSlurmArray(t *testing.T) {
	c := startCluster(t)
	// A space in every path and in the sweep's name: the scripts must
	// quote them (attack round 2, case 39), or Slurm writes no logs and
	// the tasks fail.
	work := filepath.Join(t.TempDir(), "sp ace")
	os.MkdirAll(work, 0o755)
	bin := buildRun(t, work)
	sweep := filepath.Join(work, "sweep.toml")
	os.WriteFile(sweep, []byte(slurmSweep), 0o644)
	env := append(c.env, "XDG_CACHE_HOME="+filepath.Join(work, "cache"))

	ref := filepath.Join(work, "ref")
	runBin(t, env, bin, "sweep", sweep, "--out", ref, "--workers", "2", "--no-plot")
	wantCurves, wantRuns := tablesOf(t, ref)

	t.Run("array", func(t *testing.T) {
		out := filepath.Join(work, "array")
		msg := runBin(t, env, bin, "slurm", sweep, "--out", out, "--tasks", "8", "--parallel", "2", "--submit")
		if !strings.Contains(msg, "submitted array job") {
			t.Fatalf("run slurm --submit:\n%s", msg)
		}
		c.waitIdle(t, 90*time.Second)
		gotCurves, gotRuns := tablesOf(t, out)
		if !bytes.Equal(gotCurves, wantCurves) {
			t.Error("curves.arrow of the array differs from run sweep's")
		}
		if gotRuns != wantRuns {
			t.Error("runs.arrow of the array differs from run sweep's (wall_seconds aside)")
		}
		logs, _ := filepath.Glob(filepath.Join(out, "slurm", "logs", "[0-9]*_*.out"))
		if len(logs) != 8 {
			t.Errorf("%d task logs, want 8: %v", len(logs), logs)
		}
		if st := runBin(t, env, bin, "status", out); !strings.Contains(st, "8 tasks: 8 complete, 0 not; 16 runs: 16 done, 0 failed, 0 missing") {
			t.Errorf("run status:\n%s", st)
		}
	})

	t.Run("cancel and resubmit", func(t *testing.T) {
		out := filepath.Join(work, "cancel")
		runBin(t, env, bin, "slurm", sweep, "--out", out, "--tasks", "8", "--parallel", "1")
		// Slow the array down so that a task can be cancelled mid-run:
		// the tasks run one at a time, and task 3 waits before it starts.
		script := filepath.Join(out, "slurm", "array.sbatch")
		b, _ := os.ReadFile(script)
		slow := strings.Replace(string(b), "\nexec ", "\n[ \"$SLURM_ARRAY_TASK_ID\" = 3 ] && sleep 30\nexec ", 1)
		os.WriteFile(script, []byte(slow), 0o644)
		arr, err := c.run("sbatch", "--parsable", script)
		if err != nil {
			t.Fatalf("sbatch: %v: %s", err, arr)
		}
		arrayID := strings.TrimSpace(arr)
		coll, err := c.run("sbatch", "--parsable", "--dependency=afterok:"+arrayID, filepath.Join(out, "slurm", "collect.sbatch"))
		if err != nil {
			t.Fatalf("sbatch collect: %v: %s", err, coll)
		}
		waitFor(t, 60*time.Second, "task 3 to run", func() bool {
			o, _ := c.run("squeue", "-h", "-t", "R", "-o", "%i")
			return strings.Contains(o, arrayID+"_3")
		})
		if o, err := c.run("scancel", arrayID+"_3"); err != nil {
			t.Fatalf("scancel: %v: %s", err, o)
		}
		// The rest of the array runs; the collect job then waits for a
		// dependency that can never be met.
		waitFor(t, 90*time.Second, "the array's other tasks", func() bool {
			o, _ := c.run("squeue", "-h", "-j", arrayID, "-o", "%i")
			return strings.TrimSpace(o) == ""
		})
		c.run("scancel", strings.TrimSpace(coll))
		c.waitIdle(t, 30*time.Second)

		st := runBin(t, env, bin, "status", out)
		if !strings.Contains(st, "8 tasks: 7 complete, 1 not") || !strings.Contains(st, "task    3: 2 runs, 0 done, 0 failed, 2 missing") {
			t.Fatalf("run status after the cancel:\n%s", st)
		}
		i := strings.Index(st, "jid=$(sbatch")
		if i < 0 {
			t.Fatalf("no rerun command in:\n%s", st)
		}
		rerun := strings.TrimSpace(strings.SplitN(st[i:], "\n", 2)[0])
		if !strings.Contains(rerun, "--array=3%1 ") {
			t.Errorf("rerun command %q does not select task 3 alone", rerun)
		}
		// The slow-down is done with: give the task its plain script back.
		os.WriteFile(script, b, 0o644)
		cmd := exec.Command("bash", "-c", rerun)
		cmd.Env = env
		if o, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v: %s", rerun, err, o)
		}
		c.waitIdle(t, 60*time.Second)
		gotCurves, gotRuns := tablesOf(t, out)
		if !bytes.Equal(gotCurves, wantCurves) {
			t.Error("curves.arrow after cancel and resubmit differs from run sweep's")
		}
		if gotRuns != wantRuns {
			t.Error("runs.arrow after cancel and resubmit differs from run sweep's (wall_seconds aside)")
		}
		files, _ := filepath.Glob(filepath.Join(out, outputs.RunsDir, "*"))
		if len(files) != 16 {
			t.Errorf("%d files in runs/, want the 16 runs once each: %v", len(files), files)
		}
	})
}

// benchSweep is the throughput benchmark's sweep: 16 runs of about half a
// second each (synthetic, M = 20, K = 100, d = 10, T = 10,000).
const benchSweep = `name = "slurm-bench"
seeds = 8

[[instance]]
name = "syn"
kind = "synthetic"
seed = 3

[[algorithm]]
name = "fedlinucb"

[[algorithm]]
name = "ldp"
eps = [1]

[grid]
delta = [0.1]
M = [20]
B = [25]
T = [10000]
`

// BenchmarkSlurmArray compares the throughput of the same sweep as an
// 8-task array (2 at once, one CPU each, collect job included) on the
// private cluster with run sweep --workers 2 on the same 2 cores: the
// difference is Slurm's overhead (scheduling passes, job launch, one
// process and plan per task). docs/cluster.md and BENCHMARKS.md quote it.
//
//	go test ./cmd/run/ -run XXX -bench SlurmArray -benchtime 3x
func BenchmarkSlurmArray(b *testing.B) {
	c := startCluster(b)
	work := b.TempDir()
	bin := buildRun(b, work)
	sweep := filepath.Join(work, "sweep.toml")
	os.WriteFile(sweep, []byte(benchSweep), 0o644)
	env := append(c.env, "XDG_CACHE_HOME="+filepath.Join(work, "cache"))
	runBin(b, env, bin, "plan", sweep) // time the pilots once, outside the loops
	b.Run("sweep-workers-2", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			runBin(b, env, bin, "sweep", sweep, "--out", filepath.Join(work, fmt.Sprintf("sweep%d", i)), "--workers", "2", "--no-plot")
		}
	})
	b.Run("array-8-tasks", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			out := filepath.Join(work, fmt.Sprintf("array%d", i))
			runBin(b, env, bin, "slurm", sweep, "--out", out, "--tasks", "8", "--parallel", "2", "--submit")
			c.waitIdle(b, 10*time.Minute)
			if _, err := os.Stat(filepath.Join(out, outputs.CurvesFile)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
