// Package model is partmon's data model: the snapshot a collection cycle
// builds and the analyzer and exporter read. It imports only the standard
// library, so nothing that reads a snapshot depends on a driver.
package model

import "time"

// Engine is the database product a cluster runs.
type Engine string

const (
	EngineUnknown   Engine = ""
	EngineCassandra Engine = "cassandra"
	EngineScyllaDB  Engine = "scylladb"
)

// Snapshot is what the cluster knew about itself at one moment. It is built by
// one collection cycle and never changed afterwards: the analyzer and the
// exporter only read it.
type Snapshot struct {
	Taken       time.Time `json:"taken"`
	Cluster     string    `json:"cluster"`
	Engine      Engine    `json:"engine"`
	Version     string    `json:"version"` // release_version of the first node that answered (ScyllaDB: system.versions)
	Partitioner string    `json:"partitioner"`

	// Nodes is the ring: every node system.local and system.peers* name,
	// whether or not partmon could reach it.
	Nodes  []Node `json:"nodes"`
	Schema Schema `json:"schema"`

	// PerNode holds the node-local sources, keyed by host ID. A node that could
	// not be read keeps the data of its last good read; Sources says how old.
	PerNode map[string]*NodeData `json:"per_node"`

	// Sources is the status of every (source, node) pair of this cycle.
	Sources []SourceStatus `json:"sources"`
}

// Node is one member of the ring as system.local / system.peers describe it.
type Node struct {
	HostID         string  `json:"host_id"`
	Address        string  `json:"address"` // the CQL (native/rpc) address, used as the node label
	DC             string  `json:"dc"`
	Rack           string  `json:"rack"`
	Tokens         []int64 `json:"tokens"` // Murmur3 tokens, sorted ascending
	ReleaseVersion string  `json:"release_version"`
	SchemaVersion  string  `json:"schema_version"`
	// Targeted is true for the nodes this partmon reads node-local sources
	// from and speaks for (its own node in sidecar mode, all in cluster mode).
	Targeted bool `json:"targeted"`
}

// Schema is the part of system_schema partmon needs.
type Schema struct {
	Keyspaces []Keyspace `json:"keyspaces"`
}

// Keyspace is one row of system_schema.keyspaces with its tables.
type Keyspace struct {
	Name        string            `json:"name"`
	Replication map[string]string `json:"replication"` // raw map: class, replication_factor or per-DC factors ("3", "3/1")
	Tables      []Table           `json:"tables"`
	// System is true for keyspaces Cassandra or ScyllaDB own (system*, dse*, ...).
	System bool `json:"system"`
}

// Table is one table of system_schema.tables, or one materialized view of
// system_schema.views (BaseTable set), with its columns and indexes. A view
// is stored, sized and read like a table: every rule judges its own
// partition key, and a finding on it names the base it is built from.
type Table struct {
	Keyspace string `json:"keyspace"`
	Name     string `json:"name"`
	// BaseTable is the table a materialized view is built from (same
	// keyspace); empty for a table.
	BaseTable         string            `json:"base_table,omitempty"`
	Columns           []Column          `json:"columns"` // partition key columns by position, then clustering by position, then the rest by name
	Indexes           []Index           `json:"indexes,omitempty"`
	DefaultTTLSeconds int               `json:"default_ttl_seconds"`
	GCGraceSeconds    int               `json:"gc_grace_seconds"`
	Compaction        map[string]string `json:"compaction,omitempty"`
}

// IsView says whether t is a materialized view.
func (t *Table) IsView() bool { return t.BaseTable != "" }

// Column is one row of system_schema.columns.
type Column struct {
	Name            string `json:"name"`
	Kind            string `json:"kind"` // partition_key, clustering, regular, static
	Position        int    `json:"position"`
	Type            string `json:"type"`             // CQL type, ReversedType unwrapped
	ClusteringOrder string `json:"clustering_order"` // asc, desc, none
}

// Index is one row of system_schema.indexes.
type Index struct {
	Name    string            `json:"name"`
	Kind    string            `json:"kind"` // COMPOSITES, KEYS, CUSTOM (options' class_name then says which: SAI, SASI, ...)
	Options map[string]string `json:"options,omitempty"`
}

