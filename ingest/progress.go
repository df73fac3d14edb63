package ingest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// progress reports bytes read, rows done and an ETA: as an mpb bar on
// Options.Progress, and/or as periodic plain log lines on Options.Log.
type progress struct {
	stop func()
}

// logEvery is the interval between plain progress log lines.
const logEvery = 5 * time.Second

func startProgress(ctx context.Context, opts Options, total int64, read, rows *atomic.Int64) *progress {
	if opts.Progress == nil && opts.Log == nil {
		return &progress{stop: func() {}}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	start := time.Now()
	var p *mpb.Progress
	var bar *mpb.Bar
	if opts.Progress != nil {
		p = mpb.New(mpb.WithOutput(opts.Progress), mpb.WithWidth(40), mpb.WithRefreshRate(200*time.Millisecond), mpb.WithAutoRefresh())
		bar = p.AddBar(total,
			mpb.PrependDecorators(
				decor.Name("ingest "),
				decor.Counters(decor.SizeB1024(0), "% .1f / % .1f"),
			),
			mpb.AppendDecorators(
				decor.Name("  "),
				decor.Percentage(decor.WC{W: 5}),
				decor.Any(func(decor.Statistics) string { return fmt.Sprintf("  %d rows", rows.Load()) }),
				decor.Name("  ETA "),
				decor.AverageETA(decor.ET_STYLE_GO),
			),
		)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		lastLog := start
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-tick.C:
				cur := read.Load()
				if bar != nil {
					bar.SetCurrent(min(cur, total))
				}
				if opts.Log != nil && now.Sub(lastLog) >= logEvery {
					lastLog = now
					opts.Log.Info("ingest progress", "read_bytes", cur, "total_bytes", total, "rows", rows.Load(), "eta", eta(now.Sub(start), cur, total))
				}
			}
		}
	}()
	return &progress{stop: func() {
		cancel()
		wg.Wait()
		if bar != nil {
			bar.SetCurrent(read.Load())
			bar.SetTotal(read.Load(), true)
		}
		if p != nil {
			p.Wait()
		}
	}}
}

// eta estimates the time left to read total bytes when cur were read in
// elapsed, at the same rate, to the second; "unknown" before the first
// byte or without a total.
func eta(elapsed time.Duration, cur, total int64) string {
	if cur <= 0 || total <= 0 {
		return "unknown"
	}
	return time.Duration(float64(elapsed) * float64(total-cur) / float64(cur)).Round(time.Second).String()
}
