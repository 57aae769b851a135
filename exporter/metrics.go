package exporter

import (
	"slices"
	"sort"

	"github.com/prometheus/client_golang/prometheus"
)

const namespace = "partmon"

// cachedNote ends every HELP string of a report-backed metric: Prometheus
// guidance asks cached values to say so.
const cachedNote = " (cached from the last collection cycle)"

// Label sets of the metric contract (README.md's metric table). A finding
// series also carries what the shipped rules and inhibitions select on,
// from the kind's row in analyzer/kinds.go (KindFacts.SeriesLabels): alert,
// measured and pushed, so that the YAML names no kind.
var (
	nodeLabels      = []string{"cluster", "dc", "rack", "node"}
	tableNodeLabels = []string{"cluster", "dc", "rack", "node", "keyspace", "table"}
	tableLabels     = []string{"cluster", "keyspace", "table"}
	keyLabels       = []string{"cluster", "dc", "rack", "node", "keyspace", "table", "partition_key"}
	ownershipLabels = []string{"cluster", "dc", "rack", "node", "keyspace"}
	findingLabels   = []string{"cluster", "dc", "rack", "node", "keyspace", "table", "kind", "severity", "alert", "measured", "pushed"}
	collectorLabels = []string{"collector", "node"}
	ruleLabels      = []string{"rule"}
)

// metricDesc is a descriptor with its value type, so Collect cannot emit a
// counter as a gauge by mistake (node_exporter's typedDesc).
type metricDesc struct {
	name      string
	help      string
	desc      *prometheus.Desc
	valueType prometheus.ValueType
	labels    []string
	nameOrder []int // labels' indexes sorted by name, the order of a series' label pairs
}

func newMetricDesc(name, help string, t prometheus.ValueType, labels []string) *metricDesc {
	fq := prometheus.BuildFQName(namespace, "", name)
	return &metricDesc{name: fq, help: help, desc: prometheus.NewDesc(fq, help, labels, nil), valueType: t, labels: labels, nameOrder: nameOrder(labels)}
}

func gauge(name, help string, labels []string) *metricDesc {
	return newMetricDesc(name, help+cachedNote+".", prometheus.GaugeValue, labels)
}

func counter(name, help string, labels []string) *metricDesc {
	return newMetricDesc(name, help+cachedNote+".", prometheus.CounterValue, labels)
}

const (
	growthHelp = "Fitted growth of the table's largest partition, in bytes per second (0 when flat or unknown); " +
		"a sidecar computes it from its own node's data and adds that node's dc, rack and node labels (max by (cluster, keyspace, table) is the cluster's)"
	forecastHelp = "Forecast seconds until the table's largest partition crosses the critical size; absent when it does not grow; " +
		"a sidecar computes it from its own node's data and adds that node's dc, rack and node labels (min by (cluster, keyspace, table) is the cluster's)"
)