// NodeData is everything read from one node about itself.
type NodeData struct {
	HostID  string `json:"host_id"`
	Address string `json:"address"`

	// Tables holds per-table figures keyed by TableKey(keyspace, table).
	Tables map[string]*TableStats `json:"tables"`

	// TopPartitions are Cassandra's system.top_partitions entries (4.1+).
	TopPartitions []TopPartition `json:"top_partitions,omitempty"`
	// LargePartitions, LargeRows and LargeCells are ScyllaDB's tables of the same names.
	LargePartitions []LargePartition `json:"large_partitions,omitempty"`
	LargeRows       []LargeRow       `json:"large_rows,omitempty"`
	LargeCells      []LargeCell      `json:"large_cells,omitempty"`
	// HotPartitions are keys a sampler (nodetool profileload, ScyllaDB REST
	// toppartitions) saw most often during its sampling window.
	HotPartitions []HotPartition `json:"hot_partitions,omitempty"`
	// LogEvidence are the partitions the node's own log named (the logs source).
	LogEvidence []LogEvidence `json:"log_evidence,omitempty"`

	ThreadPools []ThreadPool `json:"thread_pools,omitempty"`
	// LoadBytes is the node's live data size (gossip load or the sum of disk usage); 0 when unknown.
	LoadBytes float64 `json:"load_bytes"`
	// GossipLoad is every node's load as this node's gossip sees it, keyed by address (Cassandra 4.1+).
	GossipLoad map[string]float64 `json:"gossip_load,omitempty"`
	// Settings are the server settings that bear on partition health (thresholds, top_partitions_*).
	Settings map[string]string `json:"settings,omitempty"`
	// DataDisk is the node's data directories as the disk-usage guardrail
	// measures them (the data_disk source, sidecar mode); nil when not read.
	DataDisk *DataDisk `json:"data_disk,omitempty"`
	// DiskUsageStates is every node's gossiped disk-usage state (5.0
	// gossip_info.disk_usage: SPACIOUS, STUFFED, FULL, NOT_AVAILABLE) as
	// this node's gossip knows it, keyed by address.
	DiskUsageStates map[string]string `json:"disk_usage_states,omitempty"`
}

// TableKey is the map key for a table: "keyspace.table".
func TableKey(keyspace, table string) string { return keyspace + "." + table }

// TableStats are one node's figures for one table. Sizes are bytes, counts
// are since the node started. A zero means the source gave nothing.
type TableStats struct {
	Keyspace string `json:"keyspace"`
	Table    string `json:"table"`

	MaxPartitionBytes  int64 `json:"max_partition_bytes"`  // system_views.max_partition_size (MiB ceiling) or REST max_row_size
	MeanPartitionBytes int64 `json:"mean_partition_bytes"` // partition-count-weighted mean of size estimates
	PartitionsEstimate int64 `json:"partitions_estimate"`  // Σ partitions_count over this node's primary ranges
	DiskUsageBytes     int64 `json:"disk_usage_bytes"`
	MaxSSTableBytes    int64 `json:"max_sstable_bytes"`
	// MaxCellsPerPartition is nodetool tablehistograms' Cell Count Max (JMX
	// only): the upper bound of the histogram bucket holding the most cells
	// one sstable wrote for one partition; 0 when not read.
	MaxCellsPerPartition int64 `json:"max_cells_per_partition,omitempty"`
	// MaxFragmentBytes is the same command's Partition Size Max: the upper
	// bound, in bytes, of the bucket holding the largest partition fragment
	// one sstable wrote (the figure MaxPartitionBytes rounds up to whole
	// MiB); 0 when not read.
	MaxFragmentBytes int64 `json:"max_fragment_bytes,omitempty"`
	// DistinctPartitions is nodetool tablestats' "Number of partitions
	// (estimate)" (JMX only): the node's sstables' HyperLogLog++ key
	// estimators merged (a key counts once however many sstables hold it)
	// plus the memtables' partitions; nil when not read, 0 when nodetool
	// counted none on the node.
	DistinctPartitions *int64 `json:"distinct_partitions,omitempty"`

	LocalReads  Ops `json:"local_reads"`
	LocalWrites Ops `json:"local_writes"`
	LocalScans  Ops `json:"local_scans"`

	TombstonesPerRead Distribution `json:"tombstones_per_read"`
	RowsPerRead       Distribution `json:"rows_per_read"`
}

// Ops is a latency table row: an operation counter and its rates.
type Ops struct {
	Count int64 `json:"count"` // cumulative since the node started
	// Rate is operations per second between this snapshot and the previous
	// one; -1 when unknown (first cycle, or the counter went backwards: a restart).
	Rate float64 `json:"rate"`
	// PerSecond is Cassandra's own five-minute moving rate.
	PerSecond  float64 `json:"per_second"`
	P99Seconds float64 `json:"p99_seconds"`
}

// MovingRate is operations per second as Cassandra's own five-minute moving
// rate gives it (system_views' per_second), else, where the source has
// none, the rate partmon measured between two cycles; 0 when unknown.
func (o Ops) MovingRate() float64 {
	if o.PerSecond > 0 {
		return o.PerSecond
	}
	return max(o.Rate, 0)
}

