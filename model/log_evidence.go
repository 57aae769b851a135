package model

import "time"

// LogEvidenceKind is what Cassandra's own log said about a partition.
type LogEvidenceKind string

const (
	// LogTombstoneWarning: reads of the key scanned more tombstones than
	// tombstone_warn_threshold. Value: the most tombstone cells one read scanned.
	LogTombstoneWarning LogEvidenceKind = "tombstone_warning"
	// LogTombstoneAbort: a read of the key was aborted at
	// tombstone_failure_threshold. Value: tombstones scanned when it stopped.
	LogTombstoneAbort LogEvidenceKind = "tombstone_abort"
	// LogPartitionSize: an sstable write (flush or compaction) wrote the key
	// over the size guardrail or compaction warning. Value: bytes.
	LogPartitionSize LogEvidenceKind = "partition_size"
	// LogPartitionTombstones: an sstable write wrote the key with more
	// tombstones than the guardrail or compaction warning. Value: tombstones.
	LogPartitionTombstones LogEvidenceKind = "partition_tombstones"
	// LogSlowRead: reads of the key took longer than slow_query_log_timeout
	// (or timed out). Value: how many slow reads were reported.
	LogSlowRead LogEvidenceKind = "slow_read"
	// LogWriteGuardrail: a guardrail that measures a value a statement
	// writes (collection_size, items_per_collection, column_value_size, the
	// SAI term sizes) warned or, Failure, failed, for Column. From the
	// request path the line names no table and no key (Keyspace, Table and
	// Key empty) and a failure is a refused write; from an sstable write
	// (Stored) it names the table, and the key when the row is one value.
	// Value: the largest figure; Series: the figures over time.
	LogWriteGuardrail LogEvidenceKind = "write_guardrail"
)

// MaxGuardrailSeries bounds a write guardrail's Series: past it, adjacent
// points merge in pairs (the larger figure, the later time), so the series
// keeps its whole span at half the resolution.
const MaxGuardrailSeries = 64

// GuardrailPoint is one logged figure: when (unix seconds) and the value.
type GuardrailPoint struct {
	At    int64 `json:"at"`
	Value int64 `json:"value"`
}

// LogEvidence is one partition a node's log named, folded over every time it
// named it for the same reason: the figure is the largest reported, Count
// how many messages said so, First and Last when.
type LogEvidence struct {
	Kind     LogEvidenceKind `json:"kind"`
	Keyspace string          `json:"keyspace"`
	Table    string          `json:"table"`
	// Key is the partition key in Cassandra's text form (as
	// system.top_partitions prints it); empty when the message named only a
	// token (a range read) and Token says which.
	Key   string `json:"key,omitempty"`
	Token string `json:"token,omitempty"`
	Value int64  `json:"value"`
	// Threshold is the limit the node reported it against, when the message
	// says (guardrails, slow_query_log_timeout); 0 when it does not.
	Threshold int64 `json:"threshold,omitempty"`
	// Failure: over a failure level (an aborted or timed-out read, a
	// guardrail's fail threshold), not only a warning.
	Failure bool `json:"failure,omitempty"`
	// LiveRows (tombstone warnings): live rows the read that scanned Value
	// tombstones returned. MaxMillis (slow reads): the longest read.
	LiveRows  int64 `json:"live_rows,omitempty"`
	MaxMillis int64 `json:"max_millis,omitempty"`
	Count     int64 `json:"count"`
	// TimedOut (slow reads): how many of Count timed out.
	TimedOut int64     `json:"timed_out,omitempty"`
	First    time.Time `json:"first"`
	Last     time.Time `json:"last"`
	// Where is what was read: "system_views.system_logs" or the log file's path.
	Where string `json:"where"`
	// Statement is one query Cassandra printed for it (reads), cut to a few
	// hundred characters.
	Statement string `json:"statement,omitempty"`
	// Guardrail, Column, Stored, Series: write guardrails only.
	Guardrail string           `json:"guardrail,omitempty"`
	Column    string           `json:"column,omitempty"`
	Stored    bool             `json:"stored,omitempty"`
	Series    []GuardrailPoint `json:"series,omitempty"`
}
