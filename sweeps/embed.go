// Package sweeps holds the ready sweep files of the papers' experiments
// (README.md in this directory), embedded so that `run reproduce`
// (package reproduce) finds them whatever the working directory.
package sweeps

import "embed"

// FS holds every sweep file of this directory (*.toml).
//
//go:embed *.toml
var FS embed.FS
