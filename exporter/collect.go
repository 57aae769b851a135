package exporter

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/publish"
)

// emitter turns values into const metrics. A value that cannot become a
// metric (wrong label count, invalid UTF-8) becomes an invalid metric, which
// promhttp's ContinueOnError reports without blanking the scrape.
type emitter struct {
	ch    chan<- prometheus.Metric
	pairs *labelPairs // shared by the series of one Collect
}

func newEmitter(ch chan<- prometheus.Metric) emitter { return emitter{ch: ch, pairs: newLabelPairs()} }

func (m emitter) emit(d *metricDesc, v float64, labels ...string) {
	// NaN or ±Inf says "unknown" here (e.g. a skew over a zero fair share): no series.
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	if pairs := m.pairs.of(d, labels); pairs != nil {
		m.ch <- sharedLabelMetric{d: d, value: v, pairs: pairs}
		return
	}
	metric, err := prometheus.NewConstMetric(d.desc, d.valueType, v, labels...)
	if err != nil {
		metric = prometheus.NewInvalidMetric(d.desc, fmt.Errorf("building %s: %w", d.name, err))
	}
	m.ch <- metric
}

// emitPositive publishes v only when it is above zero: the snapshot's
// convention is that a zero means the source gave nothing.
func (m emitter) emitPositive(d *metricDesc, v float64, labels ...string) {
	if v > 0 {
		m.emit(d, v, labels...)
	}
}

func unixSeconds(ns int64) float64 { return float64(ns) / 1e9 }

func collectCycle(m emitter, r *analyzer.Report) {
	if r.Generated.IsZero() {
		return
	}
	m.emit(lastCycle, unixSeconds(r.Generated.UnixNano()))
	if r.CycleDuration > 0 {
		m.emit(cycleDuration, r.CycleDuration.Seconds())
	}
}

// collectSources emits the per-collector self-metrics. Sources that are
// disabled or unsupported by the engine are not failures and get no series.
func collectSources(m emitter, sources []model.SourceStatus) {
	seen := make(map[[2]string]bool, len(sources))
	for _, s := range sources {
		if s.State != model.StateOK && s.State != model.StateError && s.State != model.StateBusy {
			continue
		}
		id := [2]string{s.Source, s.Node}
		if seen[id] {
			continue
		}
		seen[id] = true
		m.emit(collectorSuccess, boolValue(s.State == model.StateOK), s.Source, s.Node)
		m.emit(collectorDuration, s.Duration.Seconds(), s.Source, s.Node)
		m.emit(collectorRows, float64(s.Rows), s.Source, s.Node)
		if !s.LastSuccess.IsZero() {
			m.emit(collectorLastSuccess, unixSeconds(s.LastSuccess.UnixNano()), s.Source, s.Node)
		}
	}
}

// collectRuleFailures emits one series per rule and step of the analysis:
// the report's failures of it (0 or 1).
func collectRuleFailures(m emitter, r *analyzer.Report) {
	failed := make(map[string]int, len(r.RuleFailures))
	for _, f := range r.RuleFailures {
		failed[f.Rule]++
	}
	for _, name := range analyzer.Checks() {
		m.emit(analyzerRuleFailures, float64(failed[name]), name)
		delete(failed, name)
	}
	for _, name := range slices.Sorted(maps.Keys(failed)) { // a check this build does not list
		m.emit(analyzerRuleFailures, float64(failed[name]), name)
	}
}

