package cliconv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// exit2 is an error of a command's own type that says its exit status.
type exit2 struct{ error }

func (exit2) ExitCode() int { return 2 }

// TestReport: a usage error (kong's, one marked by Usage, wrapped or not,
// or one whose ExitCode is 2) is three lines and status 2; any other
// error is one line and status 1; a first word that is no command is
// refused with the closest, after the global flags, and a flag's value is
// not taken for a command. Mutation-checked: dropping the ExitCoder case
// of IsUsage fails it.
func TestReport(t *testing.T) {
	var app struct {
		Verbose bool   `short:"v"`
		Level   string `help:"A global flag with a value."`
		Sweep   struct {
			Out string
		} `cmd:""`
		Table struct{} `cmd:""`
	}
	k, err := kong.New(&app, kong.Name("tool"), kong.Exit(func(int) {}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		err    error
		status int
	}{
		{Usage(errors.New("bad --x")), 2},
		{fmt.Errorf("wrapped: %w", Usage(errors.New("bad --x"))), 2},
		{exit2{errors.New("bad --only")}, 2},
		{errors.New("disk full"), 1},
	} {
		var w bytes.Buffer
		if got := Report(&w, k, nil, tc.err); got != tc.status || strings.Count(w.String(), "\n") != map[int]int{1: 1, 2: 3}[tc.status] {
			t.Errorf("Report(%v) = %d:\n%s", tc.err, got, w.String())
		}
	}
	for args, want := range map[string]string{
		"swep":               `unknown command "swep" (the commands: sweep, table), did you mean "sweep"?`,
		"-v --level x tabel": `did you mean "table"?`,
		"--level sweep":      `expected one of`, // "sweep" is the flag's value; no command follows
	} {
		_, err := Parse(k, strings.Fields(args))
		if err == nil || !IsUsage(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q): %v, want a usage error containing %q", args, err, want)
		}
	}
	if _, err := Parse(k, []string{"-v", "--level=x", "sweep", "--out", "o"}); err != nil {
		t.Errorf("a valid command line: %v", err)
	}
}

// TestStart: Start reports a parse error (status 2, not ok) and sets the
// default logger at debug level exactly when the parsed -v is set, for
// both commands (run and prep call it). Mutation: Start ignoring
// *verbose (always info) fails the "-v" case.
func TestStart(t *testing.T) {
	defer func(l *slog.Logger) { slog.SetDefault(l) }(slog.Default())
	var app struct {
		Verbose bool     `short:"v"`
		Sweep   struct{} `cmd:""`
	}
	k, err := kong.New(&app, kong.Name("tool"), kong.Exit(func(int) {}))
	if err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	if _, status, ok := Start(k, []string{"swep"}, &w, &app.Verbose); ok || status != ExitUsage || !strings.Contains(w.String(), "did you mean") {
		t.Errorf("a parse error: ok %v, status %d, %q", ok, status, w.String())
	}
	for _, args := range [][]string{{"sweep"}, {"-v", "sweep"}} {
		app.Verbose = false
		kctx, status, ok := Start(k, args, &w, &app.Verbose)
		if !ok || status != 0 || kctx == nil {
			t.Fatalf("%v: ok %v, status %d", args, ok, status)
		}
		if debug := slog.Default().Enabled(context.Background(), slog.LevelDebug); debug != (args[0] == "-v") {
			t.Errorf("%v: the default logger logs debug lines: %v", args, debug)
		}
	}
}
