// Package finding is the analyzer's output vocabulary, below every unit of
// it: a finding, its severity, the units of its value and the figures behind
// it. It imports nothing of partmon.
package finding

// Units of Finding.Value and Finding.Threshold.
const (
	UnitBytes      = "bytes"
	UnitRows       = "rows"
	UnitRatio      = "ratio"
	UnitSeconds    = "seconds"
	UnitTombstones = "tombstones"
	UnitPartitions = "partitions"
	UnitOpsPerSec  = "operations_per_second"
)

// Severity orders findings. The zero value is SeverityNone.
type Severity int

const (
	SeverityNone Severity = iota
	SeverityInfo
	SeverityWarning
	SeverityCritical
)

// Finding is one problem, with the numbers behind it and what to do.
type Finding struct {
	// ID names the problem, never its values or attributes: the same
	// problem gets the same ID in every cycle, whether or not a key list
	// names its key this time, so alerts and dashboards can follow it.
	ID       string   `json:"id"`
	Kind     string   `json:"kind"`
	Severity Severity `json:"severity"`
	Cluster  string   `json:"cluster"`
	DC       string   `json:"dc,omitempty"`
	Rack     string   `json:"rack,omitempty"`
	Node     string   `json:"node,omitempty"` // address
	Keyspace string   `json:"keyspace,omitempty"`
	Table    string   `json:"table,omitempty"`
	// BaseTable is the table a materialized view is built from, when Table
	// is a view.
	BaseTable    string  `json:"base_table,omitempty"`
	PartitionKey string  `json:"partition_key,omitempty"`
	Value        float64 `json:"value"`
	Threshold    float64 `json:"threshold"`
	Unit         string  `json:"unit"` // bytes, rows, ratio, seconds, tombstones, partitions, operations_per_second
	Summary      string  `json:"summary"`
	Advice       string  `json:"advice"`
	// SuggestedKey is the primary key the advice proposes (a time bucket of
	// a width added to the partition key), written as `partmon advise --key`
	// reads it, so the projection can be measured on the table's own rows
	// before a migration; "" when the advice proposes none of a width.
	SuggestedKey string `json:"suggested_key,omitempty"`
	Source       string `json:"source"` // the collector source(s) the numbers came from
	// Nodes are the nodes that measured the problem, each with its own
	// value: one problem seen by three replicas is one finding with three
	// nodes. Node, DC and Rack above are set when exactly one node did.
	// Empty for findings no node measures (schema, cluster-wide figures).
	Nodes []NodeValue `json:"nodes,omitempty"`
	// Figures are the measurements behind Value, so readers can check them
	// against each other; nil when the finding has none beyond Value.
	Figures *Figures `json:"figures,omitempty"`
	// IDNamesNode and IDNamesDC say whether the ID names Node and DC (a
	// node's own problem names both, one judged within a placement group its
	// DC; the analyzer's fold.go), set when the analyzer folds the finding: partmons that
	// each see part of one problem (sidecars, DC shards) agree on it through
	// the places the ID names and no others.
	IDNamesNode bool `json:"-"`
	IDNamesDC   bool `json:"-"`
	// Remark: the schema alone says it (Report.Remarks), not a measurement.
	Remark bool `json:"-"`
}

// NodeValue is one node's measurement of a finding's problem, in the
// finding's unit, with the severity it has on its own.
type NodeValue struct {
	Node      string   `json:"node"`
	DC        string   `json:"dc,omitempty"`
	Rack      string   `json:"rack,omitempty"`
	Value     float64  `json:"value"`
	Threshold float64  `json:"threshold"`
	Severity  Severity `json:"severity"`
}

// Figures are a finding's supporting measurements in base units; a zero
// field is not known (or not part of this finding).
type Figures struct {
	// PartitionBytes bounds the partition the finding is about from above
	// (a histogram bucket bound, or what a key list measured).
	PartitionBytes     float64 `json:"partition_bytes,omitempty"`
	MeanPartitionBytes float64 `json:"mean_partition_bytes,omitempty"`
	// Rows is a lower bound of the rows of one partition.
	Rows float64 `json:"rows,omitempty"`
	// Partitions is an upper estimate of the table's partitions, one replica.
	Partitions float64 `json:"partitions,omitempty"`
	// DataBytes is one replica of the table on disk (compressed).
	DataBytes float64 `json:"data_bytes,omitempty"`
	// Share is a fraction of operations (0..1), FairShare what placement gives.
	Share     float64 `json:"share,omitempty"`
	FairShare float64 `json:"fair_share,omitempty"`
	// CurrentBytes and GrowthBytesPerSecond are a forecast's fit.
	CurrentBytes         float64 `json:"current_bytes,omitempty"`
	GrowthBytesPerSecond float64 `json:"growth_bytes_per_second,omitempty"`
}

// PerNode is the finding as each of its nodes measured it: one copy per
// node, with that node's place, value, threshold and severity (and the
// finding itself when no node measured it). A sidecar speaks for its own
// node and Prometheus keeps one series per node: exporters use this.
func (f Finding) PerNode() []Finding {
	if len(f.Nodes) == 0 {
		return []Finding{f}
	}
	out := make([]Finding, len(f.Nodes))
	for i, n := range f.Nodes {
		c := f
		c.Node, c.DC, c.Rack = n.Node, n.DC, n.Rack
		c.Value, c.Threshold, c.Severity = n.Value, n.Threshold, n.Severity
		c.Nodes = f.Nodes[i : i+1 : i+1]
		out[i] = c
	}
	return out
}
