package exporter

import (
	"slices"
	"time"

	"github.com/partmon/partmon/analyzer"
)

// collectNoReport emits, before any good report, the configured thresholds
// the rules compare with. No partmon_last_cycle_timestamp_seconds: there is
// no cycle to date, and a 0 would read as a cycle in 1970; the rules see a
// blind start from partmon_start_time_seconds and partmon_up 0.
func (e *Exporter) collectNoReport(m emitter) {
	if e.thresholds == (analyzer.Thresholds{}) {
		return
	}
	for i, n := range e.thresholds.Named() {
		m.emit(thresholdDescs[i], n.Value, e.audience.ClusterName(&analyzer.Report{}))
	}
}

// downView is the last good report as seen while the latest cycle failed:
// every node it knew is stale, its data older by the time since that report.
func downView(r *analyzer.Report, now time.Time) *analyzer.Report {
	v := *r
	v.Nodes = slices.Clone(r.Nodes)
	behind := max(now.Sub(r.Generated).Seconds(), 0)
	for i := range v.Nodes {
		v.Nodes[i].Stale = true
		v.Nodes[i].DataAgeSeconds += behind
	}
	return &v
}
