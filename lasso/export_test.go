package lasso

// Internal helpers lent to the external tests (dataset_ext_test.go).
var (
	ReadRef = readRef
	Norm    = norm
	Quiet   = quiet
)
