//go:build unix

package dirlock

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

const childEnv = "DIRLOCK_CHILD"

// TestChild holds the lock named by the environment for 300 ms.
func TestChild(t *testing.T) {
	p := os.Getenv(childEnv)
	if p == "" {
		t.Skip("child process of TestLockAcrossProcesses")
	}
	unlock, err := Lock(p, false)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p+".held", nil, 0o644)
	time.Sleep(300 * time.Millisecond)
	unlock()
}

// TestLockAcrossProcesses: while another process holds the lock, Lock
// without wait fails with ErrLocked and Lock with wait returns only after
// the holder released it.
func TestLockAcrossProcesses(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("in child")
	}
	p := filepath.Join(t.TempDir(), ".lock")
	cmd := exec.Command(os.Args[0], "-test.run=^TestChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+p)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1000; i++ {
		if _, err := os.Stat(p + ".held"); err == nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := Lock(p, false); !errors.Is(err, ErrLocked) {
		t.Fatalf("Lock while held: err = %v, want ErrLocked", err)
	}
	start := time.Now()
	unlock, err := Lock(p, true)
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) < 100*time.Millisecond {
		t.Errorf("waiting Lock returned after %v, before the holder released it", time.Since(start))
	}
}

// TestSharedLock: shared holders coexist (flock locks of separate open
// files behave as separate processes' do), the exclusive lock fails while
// one remains and succeeds once all are gone, and a shared lock fails
// while the exclusive one is held.
func TestSharedLock(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".lock")
	u1, err := LockShared(p, false)
	if err != nil {
		t.Fatal(err)
	}
	u2, err := LockShared(p, false)
	if err != nil {
		t.Fatalf("second shared lock: %v", err)
	}
	if _, err := Lock(p, false); !errors.Is(err, ErrLocked) {
		t.Fatalf("exclusive lock beside shared ones: err = %v, want ErrLocked", err)
	}
	u1()
	if _, err := Lock(p, false); !errors.Is(err, ErrLocked) {
		t.Fatalf("exclusive lock beside one shared: err = %v, want ErrLocked", err)
	}
	u2()
	ux, err := Lock(p, false)
	if err != nil {
		t.Fatalf("exclusive lock after the shared ones: %v", err)
	}
	if _, err := LockShared(p, false); !errors.Is(err, ErrLocked) {
		t.Fatalf("shared lock beside the exclusive one: err = %v, want ErrLocked", err)
	}
	ux()
}