// collectTableNodes emits at most the eight per-table-per-node families,
// those the floor lets each table node publish, and each node's totals over
// all of its tables (what the floor left out included).
func collectTableNodes(m emitter, r *analyzer.Report, cluster string, speaks func(string) bool, floor floorFilter) {
	seen := make(map[[3]string]bool, len(r.TableNodes))
	type nodeTotal struct {
		dc, rack            string
		tables, hidden      int
		disk, reads, writes float64
	}
	totals := map[string]*nodeTotal{}
	for _, tn := range inLabelOrder(r.TableNodes) {
		id := [3]string{tn.Node, tn.Keyspace, tn.Table}
		if !speaks(tn.Node) || seen[id] {
			continue
		}
		seen[id] = true
		t := totals[tn.Node]
		if t == nil {
			t = &nodeTotal{dc: tn.DC, rack: tn.Rack}
			totals[tn.Node] = t
		}
		t.tables++
		t.disk += float64(max(tn.DiskUsageBytes, 0))
		t.reads += tn.LocalReads.MovingRate()
		t.writes += tn.LocalWrites.MovingRate()
		show := floor.show(tn)
		s := m.sharing(tableMaxPartitionSize, cluster, tn.DC, tn.Rack, tn.Node, tn.Keyspace, tn.Table)
		emit := func(d *metricDesc, v float64, shown bool) {
			switch {
			case v <= 0:
			case shown:
				s.emit(d, v)
			default:
				t.hidden++
			}
		}
		emit(tableMaxPartitionSize, float64(tn.MaxPartitionBytes), show.size)
		emit(tableMeanPartitionSize, float64(tn.MeanPartitionBytes), show.size)
		emit(tablePartitions, float64(tn.PartitionsEstimate), show.size)
		emit(tableDiskUsage, float64(tn.DiskUsageBytes), show.size)
		emit(tableLocalReads, float64(tn.LocalReads.Count), show.traffic)
		emit(tableLocalWrites, float64(tn.LocalWrites.Count), show.traffic)
		// Zero tombstones per read is a real, healthy value once reads were
		// measured; past the floor it is left out with the idle tables.
		if tn.TombstonesPerRead.Count > 0 {
			if p99 := tn.TombstonesPerRead.P99; show.traffic && (p99 > 0 || show.zeroTombstones) {
				s.emit(tableTombstonesP99, p99)
			} else {
				t.hidden++
			}
		}
		emit(tableTrafficSkew, floor.th.TrafficSkewFigure(tn), show.traffic)
	}
	for _, node := range slices.Sorted(maps.Keys(totals)) {
		t := totals[node]
		l := []string{cluster, t.dc, t.rack, node}
		m.emit(nodeTables, float64(t.tables), l...)
		m.emit(nodeDiskUsage, t.disk, l...)
		m.emit(nodeFloorHidden, float64(t.hidden), l...)
		m.emit(nodeLocalReadRate, t.reads, l...)
		m.emit(nodeLocalWriteRate, t.writes, l...)
	}
}

// inLabelOrder lists table nodes in the order the registry sorts each
// family into (label values by label name: dc, keyspace, node, rack, table;
// cluster is the same for all), so that its sort finds them sorted: the
// sort was a sixth of a 1,000-table scrape (BenchmarkExposition1000Tables3Nodes).
func inLabelOrder(tns []analyzer.TableNode) []*analyzer.TableNode {
	out := make([]*analyzer.TableNode, len(tns))
	for i := range tns {
		out[i] = &tns[i]
	}
	slices.SortStableFunc(out, func(a, b *analyzer.TableNode) int {
		return cmp.Or(strings.Compare(a.DC, b.DC), strings.Compare(a.Keyspace, b.Keyspace),
			strings.Compare(a.Node, b.Node), strings.Compare(a.Rack, b.Rack), strings.Compare(a.Table, b.Table))
	})
	return out
}

// collectTables emits the per-table growth and forecast: without a node
// label in cluster mode, with the sidecar's own node (own) in sidecar mode,
// where they are computed from that node's data alone.
func collectTables(m emitter, r *analyzer.Report, cluster string, growth, forecast *metricDesc, own *analyzer.NodeSummary, floor floorFilter) {
	seen := make(map[[2]string]bool, len(r.Tables))
	for _, t := range r.Tables {
		id := [2]string{t.Keyspace, t.Table}
		if seen[id] {
			continue
		}
		seen[id] = true
		labels := []string{cluster, t.Keyspace, t.Table}
		if own != nil {
			labels = []string{cluster, own.DC, own.Rack, own.Address, t.Keyspace, t.Table}
		}
		if floor.showGrowth(t.GrowthBytesPerSecond) {
			m.emit(growth, t.GrowthBytesPerSecond, labels...)
		}
		if t.SecondsToCritical >= 0 {
			m.emit(forecast, t.SecondsToCritical, labels...)
		}
	}
}

