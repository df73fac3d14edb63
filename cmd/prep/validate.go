package main

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/fedbandit/fedbandit/features"
	"github.com/fedbandit/fedbandit/ingest"
)

// Bounds of the count flags. A value above them is a typo or an attack, not
// a dataset: each would allocate or spawn that many of something.
const (
	maxWorkers  = 1024               // --workers: goroutines
	maxLabel    = 1 << 16            // --label-max: the label histogram has N+1 entries
	maxFeatures = ingest.MaxFeatures // --features: what documents.parquet can hold
	maxQueries  = 10_000_000
	maxDocs     = 1_000_000
	maxFolds    = 1000
	maxNAlphas  = 10_000
	maxIter     = 1_000_000_000
	maxSilos    = 1 << 24
	maxFirstQID = 1 << 53 // qids are float-exact
	maxAbsValue = 1e6     // --intercept
)

// checkText refuses a value holding a control character (a newline, a
// tab, an escape): no flag of prep takes one, and a path or name holding
// one ends up in file names, logs and manifests.
func checkText(flag, v string) error {
	if i := strings.IndexFunc(v, unicode.IsControl); i >= 0 {
		return fmt.Errorf("%s %q: control character %q at byte %d is not allowed", flag, v, v[i], i)
	}
	return nil
}

// checkInt checks an explicit count flag against [lo, hi].
func checkInt(flag string, v, lo, hi int, meaning string) error {
	if v < lo || v > hi {
		return fmt.Errorf("%s %d: want %d <= N <= %d (%s)", flag, v, lo, hi, meaning)
	}
	return nil
}

// checkOptInt checks an optional count flag: left out (nil) it means the
// documented default; given, it is validated as given (0 is a value).
func checkOptInt(flag string, p *int, lo, hi int, meaning string) error {
	if p == nil {
		return nil
	}
	return checkInt(flag, *p, lo, hi, meaning+"; leave the flag out for the default")
}

// optInt returns *p, or 0 (the library's "default") when p is nil.
func optInt(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// checkColumn checks a column-name flag: left out (nil) it means the
// documented default column; given, it names a column, so "" is an error.
func checkColumn(flag string, v *string) error {
	if v == nil {
		return nil
	}
	if *v == "" {
		return fmt.Errorf("%s: an empty column name; leave the flag out for the default", flag)
	}
	return checkText(flag, *v)
}

// optString is an optional text flag's value, "" (the documented
// default) when left out; Validate refuses an explicit "".
func optString(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// checkFeatureSet checks the syntax of a feature set name or column list
// (that its columns exist is checked against the dataset when fitting).
func checkFeatureSet(flag, spec string) error {
	if err := checkText(flag, spec); err != nil {
		return err
	}
	switch strings.TrimSpace(spec) {
	case features.Title, features.Body, features.All:
		return nil
	case "":
		return fmt.Errorf("%s is empty: want %s, %s, %s or a column list such as 1-5,7", flag, features.Title, features.Body, features.All)
	}
	if _, err := features.ParseColumns(spec); err != nil {
		return fmt.Errorf("%s %q: %w", flag, spec, err)
	}
	return nil
}