// Distribution is a per-read histogram summary (tombstones_per_read, rows_per_read).
type Distribution struct {
	Count int64   `json:"count"`
	P50   float64 `json:"p50"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
}

// TopPartition is one key in Cassandra's system.top_partitions.
type TopPartition struct {
	Keyspace   string    `json:"keyspace"`
	Table      string    `json:"table"`
	Type       string    `json:"type"` // SIZES (value in bytes) or TOMBSTONES (value is a count)
	Key        string    `json:"key"`
	Value      int64     `json:"value"`
	LastUpdate time.Time `json:"last_update"`
}

// LargePartition is one row of ScyllaDB's system.large_partitions.
type LargePartition struct {
	Keyspace        string    `json:"keyspace"`
	Table           string    `json:"table"`
	SSTable         string    `json:"sstable"`
	SizeBytes       int64     `json:"size_bytes"`
	Key             string    `json:"key"`
	Rows            int64     `json:"rows"`
	DeadRows        int64     `json:"dead_rows"`        // 6.0+
	RangeTombstones int64     `json:"range_tombstones"` // 6.0+
	CompactionTime  time.Time `json:"compaction_time"`
}

// LargeRow is one row of ScyllaDB's system.large_rows.
type LargeRow struct {
	Keyspace      string `json:"keyspace"`
	Table         string `json:"table"`
	SSTable       string `json:"sstable"`
	SizeBytes     int64  `json:"size_bytes"`
	Key           string `json:"key"`
	ClusteringKey string `json:"clustering_key"`
}

// LargeCell is one row of ScyllaDB's system.large_cells.
type LargeCell struct {
	Keyspace           string `json:"keyspace"`
	Table              string `json:"table"`
	SSTable            string `json:"sstable"`
	SizeBytes          int64  `json:"size_bytes"`
	Key                string `json:"key"`
	ClusteringKey      string `json:"clustering_key"`
	Column             string `json:"column"`
	CollectionElements int64  `json:"collection_elements"`
}

// HotPartition is a key a sampler counted during its window.
type HotPartition struct {
	Keyspace string  `json:"keyspace"`
	Table    string  `json:"table"`
	Key      string  `json:"key"`
	Op       string  `json:"op"` // read or write
	Count    int64   `json:"count"`
	Error    int64   `json:"error"` // overcount bound of the space-saving sampler
	Total    int64   `json:"total"` // operations the sampler saw on this table in the window (0 if unknown)
	Window   float64 `json:"window_seconds"`
	Source   string  `json:"source"` // nodetool or rest
	// Pass is the sampler window the entry comes from when a collection
	// sampled twice (the one-shot report: 0 then 1); 0 otherwise.
	Pass int `json:"pass,omitempty"`
}

// ThreadPool is one row of system_views.thread_pools.
type ThreadPool struct {
	Name           string `json:"name"`
	Active         int64  `json:"active"`
	Pending        int64  `json:"pending"`
	Blocked        int64  `json:"blocked"`
	BlockedAllTime int64  `json:"blocked_all_time"`
	Completed      int64  `json:"completed"`
}

// SourceState says how reading a source went.
type SourceState string

const (
	StateOK          SourceState = "ok"
	StateError       SourceState = "error"
	StateUnsupported SourceState = "unsupported" // the engine or version lacks it; Error says why
	StateDisabled    SourceState = "disabled"
	// StateBusy: a key sampler the node could not run for partmon this
	// time (another client's sampling, a JMX call that did not answer).
	// It says nothing of the node's data, which other sources read.
	StateBusy SourceState = "busy"
)

// SourceStatus is the outcome of one source on one node in one cycle.
type SourceStatus struct {
	Source string      `json:"source"`
	Node   string      `json:"node"` // address; "" for a source read once for the cluster
	State  SourceState `json:"state"`
	Error  string      `json:"error,omitempty"`
	// Taken is when this source was last attempted, LastSuccess when it last succeeded
	// (zero if never). Data older than LastSuccess is what the snapshot carries.
	Taken       time.Time `json:"taken"`
	LastSuccess time.Time `json:"last_success"`
	// FirstAttempt is when this partmon first ran the source on the node: how
	// long a source that never succeeded has been without data.
	FirstAttempt time.Time     `json:"first_attempt,omitzero"`
	Duration     time.Duration `json:"duration_ns"`
	Rows         int           `json:"rows"`
}

// Stats returns d's stats for one table, adding an empty entry on first use.
func (d *NodeData) Stats(keyspace, table string) *TableStats {
	k := TableKey(keyspace, table)
	ts, ok := d.Tables[k]
	if !ok {
		ts = &TableStats{Keyspace: keyspace, Table: table}
		d.Tables[k] = ts
	}
	return ts
}
