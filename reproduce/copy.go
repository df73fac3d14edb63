package reproduce

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fedbandit/fedbandit/internal/atomicfile"
)

// ErrForeign is wrapped by the errors of CopyReport and CheckCopyTo that
// refuse to replace a file an earlier copy did not write: the folder
// beside the copy may hold the user's own files, and nothing of theirs
// is overwritten or removed.
var ErrForeign = errors.New("a file run reproduce did not write")

// CheckCopyTo returns nil when dst can take a copy of a report: it does
// not exist, or it is a report an earlier copy wrote (it opens with the
// header Report writes). Otherwise the error wraps ErrForeign. CopyReport
// checks it again, with the folder of figures beside dst.
func CheckCopyTo(dst string) error {
	_, err := previousFigures(dst)
	return err
}

// CopyReport copies the report of the reproduction directory dir
// (DIR/REPORT.md and the figures it shows, DIR/reproduction/*.png) to
// the file dst and the folder FiguresDir beside it (docs/reproduction.md
// and docs/reproduction/), byte for byte, each file atomically.
//
// The figures of the copy dst replaces (the image links of the earlier
// report at dst) that this report does not show are removed; no other
// file of that folder is touched. Before anything is written, it
// refuses (an error wrapping ErrForeign) when dst is not a report Report
// generated, or when a figure would replace a file of the folder that
// the earlier copy does not show and that holds other bytes. The figures
// are written before dst, so a copy interrupted midway is completed by
// the same command again.
func CopyReport(dir, dst string) error {
	report := filepath.Join(dir, ReportFile)
	b, err := os.ReadFile(report)
	if err != nil {
		return err
	}
	prev, err := previousFigures(dst)
	if err != nil {
		return err
	}
	src := filepath.Join(dir, FiguresDir)
	to := filepath.Join(filepath.Dir(dst), FiguresDir)
	figs := map[string][]byte{}
	var names []string
	for _, l := range ImageLinks(b) {
		n, ok := figureName(l)
		if !ok {
			return fmt.Errorf("%s: image link %s is not a PNG of %s/", report, l, FiguresDir)
		}
		if _, seen := figs[n]; seen {
			continue
		}
		png, err := os.ReadFile(filepath.Join(src, n))
		if err != nil {
			return err
		}
		figs[n] = png
		names = append(names, n)
	}
	var foreign []string
	for _, n := range names {
		if prev[n] {
			continue
		}
		p := filepath.Join(to, n)
		old, err := os.ReadFile(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return err
		case !bytes.Equal(old, figs[n]):
			foreign = append(foreign, p)
		}
	}
	if len(foreign) > 0 {
		return fmt.Errorf("%s: %w (not a figure of the report %s replaces) and the copy would overwrite it: move it away or copy to another FILE",
			strings.Join(foreign, ", "), ErrForeign, dst)
	}
	for _, n := range names {
		if err := atomicfile.WriteFile(filepath.Join(to, n), figs[n]); err != nil {
			return err
		}
	}
	for _, n := range slices.Sorted(maps.Keys(prev)) {
		if _, kept := figs[n]; kept {
			continue
		}
		if err := os.Remove(filepath.Join(to, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return atomicfile.WriteFile(dst, b)
}

// previousFigures returns the file names of the figures that the report
// at dst shows (none when dst does not exist), or an error wrapping
// ErrForeign when dst is a file that Report did not generate.
func previousFigures(dst string) (map[string]bool, error) {
	b, err := os.ReadFile(dst)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(b, []byte(reportHeader)) {
		return nil, fmt.Errorf("%s: %w (it does not open with a report's header) and the copy would overwrite it: move it away or copy to another FILE", dst, ErrForeign)
	}
	prev := map[string]bool{}
	for _, l := range ImageLinks(b) {
		if n, ok := figureName(l); ok {
			prev[n] = true
		}
	}
	return prev, nil
}

// figureName is the file name of the image link l when l is a PNG of
// FiguresDir ("reproduction/NAME.png"), the only links a report makes.
func figureName(l string) (string, bool) {
	dir, name := path.Split(l)
	if dir != FiguresDir+"/" || path.Ext(name) != ".png" || name == ".png" {
		return "", false
	}
	return name, true
}
