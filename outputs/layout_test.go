package outputs

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
)

const (
	layout1Dir = "testdata/layout1"
	// mixedDir holds linear, mab and bco runs written by the layout-2
	// release 98ad0ae (testdata/README.md).
	mixedDir = "testdata/mixed-layout2"
)

// TestLayout1Upgraded: the layout-1 per-run files (fedbandit 5cab670) are
// read and upgraded (family, trust, params derived; the linear columns
// kept; nulls where a column does not apply); the layout-1 tables are
// refused with a message to collect; collecting writes layout 3 with the
// rows keeping format_version 1.
func TestLayout1Upgraded(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(layout1Dir)); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRuns(filepath.Join(dir, RunsFile)); err == nil || !strings.Contains(err.Error(), "run collect") {
		t.Errorf("layout-1 runs.arrow: %v", err)
	}
	sum, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ReadRuns(sum.RunsPath)
	if err != nil {
		t.Fatal(err)
	}
	trust := map[string]string{"fedlinucb": "none", "ldp": "local", "super-agent": "central", "feducb": "local"}
	for _, r := range recs {
		if r.FormatVersion != 1 || r.Family != FamilyLinear || r.Trust != trust[r.Algorithm] || r.Linear == nil {
			t.Errorf("%s: format_version %d family %q trust %q", r.Algorithm, r.FormatVersion, r.Family, r.Trust)
		}
		// feducb's sync_threshold was not recorded: its columns are null.
		if len(r.Params) != 0 {
			t.Errorf("%s: params %v", r.Algorithm, r.Params)
		}
		if (r.Trust == "none") != (r.Eps == nil) || (r.Trust == "none") != (r.Linear.Noise == nil) || r.Trust == "none" && r.Certified {
			t.Errorf("%s: eps %v noise %v certified %v", r.Algorithm, r.Eps, r.Linear.Noise, r.Certified)
		}
		if *r.Arms != 5 || *r.Dim != 3 || *r.InstanceSeed != 7 || *r.M != 2 || r.B == nil || r.Linear.Kappa == 0 {
			t.Errorf("%s: instance columns %v %v %v %v %v", r.Algorithm, *r.Arms, *r.Dim, *r.InstanceSeed, *r.M, r.B)
		}
	}
	scan, err := ScanRuns(layout1Dir)
	if err != nil || len(scan.Runs) != 5 {
		t.Fatal(err)
	}
	for _, f := range scan.Runs {
		if f.Record.Algorithm == "feducb" && f.Record.Params != nil {
			t.Errorf("layout-1 feducb params %v, want unrecorded (nil)", f.Record.Params)
		}
	}
	if v := layoutOf(t, sum.RunsPath); v != strconv.Itoa(FormatVersion) {
		t.Errorf("collected runs.arrow has layout %s", v)
	}
}

// TestNewerLayoutRefused: files of a layout newer than this build are
// refused with a message saying so (never "corrupted"), and a directory
// holding one is neither scanned nor collected; its files stay in place.
func TestNewerLayoutRefused(t *testing.T) {
	future := FormatVersion + 1
	md := arrow.NewMetadata([]string{metaFormat, metaPrefix + "run_id"}, []string{strconv.Itoa(future), strings.Repeat("a", 64)})
	data, err := encodeRows(pointBase, samplePoints, md, math.MaxInt)
	if err != nil {
		t.Fatal(err)
	}
	msg := fmt.Sprintf("written by a newer fedbandit (layout %d); this build reads up to %d: upgrade", future, FormatVersion)
	_, _, err = DecodeRun(data)
	if _, ok := errors.AsType[*NewerLayoutError](err); !ok || !strings.Contains(err.Error(), msg) {
		t.Errorf("decode of a layout-%d file: %v", future, err)
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, RunsDir), 0o755)
	ok := sampleRecord(strings.Repeat("b", 64), 4)
	if err := WriteRun(RunPath(dir, ok.RunID), &ok, samplePoints); err != nil {
		t.Fatal(err)
	}
	path := RunPath(dir, strings.Repeat("a", 64))
	os.WriteFile(path, data, 0o644)
	if _, err := ScanRuns(dir); err == nil || !strings.Contains(err.Error(), path+": "+msg) {
		t.Errorf("scan: %v", err)
	}
	if _, err := Collect(dir); err == nil || !strings.Contains(err.Error(), msg) {
		t.Errorf("collect: %v", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Error(err)
	}
	// Tables.
	tables := map[string]func(p string) error{
		RunsFile:   func(p string) error { _, err := ReadRuns(p); return err },
		CurvesFile: func(p string) error { _, err := ReadCurves(p); return err },
		AuditFile:  func(p string) error { _, err := ReadAudit(p); return err },
	}
	for name, read := range tables {
		b, err := encodeRows(pointBase[:1], samplePoints, layoutMetadata(future), math.MaxInt)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		if err := read(p); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Not a layout at all: a damaged or foreign file (invalid, not newer).
	for _, v := range []string{"", "0", "x"} {
		if _, err := CheckLayout(v); err == nil {
			t.Errorf("layout %q accepted", v)
		} else if _, newer := errors.AsType[*NewerLayoutError](err); newer {
			t.Errorf("layout %q called newer", v)
		}
	}
}

func layoutOf(t *testing.T, path string) string {
	t.Helper()
	r, err := ipc.NewFileReader(bytes.NewReader(mustRead(t, path)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	v, _ := r.Schema().Metadata().GetValue(metaFormat)
	return v
}
