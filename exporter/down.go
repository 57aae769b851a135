package exporter

import (
	"slices"
	"time"

	"github.com/partmon/partmon/analyzer"
)

// collectNoReport emits, before any good report, what the shipped rules
// read to see that partmon is blind: the last cycle's timestamp as 0 (the
// epoch: PartmonCycleStale's "time() - last > stale_after" holds from the
// first scrape) and the configured thresholds the rules compare with.
func (e *Exporter) collectNoReport(m emitter) {
	m.emit(lastCycle, 0)
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