func collectNodes(m emitter, r *analyzer.Report, cluster string, speaks func(string) bool) {
	where := nodePlaces(r)
	seenNode := make(map[string]bool, len(r.Nodes))
	for _, n := range r.Nodes {
		if !speaks(n.Address) || seenNode[n.Address] {
			continue
		}
		seenNode[n.Address] = true
		l := []string{cluster, n.DC, n.Rack, n.Address}
		m.emitPositive(nodeLoad, n.LoadBytes, l...)
		m.emitPositive(nodeLoadSkew, n.LoadSkew, l...)
		m.emit(nodeTokens, float64(n.Tokens), l...)
		m.emit(nodeStale, boolValue(n.Stale), l...)
		m.emit(nodeDataAge, n.DataAgeSeconds, l...)
	}
	seenOwn := make(map[[2]string]bool, len(r.Ownership))
	for _, o := range r.Ownership {
		id := [2]string{o.Node, o.Keyspace}
		if !speaks(o.Node) || seenOwn[id] {
			continue
		}
		seenOwn[id] = true
		dc, rack := o.DC, o.Rack
		if p, ok := where[o.Node]; ok && dc == "" {
			dc, rack = p.dc, p.rack
		}
		l := []string{cluster, dc, rack, o.Node, o.Keyspace}
		m.emit(nodeOwnership, o.Owns, l...)
		m.emit(nodeOwnershipSkew, o.Skew, l...)
	}
}

var publishedSeverities = []finding.Severity{finding.SeverityInfo, finding.SeverityWarning, finding.SeverityCritical}

func collectFindings(m emitter, r *analyzer.Report, cluster string, speaks func(string) bool, own *analyzer.NodeSummary) {
	type kindSev struct {
		kind string
		sev  finding.Severity
	}
	counts := make(map[kindSev]int)
	// Every kind gets a partmon_findings series (0 when none) for every
	// severity, so dashboards and rules see zeros instead of no data.
	for _, k := range analyzer.Kinds() {
		for _, s := range publishedSeverities {
			counts[kindSev{k, s}] = 0
		}
	}
	// Every finding has a value series; a partition key is not a label, so
	// findings naming keys fold into their scope's series (the worst wins).
	// A finding folded over several nodes counts once and keeps one value
	// series per node it speaks for (Finding.PerNode).
	var scoped []finding.Finding
	for _, f := range r.Findings {
		if !publish.SpeaksForFinding(f, speaks) {
			continue
		}
		counts[kindSev{f.Kind, f.Severity}]++
		for _, nf := range f.PerNode() {
			if nf.Node == "" || speaks(nf.Node) {
				scoped = append(scoped, nf)
			}
		}
	}
	for ks, n := range counts {
		m.emit(findingsCount, float64(n), cluster, ks.kind, ks.sev.String())
	}

	// Two findings with the same labels would be duplicate series: the most
	// severe, then the largest value, speaks for the scope.
	sort.SliceStable(scoped, func(i, j int) bool {
		if scoped[i].Severity != scoped[j].Severity {
			return scoped[i].Severity > scoped[j].Severity
		}
		return scoped[i].Value > scoped[j].Value
	})
	seen := make(map[[8]string]bool, len(scoped))
	for _, f := range scoped {
		l := [8]string{cluster, f.DC, f.Rack, f.Node, f.Keyspace, f.Table, f.Kind, f.Severity.String()}
		if f.Node == "" && own != nil {
			// A sidecar found it in its own node's data: say whose.
			l[1], l[2], l[3] = own.DC, own.Rack, own.Address
		}
		if seen[l] {
			continue
		}
		seen[l] = true
		facts, _ := analyzer.KindOf(f.Kind)
		alert, measured, pushed := facts.SeriesLabels()
		all := append(l[:], alert, measured, pushed)
		m.emit(findingValue, f.Value, all...)
		m.emit(findingThreshold, f.Threshold, all...)
	}
}

type place struct{ dc, rack string }

// nodePlaces maps node addresses to their datacenter and rack.
func nodePlaces(r *analyzer.Report) map[string]place {
	p := make(map[string]place, len(r.Nodes))
	for _, n := range r.Nodes {
		p[n.Address] = place{n.DC, n.Rack}
	}
	return p
}
