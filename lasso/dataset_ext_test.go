package lasso_test

// The tests that read a prepared dataset (internal/fixture, which goes
// through package prepare, which imports lasso) live in the external test
// package; export_test.go lends them the internal helpers.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/ingest"
	"github.com/fedbandit/fedbandit/internal/fixture"
	. "github.com/fedbandit/fedbandit/lasso"
)

// TestMain removes the shared ingested MQ2008 copy after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	fixture.Cleanup()
	os.Exit(code)
}

// mq2008Dataset returns a fresh copy of the prepared MQ2008 dataset directory.
func mq2008Dataset(t *testing.T) string { return fixture.MQ2008(t) }

// TestFitDatasetMatchesSklearn runs the whole path (Parquet dataset ->
// feature set -> statistics -> fit -> artifact) and compares with the
// scikit-learn reference fitted on the text files.
func TestFitDatasetMatchesSklearn(t *testing.T) {
	dir := mq2008Dataset(t)
	ref := ReadRef(t)
	for _, c := range ref.Cases {
		if c.Data != "mq2008" || c.Positive || Norm(c.Coef) == 0 || c.Alpha != 1e-3 {
			continue
		}
		th, err := FitDataset(context.Background(), dir, FitOptions{Log: Quiet, Features: "all", Lasso: Options{Alpha: c.Alpha, FitIntercept: c.FitIntercept}})
		if err != nil {
			t.Fatal(err)
		}
		diff := make([]float64, len(c.Coef))
		for i := range diff {
			diff[i] = th.Theta[i] - c.Coef[i]
		}
		if rel := Norm(diff) / Norm(c.Coef); rel > 1e-6 {
			t.Errorf("fit_intercept=%v: relative error %.3g", c.FitIntercept, rel)
		}
		if math.Abs(th.Intercept-c.Intercept) > 1e-6 {
			t.Errorf("intercept %v, sklearn %v", th.Intercept, c.Intercept)
		}
		got, hash, err := ReadTheta(ThetaFile(dir, th))
		if err != nil {
			t.Fatal(err)
		}
		if len(hash) != 64 || !reflect.DeepEqual(got.Theta, th.Theta) || got.Scale != 1 || got.Settings.Alpha != c.Alpha {
			t.Errorf("artifact round trip: %+v", got)
		}
		man, _ := ingest.ReadManifest(dir)
		if got.DatasetSHA256 != man.DataHash || got.Features.Dim() != 47 {
			t.Errorf("artifact inputs: dataset %s features %v", got.DatasetSHA256, got.Features)
		}
	}
}

