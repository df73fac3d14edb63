package features_test

import (
	"fmt"

	"github.com/fedbandit/fedbandit/features"
)

func ExampleResolve() {
	title, err := features.Resolve(features.Title, features.MSLRFeatures, features.DefaultIntercept)
	if err != nil {
		panic(err)
	}
	fmt.Println(title, title.Columns[:6], title.Columns[50:])

	custom, _ := features.Resolve("1-3,7", 46, 0)
	fmt.Println(custom.ID(), custom.Dim())

	_, err = features.Resolve(features.Body, 46, features.DefaultIntercept)
	fmt.Println(err != nil)
	// Output:
	// title (d=57, intercept 0.01) [2 4 7 9 12 14] [126 127 128 129 130 131]
	// cols-1-3_7-i0 4
	// true
}

func ExampleNormalize() {
	s := features.Set{Name: "demo", Columns: []int{5, 9}, Intercept: features.DefaultIntercept}
	x := make([]float64, s.Dim())
	s.Raw(x, []float64{3, 4}) // source values of columns 5 and 9
	norm := features.Normalize(x)
	fmt.Printf("%.4f %.6f\n", norm, x)
	// Output:
	// 5.0000 [0.002000 0.599999 0.799998]
}