// Report-backed metric families. Per table per node there are exactly the
// eight table* families below; tests hold that bound.
var (
	tableMaxPartitionSize  = gauge("table_max_partition_size_bytes", "Size of the largest partition of the table on the node, in bytes", tableNodeLabels)
	tableMeanPartitionSize = gauge("table_mean_partition_size_bytes", "Mean partition size of the table on the node, in bytes", tableNodeLabels)
	tablePartitions        = gauge("table_partitions", "Partitions of the table in the node's primary ranges by system.size_estimates: an index-summary estimate that counts a key once per sstable holding it and at least ~128 per sstable", tableNodeLabels)
	tableDiskUsage         = gauge("table_disk_usage_bytes", "Disk space used by the table's live sstables on the node, in bytes", tableNodeLabels)
	tableLocalReads        = counter("table_local_reads_total", "Local reads of the table on the node since the node started", tableNodeLabels)
	tableLocalWrites       = counter("table_local_writes_total", "Local writes of the table on the node since the node started", tableNodeLabels)
	tableTombstonesP99     = gauge("table_tombstones_per_read_p99", "99th percentile of tombstones scanned per read of the table on the node", tableNodeLabels)
	tableTrafficSkew       = gauge("table_traffic_skew_ratio", "Larger of the node's read and write share of the table divided by its fair share by ownership (1 is fair), each where the node itself serves at least the traffic floor of that operation", tableNodeLabels)

	// In sidecar mode the two table-wide families carry the sidecar's node
	// (tableNodeLabels): a sidecar reads only its own node's node-local
	// sources, so its figure is that node's, and N sidecars publish N
	// distinct series instead of one label set N times.
	tableGrowth          = gauge("table_partition_growth_bytes_per_second", growthHelp, tableLabels)
	tableGrowthSidecar   = gauge("table_partition_growth_bytes_per_second", growthHelp, tableNodeLabels)
	tableForecast        = gauge("table_partition_size_forecast_seconds", forecastHelp, tableLabels)
	tableForecastSidecar = gauge("table_partition_size_forecast_seconds", forecastHelp, tableNodeLabels)

	partitionSize       = gauge("partition_size_bytes", "Size of a top-K large partition as reported by the node, in bytes", keyLabels)
	partitionTombstones = gauge("partition_tombstones", "Tombstones in a top-K tombstone-heavy partition as reported by the node", keyLabels)
	partitionOpsShare   = gauge("partition_operations_share_ratio", "Share (0-1) of the table's sampled operations that hit a top-K hot partition", keyLabels)

	nodeOwnership     = gauge("node_ownership_ratio", "Effective ownership of the keyspace's data by the node as nodetool status computes it (0-1); keyspace=\"\" is raw token ownership", ownershipLabels)
	nodeOwnershipSkew = gauge("node_ownership_skew_ratio", "Node's ownership of the keyspace divided by its fair share RF_dc/N_dc (1 is fair)", ownershipLabels)
	nodeLoad          = gauge("node_load_bytes", "Live data size of the node, in bytes", nodeLabels)
	nodeLoadSkew      = gauge("node_load_skew_ratio", "Node's load divided by the mean load of its datacenter (1 is fair)", nodeLabels)
	nodeTokens        = gauge("node_tokens", "Number of tokens the node owns on the ring", nodeLabels)
	nodeStale         = gauge("node_stale", "1 when some node-local source of the node could not be read in the last cycle", nodeLabels)
	nodeDataAge       = gauge("node_data_age_seconds", "Age of the oldest node-local data held for the node, in seconds", nodeLabels)
	// The node's totals over all of its tables, the floor's included, so
	// node roll-ups need no per-table series.
	nodeTables         = gauge("node_tables", "Tables the node holds (Cassandra's own included)", nodeLabels)
	nodeDiskUsage      = gauge("node_disk_usage_bytes", "Disk space used by the live sstables of all of the node's tables, in bytes", nodeLabels)
	nodeLocalReadRate  = gauge("node_local_reads_per_second", "Local reads per second of all of the node's tables: the sum of Cassandra's five-minute moving rates (system_views per_second), or of partmon's rate between two cycles where a table has none", nodeLabels)
	nodeLocalWriteRate = gauge("node_local_writes_per_second", "Local writes per second of all of the node's tables: the sum of Cassandra's five-minute moving rates (system_views per_second), or of partmon's rate between two cycles where a table has none", nodeLabels)
	nodeFloorHidden    = gauge("node_table_series_below_floor", "Per-table-per-node series metrics.table_floor left out for the node: small tables' sizes, idle tables' traffic, zero tombstones", nodeLabels)

	findingsCount    = gauge("findings", "Number of active findings by kind and severity", []string{"cluster", "kind", "severity"})
	findingValue     = gauge("finding_value", "Measured value of a finding, in the finding's unit; findings naming partition keys fold into their table's series, the most severe and largest value first; a sidecar labels findings that name no node with its own node", findingLabels)
	findingThreshold = gauge("finding_threshold", "Threshold the finding's value was compared with, in the finding's unit", findingLabels)

	collectorSuccess     = gauge("collector_success", "1 when the collector's last attempt on the node succeeded, 0 when it failed or found the key sampler busy", collectorLabels)
	collectorDuration    = gauge("collector_duration_seconds", "Duration of the collector's last attempt on the node, in seconds", collectorLabels)
	collectorLastSuccess = gauge("collector_last_success_timestamp_seconds", "Unix time of the collector's last successful read on the node", collectorLabels)
	collectorRows        = gauge("collector_rows", "Rows the collector read on the node in its last attempt", collectorLabels)

	analyzerRuleFailures = gauge("analyzer_rule_failures", "1 when the analyzer's rule of this kind (or this step of the analysis) panicked on the cycle's snapshot, a partmon bug: "+
		"its findings are missing (on the tables the report's note names; the other rules' findings stand), 0 when it ran", ruleLabels)

	upDesc = newMetricDesc("up", "1 when the last collection cycle reached the cluster, 0 when it failed or none has finished.",
		prometheus.GaugeValue, nil)
	lastCycle = newMetricDesc("last_cycle_timestamp_seconds", "Unix time when the cycle whose results are served finished (the age of every cached partmon metric).",
		prometheus.GaugeValue, nil)
	cycleDuration = newMetricDesc("cycle_duration_seconds", "Duration of the cycle whose results are served, in seconds: its analysis, from merging the sources' latest data to the published report, and for the first cycle the collection it waited for (each source's own run: partmon_collector_duration_seconds).",
		prometheus.GaugeValue, nil)
	startTime = newMetricDesc("start_time_seconds", "Unix time when partmon started; published from the start, before any cycle.",
		prometheus.GaugeValue, []string{"cluster"})
	configReloadOK = newMetricDesc("config_last_reload_successful", "1 when the last configuration load (at start or on SIGHUP) succeeded, 0 when a reload was refused and the running configuration kept.",
		prometheus.GaugeValue, nil)
	configReloadTime = newMetricDesc("config_last_reload_success_timestamp_seconds", "Unix time of the last successful configuration load (at start or on SIGHUP).",
		prometheus.GaugeValue, nil)
	buildInfo = newMetricDesc("build_info", "A metric with a constant '1' value labeled by version, revision, branch, goversion from which partmon was built, and the goos and goarch for the build.",
		prometheus.GaugeValue, []string{"version", "revision", "branch", "goversion", "goos", "goarch", "tags"})
)

