package reproduce

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxDocsFigures is the most bytes the PNGs of docs/reproduction/ may
// take in git.
const maxDocsFigures = 4 << 20

// TestDocsReportLinks: docs/reproduction.md (the full run's REPORT.md,
// copied by --copy-to) shows figures that are committed beside it: every
// image link is a PNG of docs/reproduction/ that exists, every PNG there
// is linked, and together they stay under maxDocsFigures.
func TestDocsReportLinks(t *testing.T) {
	docs := filepath.Join("..", "docs")
	md, err := os.ReadFile(filepath.Join(docs, "reproduction.md"))
	if err != nil {
		t.Fatal(err)
	}
	links := ImageLinks(md)
	if len(links) == 0 {
		t.Fatal("docs/reproduction.md shows no figure")
	}
	linked := map[string]bool{}
	for _, l := range links {
		if !strings.HasPrefix(l, FiguresDir+"/") || filepath.Ext(l) != ".png" {
			t.Errorf("image link %s: want a PNG of %s/", l, FiguresDir)
		}
		if _, err := os.Stat(filepath.Join(docs, l)); err != nil {
			t.Errorf("image link %s does not resolve: %v", l, err)
		}
		linked[filepath.Base(l)] = true
	}
	pngs, _ := filepath.Glob(filepath.Join(docs, FiguresDir, "*.png"))
	var total int64
	for _, p := range pngs {
		if !linked[filepath.Base(p)] {
			t.Errorf("%s is not shown by docs/reproduction.md", p)
		}
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		total += st.Size()
	}
	if total > maxDocsFigures {
		t.Errorf("the figures of docs/%s take %d bytes, more than %d", FiguresDir, total, maxDocsFigures)
	}
	t.Logf("%d figures, %d bytes", len(pngs), total)
}

// TestDocsReportRecopies: the committed docs/reproduction.md is a copy
// --copy-to recognises as its own (it opens with the report's header),
// so `--report-only DIR --copy-to docs/reproduction.md` replaces it and
// its figures; a run whose report is those same bytes leaves docs/
// byte for byte as committed. Mutation: a reportHeader of other bytes
// than Report's old literal header fails it.
func TestDocsReportRecopies(t *testing.T) {
	src := filepath.Join("..", "docs")
	dir, docs := t.TempDir(), t.TempDir()
	md, err := os.ReadFile(filepath.Join(src, "reproduction.md"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, ReportFile), string(md))
	writeFile(t, filepath.Join(docs, "reproduction.md"), string(md))
	pngs, _ := filepath.Glob(filepath.Join(src, FiguresDir, "*.png"))
	for _, p := range pngs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, FiguresDir, filepath.Base(p)), string(b))
		writeFile(t, filepath.Join(docs, FiguresDir, filepath.Base(p)), string(b))
	}
	before := listing(t, docs)
	if err := CopyReport(dir, filepath.Join(docs, "reproduction.md")); err != nil {
		t.Fatal(err)
	}
	if after := listing(t, docs); !maps.Equal(before, after) || len(after) != len(pngs)+1 {
		t.Errorf("the copy changed docs/: %d files before, %d after", len(before), len(after))
	}
}
