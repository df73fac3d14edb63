package reproduce

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// copyFixture writes a reproduction directory whose report shows the
// figures figs (NAME.png, each holding its name's bytes) and returns it.
func copyFixture(t *testing.T, figs ...string) string {
	t.Helper()
	dir := t.TempDir()
	report := reportHeader
	for _, f := range figs {
		report += "![" + f + "](" + FiguresDir + "/" + f + ")\n"
		writeFile(t, filepath.Join(dir, FiguresDir, f), f)
	}
	writeFile(t, filepath.Join(dir, ReportFile), report)
	return dir
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// listing is every file under dir with its bytes.
func listing(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			m[p] = string(b)
		}
		return err
	})
	return m
}

// TestCopyReport: --copy-to removes only the figures the copy it
// replaces showed; the user's files in the folder beside FILE survive
// (a PNG among them included, and one an escaping link of the earlier
// copy names); a FILE it did not write, or a figure that would replace a
// file of other bytes the earlier copy does not show, is refused with
// ErrForeign and nothing is written; an interrupted copy (the figures
// written, not FILE) is completed by the same copy again. Mutations: the
// old rule (remove every PNG the report does not show) fails "mine.png
// survives"; dropping the header check fails "foreign FILE"; dropping
// the collision check fails "collision".
func TestCopyReport(t *testing.T) {
	docs := t.TempDir()
	dst := filepath.Join(docs, "reproduction.md")
	figs := filepath.Join(docs, FiguresDir)
	writeFile(t, filepath.Join(figs, "mine.png"), "user's")
	writeFile(t, filepath.Join(figs, "notes.txt"), "user's")
	writeFile(t, filepath.Join(docs, "secret.png"), "user's")

	first := copyFixture(t, "a.png", "b.png")
	if err := CopyReport(first, dst); err != nil {
		t.Fatal(err)
	}
	want := func(files ...string) {
		t.Helper()
		var got []string
		for p := range listing(t, docs) {
			got = append(got, strings.TrimPrefix(filepath.ToSlash(p), filepath.ToSlash(docs)+"/"))
		}
		slices.Sort(got)
		slices.Sort(files)
		if !slices.Equal(got, files) {
			t.Errorf("files %v, want %v", got, files)
		}
	}
	want("reproduction.md", "secret.png", "reproduction/mine.png", "reproduction/notes.txt", "reproduction/a.png", "reproduction/b.png")
	if b, _ := os.ReadFile(dst); !strings.HasPrefix(string(b), reportHeader) || !strings.Contains(string(b), "(reproduction/b.png)") {
		t.Errorf("the copy is not the report: %q", b)
	}

	// The next report drops b.png: the earlier copy's b.png goes; images
	// it showed from elsewhere (out of the folder, or another folder's
	// mine.png) are not figures of a copy, so the user's files stay.
	earlier, _ := os.ReadFile(dst)
	writeFile(t, dst, string(earlier)+"![x](reproduction/../secret.png)\n![y](other/mine.png)\n")
	second := copyFixture(t, "a.png", "c.png")
	if err := CopyReport(second, dst); err != nil {
		t.Fatal(err)
	}
	want("reproduction.md", "secret.png", "reproduction/mine.png", "reproduction/notes.txt", "reproduction/a.png", "reproduction/c.png")

	// Refusals, before anything is written.
	for name, tc := range map[string]struct {
		setup func(docs string)
		want  string
	}{
		"foreign FILE": {func(docs string) { writeFile(t, filepath.Join(docs, "reproduction.md"), "# my notes\n") }, "does not open with a report's header"},
		"collision": {func(docs string) {
			writeFile(t, filepath.Join(docs, FiguresDir, "a.png"), "user's")
			writeFile(t, filepath.Join(docs, FiguresDir, "c.png"), "user's")
		}, "a.png, "},
		"collision under a copy": {func(docs string) {
			writeFile(t, filepath.Join(docs, "reproduction.md"), reportHeader+"![a](reproduction/a.png)\n")
			writeFile(t, filepath.Join(docs, FiguresDir, "a.png"), "a.png")
			writeFile(t, filepath.Join(docs, FiguresDir, "c.png"), "user's")
		}, "c.png: a file run reproduce did not write"},
	} {
		docs := t.TempDir()
		tc.setup(docs)
		before := listing(t, docs)
		dst := filepath.Join(docs, "reproduction.md")
		err := CopyReport(second, dst)
		if !errors.Is(err, ErrForeign) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrForeign saying %q", name, err, tc.want)
		}
		if after := listing(t, docs); !maps.Equal(before, after) {
			t.Errorf("%s: the refusal wrote %v (was %v)", name, after, before)
		}
		if name == "foreign FILE" && !errors.Is(CheckCopyTo(dst), ErrForeign) {
			t.Errorf("%s: CheckCopyTo accepts it", name)
		}
	}

	// An interrupted copy: its figures are there with the same bytes,
	// FILE is not; the same copy again completes it.
	docs = t.TempDir()
	writeFile(t, filepath.Join(docs, FiguresDir, "a.png"), "a.png")
	if err := CheckCopyTo(filepath.Join(docs, "reproduction.md")); err != nil {
		t.Errorf("CheckCopyTo of an absent FILE: %v", err)
	}
	if err := CopyReport(second, filepath.Join(docs, "reproduction.md")); err != nil {
		t.Errorf("the copy again after an interruption: %v", err)
	}
}
