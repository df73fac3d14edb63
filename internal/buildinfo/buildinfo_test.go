package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"
)

// TestFromBuildInfo: the revision and the modified flag come from the
// go command's vcs settings; without them the revision is "unknown" and
// the line says how to get one.
func TestFromBuildInfo(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261129023902-a26df98546a1+dirty"},
		Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "a26df98546a13a5b767e721b825eda79a3c4e112"}, {Key: "vcs.modified", Value: "true"}}}
	in := fromBuildInfo(bi)
	want := Info{Version: "v0.0.0-20261129023902-a26df98546a1+dirty", Revision: "a26df98546a13a5b767e721b825eda79a3c4e112", Modified: true, Go: "go1.26.8"}
	if in != want {
		t.Fatalf("fromBuildInfo = %+v, want %+v", in, want)
	}
	if s := in.String(); s != "fedbandit v0.0.0-20261129023902-a26df98546a1+dirty, revision a26df98546a13a5b767e721b825eda79a3c4e112 (modified), go1.26.8" {
		t.Errorf("String = %q", s)
	}
	bare := fromBuildInfo(&debug.BuildInfo{GoVersion: "go1.26.8"})
	if bare.Version != "(devel)" || bare.Revision != Unknown || bare.Modified {
		t.Errorf("no settings: %+v", bare)
	}
	if s := bare.String(); !strings.Contains(s, "revision unknown (go run") {
		t.Errorf("no settings: %q", s)
	}
	clean := fromBuildInfo(&debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}}})
	if clean.Modified || strings.Contains(clean.String(), "modified") {
		t.Errorf("clean checkout: %+v %q", clean, clean.String())
	}
}
