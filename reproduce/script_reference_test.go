package reproduce

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// scriptNames are the script-side algorithm names (docs/mab_driver.py)
// and the series' names.
var scriptNames = map[string]string{"dp-se": "DP-SE", "dist-dp-se": "Dist-DP-SE",
	"dist-rdp-se-S10": "Dist-RDP-SE (S=10)", "dist-rdp-se-S100": "Dist-RDP-SE (S=100)"}

// TestScriptReferenceFromRuns: each reference file made from the authors'
// MAB script's runs is what its runs say (docs/mab_reference.py, the
// RESULT lines of docs/mab_driver.py in NAME.runs.txt beside NAME.csv):
// every series and checkpoint the runs give has a row whose mean,
// standard error and count are recomputed here from the runs (to the
// digits the file prints), each of the 240 configurations and instances
// ran once, and the file has no row the runs do not give. Editing a
// number of the file by hand, dropping a run or a row fails it.
func TestScriptReferenceFromRuns(t *testing.T) {
	for _, name := range []string{"cz-script-fig1", "cz-script-fig1-rdp"} {
		t.Run(name, func(t *testing.T) { checkScriptReference(t, name) })
	}
}

func checkScriptReference(t *testing.T, name string) {
	scriptRuns := "reference/" + name + ".runs.txt"
	f, err := os.Open(scriptRuns)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type group struct{ vals map[string]float64 }
	groups := map[string]*group{}
	configs := map[string]bool{}
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if !strings.HasPrefix(text, "RESULT ") {
			t.Fatalf("%s:%d: not a RESULT line: %q", scriptRuns, line, text)
		}
		kv := map[string]string{}
		for _, w := range strings.Fields(text)[1:] {
			if k, v, ok := strings.Cut(w, "="); ok {
				kv[k] = v
			}
		}
		name, ok := scriptNames[kv["alg"]]
		if !ok {
			t.Fatalf("%s:%d: algorithm %q", scriptRuns, line, kv["alg"])
		}
		run := kv["alg"] + " " + kv["eps"] + " " + kv["gap"] + " " + kv["seed"]
		if configs[run] {
			t.Fatalf("%s:%d: run %s twice", scriptRuns, line, run)
		}
		configs[run] = true
		for k, v := range kv {
			at, ok := strings.CutPrefix(k, "realised@")
			if !ok || (at != "100000" && at != "1000000") {
				continue
			}
			tt, _ := strconv.Atoi(at)
			r, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s:%d: %s: %v", scriptRuns, line, k, err)
			}
			key := fmt.Sprintf("gap=%s, eps=%s: %s|%d", kv["gap"], kv["eps"], name, tt)
			if groups[key] == nil {
				groups[key] = &group{vals: map[string]float64{}}
			}
			groups[key].vals[kv["seed"]] = r / float64(tt)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(configs) != 240 {
		t.Errorf("%d runs, want 240 (2 algorithms x 3 eps x 2 gaps x 20 instances)", len(configs))
	}
	ref, err := ReadReference(ReferenceFS, name+".csv")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, row := range ref.Rows {
		key := strings.Join(row.Series, ";") + "|" + strconv.Itoa(row.T)
		g := groups[key]
		if g == nil {
			t.Errorf("line %d: %s: no run gives it", row.Line, key)
			continue
		}
		seen[key] = true
		n := len(g.vals)
		var mean, ss float64
		for _, v := range g.vals {
			mean += v
		}
		mean /= float64(n)
		for _, v := range g.vals {
			ss += (v - mean) * (v - mean)
		}
		se := math.Sqrt(ss / float64(n-1) / float64(n))
		if row.N != n || n != 20 {
			t.Errorf("line %d: %s: n = %d, the runs give %d (want 20 instances)", row.Line, key, row.N, n)
		}
		if math.Abs(row.Mean-mean) > 1e-5*mean {
			t.Errorf("line %d: %s: mean %g, the runs give %g", row.Line, key, row.Mean, mean)
		}
		if math.Abs(row.SE-se) > 1e-3*se {
			t.Errorf("line %d: %s: se %g, the runs give %g", row.Line, key, row.SE, se)
		}
	}
	for key := range groups {
		if !seen[key] {
			t.Errorf("%s: the runs give it, the reference file has no row", key)
		}
	}
}
