package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/internal/cliconv"
	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/outputs/figure"
)

// TestTableFormats (issue 39 item 5): run table's csv and json hold, for
// every configuration and round, the same numbers as the text table
// (unrounded: the exact series mean), the trust, certified and delivered
// columns from the runs, and null where a value does not apply; the text
// and Markdown tables show the privacy columns; an --at that is no
// checkpoint is a usage error. Mutation-checked: privacyOf taking
// delivered_delta for delivered_eps fails it; taking delivered_eps for
// target_eps fails it; writing se (0) for one seed fails it.
func TestTableFormats(t *testing.T) {
	dir := smallResults(t, 2)
	runs, curves, err := readTables(dir)
	if err != nil {
		t.Fatal(err)
	}
	series, err := figure.Build(runs, curves, "pseudo")
	if err != nil {
		t.Fatal(err)
	}
	at := []int{25, 50}
	var buf bytes.Buffer
	if err := writeTable(&buf, dir, at, "pseudo", figure.OverSeed, formatCSV); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rows[0], tableColumns) || len(rows) != 1+len(series)*len(at) {
		t.Fatalf("csv: header %q, %d rows; want %q and %d rows", rows[0], len(rows), tableColumns, 1+len(series)*len(at))
	}
	col := map[string]int{}
	for i, c := range rows[0] {
		col[c] = i
	}
	byGroup := map[string][]outputs.RunRecord{}
	for _, r := range runs {
		byGroup[r.GroupID] = append(byGroup[r.GroupID], r)
	}
	for i, s := range series {
		for j, tt := range at {
			row := rows[1+i*len(at)+j]
			k := roundIndex(s, tt)
			first := byGroup[s.GroupID][0]
			private := first.DeliveredEps != nil
			want := map[string]string{
				"configuration": s.Label, "group_id": s.GroupID, "runs": "2", "instances": "", "trust": first.Trust,
				"certified": strconv.FormatBool(first.Certified), "metric": "pseudo", "t": strconv.Itoa(tt),
				"mean": strconv.FormatFloat(s.Mean[k], 'g', -1, 64), "se": strconv.FormatFloat(s.SE[k], 'g', -1, 64),
				"delivered_eps": "", "delivered_delta": "", "target_eps": "", "target_delta": "",
			}
			if first.Trust != "none" {
				want["target_eps"] = strconv.FormatFloat(*first.TargetEps, 'g', -1, 64)
				want["target_delta"] = strconv.FormatFloat(*first.TargetDelta, 'g', -1, 64)
			}
			if private {
				want["delivered_eps"] = strconv.FormatFloat(*first.DeliveredEps, 'g', -1, 64)
				want["delivered_delta"] = strconv.FormatFloat(*first.DeliveredDelta, 'g', -1, 64)
			}
			for c, v := range want {
				if row[col[c]] != v {
					t.Errorf("csv row %d (%s, t=%d): %s = %q, want %q", 1+i*len(at)+j, s.Label, tt, c, row[col[c]], v)
				}
			}
			if private != (first.Trust != "none") || first.Certified != private {
				t.Errorf("%s: trust %s, certified %v, delivered %v: the sweep's ldp runs are certified, fedlinucb's not private", s.Label, first.Trust, first.Certified, first.DeliveredEps)
			}
		}
	}

	buf.Reset()
	if err := writeTable(&buf, dir, nil, "pseudo", figure.OverSeed, formatJSON); err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	if err := json.Unmarshal(buf.Bytes(), &recs); err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(series) {
		t.Fatalf("json: %d records, want one per configuration (%d) at its last round", len(recs), len(series))
	}
	for i, r := range recs {
		s := series[i]
		k := len(s.Rounds) - 1
		if len(r) != len(tableColumns) || r["mean"] != s.Mean[k] || r["t"] != s.Rounds[k] || r["instances"] != nil {
			t.Errorf("json record %d: %v; want mean %v at t %v, instances null", i, r, s.Mean[k], s.Rounds[k])
		}
		if (r["trust"] == "none") != (r["delivered_eps"] == nil) || (r["trust"] == "none") != (r["target_eps"] == nil) || (r["trust"] == "none") != (r["target_delta"] == nil) {
			t.Errorf("json record %d: trust %v, target (%v, %v), delivered_eps %v", i, r["trust"], r["target_eps"], r["target_delta"], r["delivered_eps"])
		}
	}

	// One seed: no standard error (null, not 0).
	one := smallResults(t, 1)
	buf.Reset()
	if err := writeTable(&buf, one, nil, "pseudo", figure.OverSeed, formatJSON); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"se": null`) || strings.Contains(buf.String(), `"se": 0`) {
		t.Errorf("one seed: se should be null:\n%s", buf.String())
	}

	buf.Reset()
	if err := writeTable(&buf, dir, at, "pseudo", figure.OverSeed, formatMarkdown); err != nil {
		t.Fatal(err)
	}
	if head := strings.SplitN(buf.String(), "\n", 2)[0]; head != "| configuration | runs | trust | certified | target (eps, delta) | delivered (eps, delta) | t = 25 | t = 50 |" {
		t.Errorf("markdown head %q", head)
	}
	if !strings.Contains(buf.String(), "| local | yes | ") {
		t.Errorf("markdown: no certified local row:\n%s", buf.String())
	}
	err = writeTable(&buf, dir, []int{7}, "pseudo", figure.OverSeed, formatCSV)
	if !cliconv.IsUsage(err) || !strings.Contains(err.Error(), "--at 7") {
		t.Errorf("--at 7: %v, want a usage error naming --at", err)
	}
	if _, err := runCLI(t, "table", dir, "--markdown", "--format", "csv"); err == nil || !strings.Contains(err.Error(), "--markdown") {
		t.Errorf("--markdown --format csv: %v", err)
	}
}
