package registry

import "testing"

// TaggedKind is the test kind with columns of its own (taggedKind), for
// the external tests.
var TaggedKind = taggedKind

// WithKind is withKind for the external tests: it registers ks beside
// the registry's kinds for the test t.
func WithKind(t testing.TB, ks ...*Kind) error { return withKind(t, ks...) }
