package outputs

import (
	"slices"
	"testing"

	"github.com/fedbandit/fedbandit/core"
)

// FreshMetrics sets the table of curve metrics to what it is before the
// registry registers any family (the regret metrics and core's), and
// restores it when t ends: t may then register metrics
// (RegisterMetrics, RegisterEveryFamilyMetrics) as the registry does at
// start-up, whether or not the test binary links the registry.
func FreshMetrics(t testing.TB) {
	t.Helper()
	metricTable.Lock()
	all, registered := metricTable.all, metricTable.registered
	metricTable.all, metricTable.registered = mustGather(regretMetrics, core.Metrics), nil
	metricTable.Unlock()
	t.Cleanup(func() {
		metricTable.Lock()
		metricTable.all, metricTable.registered = all, registered
		metricTable.Unlock()
	})
}

// RegisterEveryFamilyMetrics adds ms to the table as core.Metrics' are
// (produced by every family), or returns the error the table refuses
// them with; call FreshMetrics first.
func RegisterEveryFamilyMetrics(t testing.TB, ms ...core.Metric) error {
	t.Helper()
	metricTable.Lock()
	defer metricTable.Unlock()
	all, err := gather(slices.Clone(metricTable.all), "", ms)
	if err == nil {
		metricTable.all = all
	}
	return err
}
