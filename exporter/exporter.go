// Package exporter is partmon's Prometheus collector: const metrics built
// from the analyzer's latest published Report (descriptors, top-K keys,
// label sets shared per series). It neither serves HTTP (package web does)
// nor talks to the database nor keeps the report: collecting only reads
// the report the last cycle published to a publish.Latest.
package exporter

import (
	"cmp"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/version"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/publish"
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
	// Thresholds are the configured thresholds, published before the first
	// good report (after it, the report's own).
	Thresholds analyzer.Thresholds
	// Started is when partmon started (partmon_start_time_seconds); zero
	// publishes none.
	Started time.Time
	// Config is the configuration's load status; nil publishes none.
	Config *ConfigStatus
}

// BuildInfo is what partmon_build_info carries: node_exporter's labels
// (prometheus/common/version's collector).
type BuildInfo struct {
	Version   string
	Revision  string
	Branch    string
	GoVersion string
	GoOS      string
	GoArch    string
	Tags      string
}

// Exporter is a prometheus.Collector over the latest published report.
// Collect builds const metrics from it alone, so its output changes only
// with a Publish to its publish.Latest; concurrent scrapes and a concurrent
// Publish are safe.
type Exporter struct {
	latest    *publish.Latest
	audience  publish.Audience
	topK      int
	floor     TableFloor
	buildInfo BuildInfo
	// thresholds are Options.Thresholds.
	thresholds analyzer.Thresholds
	started    time.Time
	config     *ConfigStatus
	// growth and forecast are the table-wide families' descriptors for the
	// mode: sidecars add their own node's labels.
	growth, forecast *metricDesc
}

var _ prometheus.Collector = (*Exporter)(nil)

// New builds an Exporter of the reports published to latest.
func New(latest *publish.Latest, opts Options) *Exporter {
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
	bi.Branch = cmp.Or(bi.Branch, version.Branch)
	bi.GoOS, bi.GoArch = cmp.Or(bi.GoOS, version.GoOS), cmp.Or(bi.GoArch, version.GoArch)
	bi.Tags = cmp.Or(bi.Tags, version.GetTags())
	e := &Exporter{latest: latest, audience: publish.NewAudience(opts.Cluster, opts.Mode, opts.SpeakFor).ForDatacenters(opts.Datacenters), topK: topK, floor: opts.TableFloor, buildInfo: bi, thresholds: opts.Thresholds,
		started: opts.Started, config: opts.Config,
		growth: tableGrowth, forecast: tableForecast}
	if opts.Mode == publish.ModeSidecar {
		e.growth, e.forecast = tableGrowthSidecar, tableForecastSidecar
	}
	return e
}

// ClusterName is the cluster label of report r: the configured override,
// else the report's own.
func (e *Exporter) ClusterName(r *analyzer.Report) string { return e.audience.ClusterName(r) }

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
	m := newEmitter(ch)
	b := e.buildInfo
	m.emit(buildInfo, 1, b.Version, b.Revision, b.Branch, b.GoVersion, b.GoOS, b.GoArch, b.Tags)
	st := e.latest.Cycle()
	if st.Generation == 0 { // nothing published yet
		m.emit(upDesc, 0)
		e.collectNoReport(m)
		return
	}
	m.emit(upDesc, boolValue(st.Up))

	// Self-metrics describe this process's own collectors, so they are not
	// filtered by node: a sidecar's collectors only read its own node anyway.
	collectSources(m, st.Sources)

	r := st.Report
	if r == nil {
		e.collectNoReport(m)
		return
	}
	if !st.Up {
		r = downView(r, time.Now())
	}
	cluster := e.audience.ClusterName(r)
	speaks := e.audience.NodeFilter(r)
	// own: in sidecar mode, the node whose labels series without a node of their own take.
	var own *analyzer.NodeSummary
	if n, ok := e.audience.OwnNode(r); ok {
		own = &n
	}
	collectCycle(m, r)
	collectRuleFailures(m, r)
	floor := newFloorFilter(e.floor, r)
	collectTableNodes(m, r, cluster, speaks, floor)
	collectTables(m, r, cluster, e.growth, e.forecast, own, floor)
	collectTopPartitions(m, r, cluster, speaks, own, e.topK)
	collectNodes(m, r, cluster, speaks)
	collectFindings(m, r, cluster, speaks, own)
	collectThresholds(m, r, cluster)
	collectGuardrails(m, r, cluster, speaks)
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
