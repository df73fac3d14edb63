package lasso

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"testing"

	"github.com/fedbandit/fedbandit/features"
)

// sklearnRef is testdata/sklearn_ref.json, written by
// testdata/sklearn_ref.py (scikit-learn 1.2.1, Debian python3-sklearn).
type sklearnRef struct {
	Sklearn string `json:"sklearn"`
	Cases   []struct {
		Data         string    `json:"data"`
		Alpha        float64   `json:"alpha"`
		FitIntercept bool      `json:"fit_intercept"`
		Positive     bool      `json:"positive"`
		Coef         []float64 `json:"coef"`
		Intercept    float64   `json:"intercept"`
		NIter        int       `json:"n_iter"`
		DualGap      float64   `json:"dual_gap"`
	} `json:"cases"`
}

func readRef(t *testing.T) *sklearnRef {
	b, err := os.ReadFile("testdata/sklearn_ref.json")
	if err != nil {
		t.Fatal(err)
	}
	var r sklearnRef
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

func norm(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

// TestMatchesSklearn compares coef_, intercept_, n_iter_ and dual_gap_ with
// scikit-learn's Lasso on MQ2008 (several alphas, with and without fitted
// intercept, positive) and on a generated MSLR-shaped file.
func TestMatchesSklearn(t *testing.T) {
	ref := readRef(t)
	moments := map[string]*Moments{}
	all, err := features.Resolve(features.All, 46, features.DefaultIntercept)
	if err != nil {
		t.Fatal(err)
	}
	title, err := features.Resolve(features.Title, 136, features.DefaultIntercept)
	if err != nil {
		t.Fatal(err)
	}
	for name, build := range map[string]func() *Matrix{
		"mq2008":     func() *Matrix { return loadMQ2008(t).matrix(all) },
		"mslr_synth": func() *Matrix { return loadMSLRSynth(t).matrix(title) },
	} {
		m := build()
		ms, err := ComputeMoments(context.Background(), m, nil, 1, 2)
		if err != nil {
			t.Fatal(err)
		}
		moments[name] = ms[0]
	}
	if len(ref.Cases) < 10 {
		t.Fatalf("only %d reference cases", len(ref.Cases))
	}
	for _, c := range ref.Cases {
		c := c
		name := c.Data
		if c.FitIntercept {
			name += "/intercept"
		}
		if c.Positive {
			name += "/positive"
		}
		t.Run(name+"/alpha="+formatG(c.Alpha), func(t *testing.T) {
			r, err := FitMoments(moments[c.Data], Options{Alpha: c.Alpha, FitIntercept: c.FitIntercept, Positive: c.Positive})
			if norm(c.Coef) == 0 {
				if !errors.Is(err, ErrDegenerate) {
					t.Fatalf("want ErrDegenerate for an all-zero reference, got %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Coef) != len(c.Coef) {
				t.Fatalf("%d coefficients, want %d", len(r.Coef), len(c.Coef))
			}
			diff := make([]float64, len(c.Coef))
			for i := range diff {
				diff[i] = r.Coef[i] - c.Coef[i]
			}
			rel := norm(diff) / norm(c.Coef)
			if rel > 1e-6 {
				t.Errorf("||coef - sklearn|| / ||sklearn|| = %.3g > 1e-6\n got %v\nwant %v", rel, r.Coef, c.Coef)
			}
			if d := math.Abs(r.Intercept - c.Intercept); d > 1e-6*math.Max(1, math.Abs(c.Intercept)) {
				t.Errorf("intercept %v, sklearn %v", r.Intercept, c.Intercept)
			}
			if r.Iterations != c.NIter {
				t.Errorf("iterations %d, sklearn n_iter_ %d", r.Iterations, c.NIter)
			}
			if d := math.Abs(r.Gap - c.DualGap); d > 1e-6*math.Max(math.Abs(c.DualGap), r.Tol) {
				t.Errorf("dual gap %v, sklearn %v", r.Gap, c.DualGap)
			}
			if !r.Converged {
				t.Errorf("not converged")
			}
			t.Logf("rel err %.2g, iters %d, nonzero %d, R2 %.4f", rel, r.Iterations, r.NonZero, r.R2)
		})
	}
}

func formatG(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}
