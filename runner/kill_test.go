//go:build unix

package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fedbandit/fedbandit/outputs"
)

const childEnv = "FEDBANDIT_RUNNER_CHILD_OUT"

// TestSIGKILLChild is the child process of TestSIGKILLResume: it runs the
// tiny sweep slowly into the directory named by the environment.
func TestSIGKILLChild(t *testing.T) {
	dir := os.Getenv(childEnv)
	if dir == "" {
		t.Skip("child process of TestSIGKILLResume")
	}
	plan := mustPlan(t, tinyTOML)
	if _, err := sweepInto(t, plan, dir, 2, fakeSim{delay: 15 * time.Millisecond}, nil); err != nil {
		t.Fatal(err)
	}
}

// TestSIGKILLResume kills a real sweep process with SIGKILL at several
// moments (after k run files appeared, at whatever point of a publish the
// process happens to be), reruns the sweep and requires exactly the files
// of an uninterrupted sweep.
func TestSIGKILLResume(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("in child")
	}
	plan := mustPlan(t, tinyTOML)
	ref := t.TempDir()
	if _, err := sweepInto(t, plan, ref, 2, fakeSim{}, nil); err != nil {
		t.Fatal(err)
	}
	want := dirHashes(t, ref)
	for _, k := range []int{0, 1, 4, 9} {
		dir := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^TestSIGKILLChild$", "-test.count=1")
		// The child dies by SIGKILL, so its own temp dirs go under ours.
		cmd.Env = append(os.Environ(), childEnv+"="+dir, "TMPDIR="+t.TempDir())
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for {
			files, _ := filepath.Glob(filepath.Join(dir, outputs.RunsDir, "*.arrow"))
			if len(files) >= k || time.Now().After(deadline) {
				break
			}
			time.Sleep(time.Millisecond)
		}
		cmd.Process.Kill() // SIGKILL
		cmd.Wait()
		if _, err := sweepInto(t, plan, dir, 2, fakeSim{}, nil); err != nil {
			t.Fatalf("kill after %d files: rerun: %v", k, err)
		}
		got := dirHashes(t, dir)
		for f := range got {
			if strings.HasSuffix(f, outputs.TempSuffix) {
				delete(got, f)
			}
		}
		if d := diffHashes(want, got); d != "" {
			t.Fatalf("kill after %d files: outputs differ from an uninterrupted sweep:\n%s", k, d)
		}
	}
}
