//go:build !unix

package main

// addressSpaceHeadroom: no address-space limit is read on this platform.
func addressSpaceHeadroom() (int64, bool) { return 0, false }
