package model

import "time"

// KeySample is a bounded sample of one table's rows for the key advisor:
// whole current partitions read from random token ranges. Under Murmur3 a
// partition's token is a hash of its key, independent of its contents, so
// the partitions after random tokens are a uniform sample of the table's
// partitions, and each range's span of the ring measures their density.
type KeySample struct {
	Keyspace string
	Table    string
	Node     string // the first host: the ring, the schema and max_partition_size read there
	// Routing is empty when each range was read on a replica holding it
	// (Cost.RequestsByNode), else says why the first host alone was read.
	Routing string
	// Nodes are the nodes of the DC the ranges were read in, from the
	// ring (0: unknown, as when the ring could not be placed).
	Nodes int
	// Columns are the table's columns in the order of SampledRow.Values:
	// partition key, clustering, then regular columns.
	Columns []SampleColumn
	// Ranges are the token ranges read, in the order read.
	Ranges     []SampledRange
	Partitions []SampledPartition
	// Limits are the bounds the sample was taken under; Cost what it took.
	Limits SampleLimits
	Cost   SampleCost
	// Stopped says why the sampler stopped before its partition target
	// (a limit reached, the node's latency rising); empty when it reached it.
	Stopped string
	Taken   time.Time
	// NodeMaxPartitionBytes is the table's largest partition on the node
	// read, as system_views.max_partition_size rounds it up to a MiB (0:
	// unknown). A whale the sample missed shows here.
	NodeMaxPartitionBytes int64
}

// Column kinds as system_schema.columns names them.
const (
	ColumnPartitionKey = "partition_key"
	ColumnClustering   = "clustering"
	ColumnRegular      = "regular"
	ColumnStatic       = "static"
)

// SampleColumn is one column of the sampled table.
type SampleColumn struct {
	Name     string
	Type     string // CQL type as system_schema.columns writes it
	Kind     string // partition_key, clustering, regular, static
	Position int    // in the partition key or clustering; -1 otherwise
	// Time: a timestamp or date column (its values are times, RFC 3339 or
	// a date).
	Time bool
	// Desc: a clustering column in descending clustering order.
	Desc bool
}

// SampledRange is one token range read: (Start, End), where End is the
// token of the first partition not taken, or, when Cut, the ring's last
// token or the start of a range read before.
type SampledRange struct {
	Start, End int64
	Partitions int // whole partitions taken from it
	Cut        bool
}

// SampledPartition is one current partition read whole (unless Truncated).
type SampledPartition struct {
	Token int64
	Rows  []SampledRow
	// Truncated: the partition had more rows than the sampler would read;
	// Rows holds its first ones, and its size is a lower bound.
	Truncated bool
}

// SampledRow is one row: its column values in Columns' order, each as
// text (nil for NULL; timestamps as RFC 3339 with nanoseconds, dates as
// 2006-01-02), its
// size in bytes as values' encoded lengths, and the newest WRITETIME of
// its regular cells (0 when it has none).
type SampledRow struct {
	Values    []*string
	Bytes     int64
	WriteTime time.Time
}

// SampleLimits bound what the sampler may read.
type SampleLimits struct {
	// RowsPerSecond paces the reads; MaxRows bounds the rows read in all.
	RowsPerSecond float64
	MaxRows       int64
	// MaxRingShare bounds the share of the token ring read, 0..1.
	MaxRingShare float64
	// Partitions is the target number of whole partitions.
	Partitions int
	// PerRange is how many partitions one random range takes at most.
	PerRange int
	// PageRows is the rows of one request.
	PageRows int
	// LatencyFactor: the sampler stops when its requests' recent median
	// latency exceeds this many times the first requests' median and
	// LatencyFloor.
	LatencyFactor float64
	LatencyFloor  time.Duration
}

// SampleCost is what the sample cost the node.
type SampleCost struct {
	Requests  int
	RowsRead  int64
	Elapsed   time.Duration
	RingShare float64 // of the ring read, 0..1
	// RequestsByNode are the requests sent to each node (the ranges'
	// replicas).
	RequestsByNode map[string]int
	// BaselineLatency and LastLatency are medians of the first and last
	// requests' latencies.
	BaselineLatency, LastLatency time.Duration
}
