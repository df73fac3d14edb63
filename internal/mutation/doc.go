// Package mutation injects the faults of the privacy mutation suite
// (docs/privacy.md 2.3): each is a deliberate bug in the noise, the tree
// or the accountant that some check (the empirical audit or a named test)
// must catch.
//
// In an ordinary build On is a constant false and the compiler removes
// every injection site. Built with the tag "mutation" (go test -tags
// mutation), the test binary takes a flag -mutation=NAME (NAME is M1 ...
// M18), and On(NAME) is true for that one fault; tests may also switch
// faults with Set. .ci/mutations runs every mutation against the checks
// that catch it and prints the table.
package mutation