// reportDescs are the families the Exporter collector emits.
var reportDescs = append([]*metricDesc{
	tableMaxPartitionSize, tableMeanPartitionSize, tablePartitions, tableDiskUsage,
	tableLocalReads, tableLocalWrites, tableTombstonesP99, tableTrafficSkew,
	tableGrowth, tableForecast,
	partitionSize, partitionTombstones, partitionOpsShare,
	nodeOwnership, nodeOwnershipSkew, nodeLoad, nodeLoadSkew, nodeTokens, nodeStale, nodeDataAge,
	nodeTables, nodeDiskUsage, nodeFloorHidden, nodeLocalReadRate, nodeLocalWriteRate,
	findingsCount, findingValue, findingThreshold,
	collectorSuccess, collectorDuration, collectorLastSuccess, collectorRows, analyzerRuleFailures,
	upDesc, lastCycle, cycleDuration, buildInfo,
}, append(thresholdDescs, guardrailDescs...)...)

// MetricNames lists every metric family the exporter can publish (sorted),
// so dashboard and alert-rule tests can check that their queries use real
// names. Go and process collector families (go_*, process_*) are not listed.
func MetricNames() []string {
	names := make([]string, 0, len(reportDescs)+len(processDescs))
	for _, d := range append(slices.Clip(reportDescs), processDescs...) {
		names = append(names, d.name)
	}
	sort.Strings(names)
	return names
}
