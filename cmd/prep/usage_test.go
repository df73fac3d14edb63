package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/internal/cliconv"
)

// TestPrepUsageErrorsExit2: every prep command with an unknown flag, a
// mistyped command and a bad flag value exit 2 with three short lines on
// stderr (error, usage, see) and nothing on stdout; --version is a flag.
// Mutation-checked: ExitUsage 80 fails it.
func TestPrepUsageErrorsExit2(t *testing.T) {
	check := func(args []string, parts ...string) {
		t.Helper()
		var stderr bytes.Buffer
		saved := os.Stdout
		f, err := os.CreateTemp(t.TempDir(), "stdout")
		if err != nil {
			t.Fatal(err)
		}
		os.Stdout = f
		status := prepMain(args, &stderr)
		os.Stdout = saved
		f.Close()
		if b, _ := os.ReadFile(f.Name()); len(b) > 0 {
			t.Errorf("prep %q: a usage error printed on stdout:\n%s", args, b)
		}
		lines := strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n")
		if status != 2 || len(lines) != 3 || !strings.HasPrefix(lines[0], "prep: error: ") ||
			!strings.HasPrefix(lines[1], "usage: prep ") || !strings.HasPrefix(lines[2], "see 'prep") {
			t.Errorf("prep %q: exit %d, stderr:\n%s\nwant exit 2 and 3 lines: error, usage, see", args, status, stderr.String())
		}
		for _, p := range parts {
			if !strings.Contains(lines[0], p) {
				t.Errorf("prep %q: error line %q does not contain %q", args, lines[0], p)
			}
		}
	}
	var c cli
	k, err := newParser(&c)
	if err != nil {
		t.Fatal(err)
	}
	cmds := cliconv.Commands(k.Model)
	if len(cmds) < 6 {
		t.Fatalf("commands %q", cmds)
	}
	for _, cmd := range cmds {
		check(append(cmd, "--no-such-flag"), "--no-such-flag")
	}
	check([]string{"injest", "x"}, `unknown command "injest"`, `did you mean "ingest"?`)
	check([]string{"version"}, `did you mean "--version"?`)
	check([]string{"partition", t.TempDir(), "--silos", "0"}, "--silos")
}
