// Package analyzer turns a model.Snapshot (and a bounded history of
// earlier ones) into findings and figures. It does no I/O and knows nothing
// of Prometheus: every function here is pure and unit-tested.
package analyzer

import (
	"time"

	"github.com/partmon/partmon/analyzer/figures"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/model"
)

// Report is the analyzer's output for one snapshot.
type Report struct {
	Generated time.Time `json:"generated"`
	Taken     time.Time `json:"taken"` // the snapshot's time
	// CycleDuration is how long the cycle that made the report took (the
	// daemon sets it; zero when unknown).
	CycleDuration time.Duration `json:"-"`
	Cluster       string        `json:"cluster"`
	Engine        model.Engine  `json:"engine"`
	Version       string        `json:"version"`

	Nodes     []NodeSummary  `json:"nodes"`
	Ownership []Ownership    `json:"ownership"`
	Tables    []TableSummary `json:"tables"`
	// TableNodes are the per-node figures of each table, the source of most metrics.
	TableNodes []TableNode `json:"table_nodes"`
	// TopPartitions is the cluster-wide list of known large, tombstone-heavy
	// or hot keys, deduplicated across replicas and sstables.
	TopPartitions []PartitionEntry  `json:"top_partitions"`
	Findings      []finding.Finding `json:"findings"`
	// Problems are the findings as a reader meets them: the kinds one
	// table partition shows gathered into one entry (groupProblems). The
	// report, the API, the status page and the pushed alerts list these;
	// the metrics keep one series per finding.
	Problems []Problem `json:"problems"`
	// Remarks are design notes from the schema alone (severity info): shown
	// apart from findings, never counted as problems, never alerted.
	Remarks []finding.Finding `json:"remarks,omitempty"`
	// Thresholds are the limits this report was judged by (published as
	// partmon_threshold_* series for the alerting rules).
	Thresholds Thresholds `json:"-"`
	// Sources passes the collector's per-source status through, for self-metrics.
	Sources []model.SourceStatus `json:"sources"`
	// Notes say what the analysis had to skip and why (e.g. a keyspace whose
	// replication it could not parse: no ownership figures for it).
	Notes []string `json:"notes,omitempty"`
	// RuleFailures are the rules (and other steps of the analysis) that
	// failed on this snapshot: a partmon bug, never a finding. The rest of
	// the report stands; a note says the same in words.
	RuleFailures []RuleFailure `json:"rule_failures,omitempty"`
	// SizeHistory is every table's largest partition over time with its
	// growth fit, for tables with two points or more.
	SizeHistory []SizeHistory `json:"size_history,omitempty"`
	// Placements are the replica sets of each distinct replication (the
	// status page's rings); none on rings of more than 4,096 tokens.
	Placements []Placement `json:"-"`
	// Heat is the ring heatmaps over time (the status page's); nil before
	// the history has a column. Left out of the JSON: it is large.
	Heat *HeatMaps `json:"-"`
	// Guardrails are the guardrail thresholds each node runs with, how
	// close each known key is to them and suggested values.
	Guardrails *GuardrailReport `json:"guardrails,omitempty"`
	// history.KeyHistory is each table's named keys over time (a copy of the
	// history's), by table key. Left out of the JSON: /api/v1/keys serves it.
	KeyHistory map[string][]history.NamedKeySeries `json:"-"`
}

// RuleFailure is one rule, or one step of the analysis, that panicked.
type RuleFailure struct {
	// Rule is the kind whose rule failed, or a step of the analysis
	// (StepIndex, StepSummaries, StepFold, StepHeatMap).
	Rule string `json:"rule"`
	// Tables are the tables ("keyspace.table") on which the rule fails when
	// run alone; empty when it fails whatever the tables.
	Tables []string `json:"tables,omitempty"`
	Error  string   `json:"error"`
}

// NodeSummary is one node of the ring with its load and token figures.
type NodeSummary = figures.NodeSummary

// Ownership is a node's effective ownership of one keyspace's data
// (figures.Ownership).
type Ownership = figures.Ownership

// Placement is where one replication puts its replicas (figures.Placement).
type Placement = figures.Placement

// TableSummary is one table's cluster-wide figures.
type TableSummary struct {
	Keyspace           string  `json:"keyspace"`
	Table              string  `json:"table"`
	MaxPartitionBytes  int64   `json:"max_partition_bytes"`
	MeanPartitionBytes int64   `json:"mean_partition_bytes"`
	PartitionsEstimate int64   `json:"partitions_estimate"`
	ReadRate           float64 `json:"read_rate"`  // local reads per second, all nodes
	WriteRate          float64 `json:"write_rate"` // local writes per second, all nodes
	// GrowthBytesPerSecond is the fitted growth of the largest partition; 0 when flat or unknown.
	GrowthBytesPerSecond float64 `json:"growth_bytes_per_second"`
	// SecondsToCritical is the forecast time until the largest partition crosses
	// the critical size; -1 when it does not grow or history is too short.
	SecondsToCritical float64 `json:"seconds_to_critical"`
}

// TableNode is one table's figures on one node.
type TableNode struct {
	Keyspace string `json:"keyspace"`
	Table    string `json:"table"`
	HostID   string `json:"host_id"`
	Node     string `json:"node"`
	DC       string `json:"dc"`
	Rack     string `json:"rack"`
	model.TableStats
	// ReadRate and WriteRate are the node's local operations per second on
	// the table over the analysis window (the skews' rates); -1 when unknown.
	ReadRate  float64 `json:"read_rate"`
	WriteRate float64 `json:"write_rate"`
	// ReadSkew and WriteSkew are this node's share of the table's local
	// operations over the analysis window ÷ its fair share by ownership; 0 when unknown.
	ReadSkew  float64 `json:"read_skew"`
	WriteSkew float64 `json:"write_skew"`
}

// PartitionEntry is one key known to be large, tombstone-heavy or hot.
type PartitionEntry struct {
	Keyspace   string `json:"keyspace"`
	Table      string `json:"table"`
	Key        string `json:"key"`
	SizeBytes  int64  `json:"size_bytes,omitempty"`
	Rows       int64  `json:"rows,omitempty"`
	Tombstones int64  `json:"tombstones,omitempty"`
	// OpsShare is the key's share of its table's sampled operations (0..1).
	OpsShare float64  `json:"ops_share,omitempty"`
	Nodes    []string `json:"nodes"` // addresses of the replicas that reported it
	Source   string   `json:"source"`
}
