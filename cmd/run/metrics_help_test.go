package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/fedbandit/fedbandit/outputs"
)

// TestHelpListsMetrics: `run plot --help` and `run table --help` list
// every curve metric --metric takes, with its column and its
// declaration's meaning (outputs.Metrics: a metric's declaration is the
// documentation a user sees, and a new one needs no help edit).
// Mutation control (tried 2026-12-02): metricsHelp without the Doc line
// fails it.
func TestHelpListsMetrics(t *testing.T) {
	for _, cmd := range []string{"plot", "table"} {
		var out bytes.Buffer
		k, err := newParser(&cli{}, kong.Writers(&out, &out), kong.Exit(func(int) {}))
		if err != nil {
			t.Fatal(err)
		}
		k.Parse([]string{cmd, "--help"}) // prints the help; the exit is a no-op here
		help := strings.Join(strings.Fields(out.String()), " ")
		for _, m := range outputs.Metrics() {
			for _, w := range []string{m.Name + " " + m.Label, "column " + m.Column, m.Doc} {
				if !strings.Contains(help, strings.Join(strings.Fields(w), " ")) {
					t.Errorf("run %s --help does not say %q", cmd, w)
				}
			}
		}
	}
}
