package main

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestNotebookCells: examples/regret.ipynb is nbformat 4.5 with a unique
// id on every cell (nbformat warns, and will refuse, without), is stored
// without outputs, and keeps the reader fallback and the PNG the CI run
// (scripts/notebook.sh) relies on. Mutation-checked: a cell without an
// id fails it.
func TestNotebookCells(t *testing.T) {
	b, err := os.ReadFile("../../examples/regret.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	var nb struct {
		Format int `json:"nbformat"`
		Minor  int `json:"nbformat_minor"`
		Cells  []struct {
			Type    string            `json:"cell_type"`
			ID      string            `json:"id"`
			Source  []string          `json:"source"`
			Outputs []json.RawMessage `json:"outputs"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &nb); err != nil {
		t.Fatal(err)
	}
	if nb.Format != 4 || nb.Minor < 5 {
		t.Errorf("nbformat %d.%d, want 4.5 or later (cell ids)", nb.Format, nb.Minor)
	}
	idPattern := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	seen := map[string]bool{}
	var code strings.Builder
	for i, c := range nb.Cells {
		if !idPattern.MatchString(c.ID) || seen[c.ID] {
			t.Errorf("cell %d: id %q missing, invalid or repeated", i, c.ID)
		}
		seen[c.ID] = true
		if len(c.Outputs) > 0 {
			t.Errorf("cell %d (%s): stored with outputs", i, c.ID)
		}
		if c.Type == "code" {
			code.WriteString(strings.Join(c.Source, ""))
		}
	}
	for _, want := range []string{`find_spec("pyarrow")`, `find_spec("polars")`, `find_spec("duckdb")`, "runs.csv",
		"cmd/run export", "FEDBANDIT_SWEEP", "FEDBANDIT_FIGURE", "savefig(FIGURE"} {
		if !strings.Contains(code.String(), want) {
			t.Errorf("the notebook's code lacks %s", want)
		}
	}
}
