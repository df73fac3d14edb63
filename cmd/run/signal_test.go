//go:build unix

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const childArgsEnv = "FEDBANDIT_RUN_CHILD_ARGS"

// TestMainChild is the child process of TestSignalExitStatus: it runs
// main with the arguments named by the environment.
func TestMainChild(t *testing.T) {
	args := os.Getenv(childArgsEnv)
	if args == "" {
		t.Skip("child process of TestSignalExitStatus")
	}
	os.Args = append([]string{"run"}, strings.Split(args, "\x1f")...)
	main()
}

// TestSignalExitStatus: SIGTERM during a sweep exits 143 and SIGINT 130
// (128 + the signal), with a message that says what happened and what to
// do, not "context canceled" (issue 14).
func TestSignalExitStatus(t *testing.T) {
	if os.Getenv(childArgsEnv) != "" {
		t.Skip("in child")
	}
	sweep := filepath.Join(t.TempDir(), "sweep.toml")
	os.WriteFile(sweep, []byte(`name = "signals"
seeds = 200
[[instance]]
kind = "synthetic"
d = 10
k = 100
noise_var = 0.25
[[algorithm]]
name = "fedlinucb"
[grid]
M = [10]
B = [25]
T = [5000]
`), 0o644)
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
		name string
	}{{syscall.SIGTERM, 143, "terminated"}, {syscall.SIGINT, 130, "interrupt"}} {
		out := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^TestMainChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), childArgsEnv+"="+strings.Join([]string{"sweep", sweep, "--out", out, "--workers", "1"}, "\x1f"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			if ents, _ := os.ReadDir(filepath.Join(out, "runs")); len(ents) > 0 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		cmd.Process.Signal(tc.sig)
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != tc.code {
			t.Fatalf("%v: exit %v, want status %d; stderr:\n%s", tc.sig, err, tc.code, stderr.String())
		}
		msg := stderr.String()
		if !strings.Contains(msg, "received "+tc.name) || !strings.Contains(msg, "rerun the same command") || strings.Contains(msg, "context canceled") {
			t.Errorf("%v: stderr does not explain the interruption:\n%s", tc.sig, msg)
		}
	}
}
