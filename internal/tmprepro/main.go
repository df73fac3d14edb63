package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"

	"github.com/fedbandit/fedbandit/outputs"
)

func main() {
	dir := os.Args[1]
	runs, err := outputs.ReadRuns(filepath.Join(dir, outputs.RunsFile))
	if err != nil {
		panic(err)
	}
	curves, err := outputs.ReadCurves(filepath.Join(dir, outputs.CurvesFile))
	if err != nil {
		panic(err)
	}
	label := map[string]string{}
	for _, r := range runs {
		l := r.Algorithm
		if r.Eps != 0 {
			l = fmt.Sprintf("%s eps=%g delta=%g", r.Algorithm, r.Eps, r.Delta)
		}
		label[r.RunID] = l
	}
	vals := map[string]map[int][]float64{}
	for _, c := range curves {
		l := label[c.RunID]
		if vals[l] == nil {
			vals[l] = map[int][]float64{}
		}
		vals[l][int(c.Round)] = append(vals[l][int(c.Round)], c.TimeAvgRealised)
	}
	var keys []string
	for k := range vals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Printf("%-28s", k)
		for _, t := range []int{1000, 2500, 5000, 10000} {
			v := vals[k][t]
			var m, ss float64
			for _, x := range v {
				m += x
			}
			m /= float64(len(v))
			for _, x := range v {
				ss += (x - m) * (x - m)
			}
			se := 0.0
			if len(v) > 1 {
				se = math.Sqrt(ss/float64(len(v)-1)) / math.Sqrt(float64(len(v)))
			}
			fmt.Printf("  %8.4g ± %-7.2g", m, se)
		}
		fmt.Printf("  (n=%d)\n", len(vals[k][10000]))
	}
}
