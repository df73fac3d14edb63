package mab

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fedbandit/fedbandit/core"
)

func TestZZCompare(t *testing.T) {
	cfg := os.Getenv("MABCMP")
	if cfg == "" {
		t.Skip()
	}
	for _, line := range strings.Split(cfg, ";") {
		f := strings.Fields(line)
		eps, _ := strconv.ParseFloat(f[1], 64)
		gap, _ := strconv.ParseFloat(f[2], 64)
		seed, _ := strconv.Atoi(f[3])
		T, _ := strconv.Atoi(f[4])
		alg, params := f[0], map[string]float64{}
		if strings.HasPrefix(alg, "dist-rdp-se-S") {
			s, _ := strconv.ParseFloat(strings.TrimPrefix(alg, "dist-rdp-se-S"), 64)
			alg, params["S"] = "dist-rdp-se", s
		}
		in := DefaultInstance()
		in.Gap, in.Seed, in.MeansFrom = gap, uint64(seed), MeansNumpyLegacy
		var rs []string
		start := time.Now()
		for rs_ := 1; rs_ <= 5; rs_++ {
			p, _, err := New(Spec{Algorithm: alg, Eps: eps, Delta: 1e-5, T: T, Seed: uint64(rs_), Params: params, Instance: in})
			if err != nil {
				t.Fatal(err)
			}
			res, _ := core.Drive(context.Background(), p, T, T)
			rs = append(rs, fmt.Sprintf("%.1f/%.1f%v", res.Realised, res.Pseudo, p.(*Run).Active()))
		}
		fmt.Printf("GO %s: realised/pseudo over run seeds 1..5: %v (%.2fs per run)\n", line, rs, time.Since(start).Seconds()/5)
	}
}
