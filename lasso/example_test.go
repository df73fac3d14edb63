package lasso_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/fedbandit/fedbandit/lasso"
)

func Example() {
	// Two queries of documents with two features; y = 2 x0. scikit-learn:
	// Lasso(alpha=0.01, fit_intercept=False).fit(X, y).coef_ = [1.99909091, 0].
	data := &lasso.Matrix{
		D: 2,
		X: [][]float64{{1, 0, 2, 1, 3, 0}, {4, 1, 5, 0}},
		Y: [][]float64{{2, 4, 6}, {8, 10}},
	}
	// One pass over the data: the sufficient statistics.
	ms, err := lasso.ComputeMoments(context.Background(), data, nil, 1, 0)
	if err != nil {
		panic(err)
	}
	r, err := lasso.FitMoments(ms[0], lasso.Options{Alpha: 0.01})
	if err != nil {
		panic(err)
	}
	fmt.Printf("coef %.4f, R^2 %.5f, %d non-zero, converged %v\n", r.Coef, r.R2, r.NonZero, r.Converged)

	// A penalty above alpha_max zeroes every coefficient: an error, not a
	// silently useless bandit instance.
	_, err = lasso.FitMoments(ms[0], lasso.Options{Alpha: 100})
	fmt.Println(errors.Is(err, lasso.ErrDegenerate))
	// Output:
	// coef [1.9991 0.0000], R^2 1.00000, 1 non-zero, converged true
	// true
}