func TestFitDatasetDegenerate(t *testing.T) {
	dir := mq2008Dataset(t)
	_, err := FitDataset(context.Background(), dir, FitOptions{Log: Quiet, Features: "all", Lasso: Options{Alpha: 1}})
	if !errors.Is(err, ErrDegenerate) {
		t.Fatalf("alpha=1 on MQ2008: got %v, want ErrDegenerate", err)
	}
	for _, want := range []string{"--cv", "alpha_max"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if ps, _ := FindThetas(dir, "all", ModelReference); len(ps) > 0 {
		t.Errorf("a degenerate fit wrote an artifact: %v", ps)
	}
}

func TestFitDatasetWellSpecified(t *testing.T) {
	dir := mq2008Dataset(t)
	th, err := FitDataset(context.Background(), dir, FitOptions{Log: Quiet, Features: "1-10,40-46", Model: ModelWellSpecified, Lasso: Options{Alpha: 1e-5}})
	if err != nil {
		t.Fatal(err)
	}
	if n := Norm(th.Theta); n > 1+1e-12 {
		t.Errorf("||theta|| = %v > 1", n)
	}
	raw := Norm(th.Fit.Coef)
	if want := math.Min(1, 1/raw); math.Abs(th.Scale-want) > 1e-15 {
		t.Errorf("scale %v, want %v (||coef|| = %v)", th.Scale, want, raw)
	}
	if _, err := os.Stat(filepath.Join(dir, InstancesDir, "cols-1-10_40-46-well-specified-a1e-05.theta.json")); err != nil {
		t.Error(err)
	}
	if _, err := FitDataset(context.Background(), dir, FitOptions{Log: Quiet, Features: "all", Model: "other", Lasso: Options{Alpha: 1e-3}}); err == nil {
		t.Error("unknown model accepted")
	}
	if _, err := FitDataset(context.Background(), dir, FitOptions{Log: Quiet, Features: "title", Lasso: Options{Alpha: 1e-3}}); err == nil {
		t.Error("title set accepted on a 46-feature dataset")
	}
}

// TestThetaContentHash: a theta artifact carries its own content hash; the
// hash is that of the file as it read before the field existed (so ltr
// instance hashes and run ids do not change), and a hand edit is rejected.
func TestThetaContentHash(t *testing.T) {
	dir := mq2008Dataset(t)
	th, err := FitDataset(context.Background(), dir, FitOptions{Log: Quiet, Features: "all", Lasso: Options{Alpha: 1e-3}})
	if err != nil {
		t.Fatal(err)
	}
	path := ThetaFile(dir, th)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, h, err := ReadTheta(path)
	if err != nil || h != th.SHA256 || len(h) != 64 {
		t.Fatalf("ReadTheta: hash %q (fit recorded %q), err %v", h, th.SHA256, err)
	}
	legacy := strings.Replace(string(b), ",\n \"theta_sha256\": \""+h+"\"", "", 1)
	if legacy == string(b) {
		t.Fatal("no theta_sha256 field in the artifact")
	}
	if sum := sha256.Sum256([]byte(legacy)); hex.EncodeToString(sum[:]) != h {
		t.Errorf("theta_sha256 is not the hash of the file without the field")
	}
	// The legacy form (no field) still reads, with the same identity.
	if err := os.WriteFile(path, []byte(legacy), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, h2, err := ReadTheta(path); err != nil || h2 != h {
		t.Errorf("legacy artifact: hash %q err %v, want %q", h2, err, h)
	}
	// A hand edit of one coefficient is rejected, naming the file.
	i := strings.Index(string(b), "\"theta\": [\n  ") + len("\"theta\": [\n  ")
	j := i + strings.IndexAny(string(b[i:]), ",\n")
	edited := string(b[:i]) + "1e300" + string(b[j:])
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadTheta(path); err == nil || !strings.Contains(err.Error(), "edited or corrupt") || !strings.Contains(err.Error(), path) {
		t.Errorf("edited theta: err %v", err)
	}
}

// TestWellSpecifiedInterceptScaled: with a fitted intercept, the
// well-specified model scales the intercept by the same factor as the
// coefficients (mean reward = x . Theta + Intercept is the scaled fit).
func TestWellSpecifiedInterceptScaled(t *testing.T) {
	dir := mq2008Dataset(t)
	th, err := FitDataset(context.Background(), dir, FitOptions{Log: Quiet, Features: "1-10,40-46", Model: ModelWellSpecified,
		Lasso: Options{Alpha: 1e-5, FitIntercept: true}})
	if err != nil {
		t.Fatal(err)
	}
	if !(th.Scale < 1) || th.Fit.Intercept == 0 {
		t.Fatalf("scale %v, intercept %v: the test needs ||coef|| > 1 and an intercept", th.Scale, th.Fit.Intercept)
	}
	for i, w := range th.Fit.Coef {
		if th.Theta[i] != w*th.Scale {
			t.Errorf("theta[%d] = %v, want %v * %v", i, th.Theta[i], w, th.Scale)
		}
	}
	if th.Intercept != th.Fit.Intercept*th.Scale {
		t.Errorf("intercept %v, want %v * %v", th.Intercept, th.Fit.Intercept, th.Scale)
	}
}

// TestFitDatasetLog: without FitOptions.Log the fit logs to slog.Default;
// it warns that the optimum may lie below the grid exactly when
// cross-validation chose the smallest of two or more alphas.
func TestFitDatasetLog(t *testing.T) {
	dir := mq2008Dataset(t)
	saved := slog.Default()
	defer slog.SetDefault(saved)
	const warning = "chose the smallest alpha of the grid"
	for _, tc := range []struct {
		name   string
		alphas []float64
		warn   bool
	}{
		{"smallest chosen", []float64{1, 1e-3}, true},
		{"one alpha", []float64{1e-3}, false},
		{"tie: the largest chosen", []float64{1e-3, 1e-3 * (1 - 1e-9)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
			th, err := FitDataset(context.Background(), dir, FitOptions{Features: "all", Lasso: Options{CV: &CVOptions{Folds: 3, Alphas: tc.alphas}}})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(buf.String(), "msg=\"wrote theta\"") {
				t.Errorf("nothing logged to slog.Default:\n%s", buf.String())
			}
			if got := strings.Contains(buf.String(), warning); got != tc.warn {
				t.Errorf("chose alpha %v of %v: warned %v, want %v", th.Settings.Alpha, tc.alphas, got, tc.warn)
			}
		})
	}
}
