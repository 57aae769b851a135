// Package exporter is partmon's Prometheus collector: const metrics built
// from the analyzer's latest published Report (descriptors, top-K keys,
// label sets shared per series). It neither serves HTTP (package web does)
// nor talks to the database: collecting only reads the report the last
// cycle published.
package exporter

import (
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/version"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/internal/publish"
	"github.com/partmon/partmon/model"
)

// DefaultTopK bounds the partition keys published per table and metric.
const DefaultTopK = 10

// Options configure an Exporter.
type Options struct {
	// Cluster overrides the cluster label; empty uses the report's cluster name.
	Cluster string
	// Mode is publish.ModeCluster (default) or publish.ModeSidecar.
	Mode publish.Mode
	// SpeakFor lists the node addresses whose node-scoped series are published.
	// Empty: every node in cluster mode, the collector's targeted nodes
	// (NodeSummary.Targeted) in sidecar mode.
	SpeakFor []string
	// Datacenters, in cluster mode, are the DCs whose nodes' series are
	// published (collector.datacenters; empty: every DC).
	Datacenters []string
	// TopK bounds the keys published per table and key metric; 0 means
	// DefaultTopK, a negative value publishes none.
	TopK int
	// TableFloor hides the per-table-per-node series of small, idle tables
	// (opt-in; the zero value publishes every table).
	TableFloor TableFloor
	// BuildInfo labels partmon_build_info; empty fields come from
	// github.com/prometheus/common/version (set with -ldflags -X).
	BuildInfo BuildInfo
}

// BuildInfo is what partmon_build_info carries.
type BuildInfo struct {
	Version   string
	Revision  string
	GoVersion string
}

// Exporter is a prometheus.Collector over the latest published report.
// Collect builds const metrics from it alone, so its output changes only
// with Publish; concurrent scrapes and a concurrent Publish are safe.
type Exporter struct {
	audience  publish.Audience
	topK      int
	floor     TableFloor
	buildInfo BuildInfo
	// growth and forecast are the table-wide families' descriptors for the
	// mode: sidecars add their own node's labels.
	growth, forecast *metricDesc

	publishMu sync.Mutex // serialises writers; readers only Load
	state     atomic.Pointer[cycleState]
	onPublish []func() // guarded by publishMu
}

var _ prometheus.Collector = (*Exporter)(nil)

// cycleState is immutable once stored.
type cycleState struct {
	// report is the last good report: data series come from it.
	report *analyzer.Report
	// sources is the latest attempt's per-source status (even of a failed
	// cycle), so self-metrics tell the truth while data stays on the last good report.
	sources []model.SourceStatus
	// up is whether the latest attempt produced a good report.
	up bool
	// generation counts Publish calls.
	generation uint64
}

// Cycle is what the latest Publish left, read at once so its parts agree.
type Cycle struct {
	// Report is the last good report, nil before the first one.
	Report *analyzer.Report
	// Sources is the per-source status of the latest attempt, even a failed one.
	Sources []model.SourceStatus
	// Up is whether the latest attempt produced a good report.
	Up bool
	// Generation counts Publish calls: what Collect emits can only have
	// changed when it has.
	Generation uint64
}

// New builds an Exporter with nothing published yet.
func New(opts Options) *Exporter {
	topK := opts.TopK
	if topK == 0 {
		topK = DefaultTopK
	}
	bi := opts.BuildInfo
	if bi.Version == "" {
		bi.Version = version.Version
	}
	if bi.Revision == "" {
		bi.Revision = version.GetRevision()
	}
	if bi.GoVersion == "" {
		bi.GoVersion = version.GoVersion
	}
	e := &Exporter{audience: publish.NewAudience(opts.Cluster, opts.Mode, opts.SpeakFor).ForDatacenters(opts.Datacenters), topK: topK, floor: opts.TableFloor, buildInfo: bi,
		growth: tableGrowth, forecast: tableForecast}
	if opts.Mode == publish.ModeSidecar {
		e.growth, e.forecast = tableGrowthSidecar, tableForecastSidecar
	}
	return e
}

// Publish makes r the report every later scrape reads (an atomic swap); r
// must not change afterwards. A nil report, or one whose every source failed,
// marks the cycle failed (partmon_up 0) and keeps serving the last good
// report's data, while the collector self-metrics show the failed attempt.
func (e *Exporter) Publish(r *analyzer.Report) {
	e.publishMu.Lock()
	next := &cycleState{}
	if prev := e.state.Load(); prev != nil {
		*next = *prev
	}
	next.generation++
	next.up = false
	if r != nil {
		next.sources = r.Sources
		if !publish.Failed(r) {
			next.report = r
			next.up = true
		}
	}
	e.state.Store(next)
	hooks := e.onPublish
	e.publishMu.Unlock()
	for _, f := range hooks {
		f()
	}
}

// OnPublish registers f to run after every Publish, on the publishing
// goroutine once the new state is visible (a cache of Collect's output
// rebuilds there, so that scrapes find it ready).
func (e *Exporter) OnPublish(f func()) {
	e.publishMu.Lock()
	defer e.publishMu.Unlock()
	e.onPublish = append(e.onPublish, f)
}

// Cycle is the latest published state; the zero Cycle before any Publish.
func (e *Exporter) Cycle() Cycle {
	st := e.state.Load()
	if st == nil {
		return Cycle{}
	}
	return Cycle{Report: st.report, Sources: st.sources, Up: st.up, Generation: st.generation}
}

// ClusterName is the cluster label of report r: the configured override,
// else the report's own.
func (e *Exporter) ClusterName(r *analyzer.Report) string { return e.audience.ClusterName(r) }

// Latest is the last good report, nil before the first one.
func (e *Exporter) Latest() *analyzer.Report {
	if st := e.state.Load(); st != nil {
		return st.report
	}
	return nil
}

// Ready is true once a full cycle has published a good report.
func (e *Exporter) Ready() bool { return e.Latest() != nil }

// Describe sends every family's descriptor: the label sets are fixed, so the
// registry can check what Collect emits.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range reportDescs {
		switch d {
		case tableGrowth:
			d = e.growth
		case tableForecast:
			d = e.forecast
		}
		ch <- d.desc
	}
}

// Collect emits const metrics from the latest published state.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	m := emitter{ch: ch}
	m.emit(buildInfo, 1, e.buildInfo.Version, e.buildInfo.Revision, e.buildInfo.GoVersion)
	st := e.state.Load()
	if st == nil {
		m.emit(upDesc, 0)
		return
	}
	m.emit(upDesc, boolValue(st.up))

	// Self-metrics describe this process's own collectors, so they are not
	// filtered by node: a sidecar's collectors only read its own node anyway.
	collectSources(m, st.sources)

	r := st.report
	if r == nil {
		return
	}
	cluster := e.audience.ClusterName(r)
	speaks := e.audience.NodeFilter(r)
	// own: in sidecar mode, the node whose labels series without a node of their own take.
	var own *analyzer.NodeSummary
	if n, ok := e.audience.OwnNode(r); ok {
		own = &n
	}
	collectCycle(m, r)
	collectTableNodes(m, r, cluster, speaks, newFloorFilter(e.floor, r))
	collectTables(m, r, cluster, e.growth, e.forecast, own)
	collectTopPartitions(m, r, cluster, speaks, own, e.topK)
	collectNodes(m, r, cluster, speaks)
	collectFindings(m, r, cluster, speaks, own)
	collectThresholds(m, r, cluster)
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
