// Package buildinfo says which build of fedbandit is running: the module
// version and the version-control revision that the go command records in
// a binary it builds (runtime/debug.ReadBuildInfo). `go build` and
// `go install` in a git checkout record the revision; `go run`, `go test`
// and -buildvcs=false do not, and the revision is then "unknown".
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Info is one build's identity.
type Info struct {
	// Version is the main module's version: a tag, a pseudo-version
	// (v0.0.0-<time>-<revision>[+dirty]) or "(devel)".
	Version string
	// Revision is the VCS revision (a full git commit hash), or "unknown".
	Revision string
	// Modified reports uncommitted changes in the checkout at build time.
	Modified bool
	// Go is the Go release that built the binary.
	Go string
}

// Unknown is the Revision of a build without version-control information.
const Unknown = "unknown"

// Read returns the running binary's Info.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{Version: "(devel)", Revision: Unknown, Go: runtime.Version()}
	}
	return fromBuildInfo(bi)
}

// fromBuildInfo extracts an Info from build information.
func fromBuildInfo(bi *debug.BuildInfo) Info {
	in := Info{Version: bi.Main.Version, Revision: Unknown, Go: bi.GoVersion}
	if in.Version == "" {
		in.Version = "(devel)"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			in.Revision = s.Value
		case "vcs.modified":
			in.Modified = s.Value == "true"
		}
	}
	return in
}

// String is the one-line form printed by `run --version`, e.g.
// "fedbandit v0.0.0-20261129023902-a26df98546a1+dirty, revision
// a26df98546a13a5b767e721b825eda79a3c4e112 (modified), go1.26.8".
func (in Info) String() string {
	rev := in.Revision
	switch {
	case rev == Unknown:
		rev = "unknown (go run and -buildvcs=false record none; go build in a git checkout does)"
	case in.Modified:
		rev += " (modified)"
	}
	return fmt.Sprintf("fedbandit %s, revision %s, %s", in.Version, rev, in.Go)
}
