package runner

import (
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// progress reports finished runs: an mpb bar on a terminal, or a log line
// every interval otherwise.
type progress struct {
	now    func() time.Time // the wall clock
	start  time.Time
	total  int
	mu     sync.Mutex
	nDone  int
	failed int

	bar *mpb.Bar
	p   *mpb.Progress

	log    *slog.Logger
	ticker *time.Ticker
	quit   chan struct{}
	wg     sync.WaitGroup
}

func newProgress(w io.Writer, log *slog.Logger, every time.Duration, total int, now func() time.Time) *progress {
	pr := &progress{now: now, start: now(), total: total, log: log}
	if w != nil {
		pr.p = mpb.New(mpb.WithOutput(w), mpb.WithWidth(32), mpb.WithAutoRefresh())
		pr.bar = pr.p.AddBar(int64(total),
			mpb.PrependDecorators(
				decor.Name("runs ", decor.WCSyncSpaceR),
				decor.CountersNoUnit("%d/%d", decor.WCSyncWidth),
			),
			mpb.AppendDecorators(
				decor.Any(func(decor.Statistics) string { return pr.rateText() }),
				decor.Name("  ETA "),
				decor.AverageETA(decor.ET_STYLE_GO),
			),
		)
		return pr
	}
	if every <= 0 {
		every = 30 * time.Second
	}
	pr.ticker = time.NewTicker(every)
	pr.quit = make(chan struct{})
	pr.wg.Add(1)
	go func() {
		defer pr.wg.Done()
		for {
			select {
			case <-pr.ticker.C:
				pr.logLine("progress")
			case <-pr.quit:
				return
			}
		}
	}()
	return pr
}

// rateText renders the throughput and failures for the bar.
func (pr *progress) rateText() string {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	s := fmt.Sprintf("  %.0f runs/h", pr.perHour())
	if pr.failed > 0 {
		s += fmt.Sprintf("  %d failed", pr.failed)
	}
	return s
}

func (pr *progress) perHour() float64 {
	el := pr.now().Sub(pr.start).Hours()
	if el <= 0 {
		return 0
	}
	return float64(pr.nDone) / el
}

func (pr *progress) logLine(msg string) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	eta := "unknown"
	if r := pr.perHour(); r > 0 {
		eta = time.Duration(float64(pr.total-pr.nDone) / r * float64(time.Hour)).Round(time.Second).String()
	}
	pr.log.Info(msg, "done", pr.nDone, "of", pr.total, "failed", pr.failed,
		"runs_per_hour", fmt.Sprintf("%.0f", pr.perHour()), "eta", eta)
}

// done records one finished run.
func (pr *progress) finished(ok bool) {
	pr.mu.Lock()
	pr.nDone++
	if !ok {
		pr.failed++
	}
	pr.mu.Unlock()
	if pr.bar != nil {
		pr.bar.Increment()
	}
}

// stop ends the report, leaving the bar incomplete when runs are missing
// (the sweep was aborted or interrupted): Abort does nothing to a
// completed bar.
func (pr *progress) stop() {
	if pr.bar != nil {
		pr.bar.Abort(false)
		pr.p.Wait()
		return
	}
	pr.ticker.Stop()
	close(pr.quit)
	pr.wg.Wait()
	if pr.total > 0 {
		pr.logLine("progress")
	}
}
