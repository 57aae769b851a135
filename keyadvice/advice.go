package keyadvice

import (
	"fmt"
	"time"

	"github.com/partmon/partmon/internal/format"

	"github.com/partmon/partmon/model"
)

// Advice is the key advisor's answer for one table: how it sampled, and a
// projection for its current key, then each candidate in the order given.
type Advice struct {
	Keyspace string `json:"keyspace"`
	Table    string `json:"table"`
	Sample   Sample `json:"sample"`
	// Keys: the current key first.
	Keys []Projection `json:"keys"`
}

// Sample is what the advice was measured on and what it cost the node.
type Sample struct {
	Node string `json:"node"`
	// Routing: empty when each range was read on a replica holding it,
	// else why the first host alone was; RequestsByNode the requests each
	// node served.
	Routing        string             `json:"routing,omitempty"`
	RequestsByNode map[string]int     `json:"requests_by_node,omitempty"`
	Taken          time.Time          `json:"taken"`
	Partitions     int                `json:"partitions"`
	Rows           int                `json:"rows"`
	Ranges         int                `json:"ranges"`
	Requests       int                `json:"requests"`
	RowsRead       int64              `json:"rows_read"`
	RingShare      float64            `json:"ring_share"`
	ElapsedSeconds float64            `json:"elapsed_seconds"`
	Stopped        string             `json:"stopped,omitempty"`
	Limits         model.SampleLimits `json:"limits"`
	// NodeMaxPartitionBytes: Cassandra's largest partition of the table on
	// the node read (max_partition_size, rounded up to a MiB); 0 unknown.
	NodeMaxPartitionBytes int64 `json:"node_max_partition_bytes,omitempty"`
}

// Advise projects the current key and each of keys (already Checked) on s.
func Advise(s *model.KeySample, keys []Key, o Options) *Advice {
	a := &Advice{Keyspace: s.Keyspace, Table: s.Table, Sample: Sample{
		Node: s.Node, Routing: s.Routing, RequestsByNode: s.Cost.RequestsByNode, Taken: s.Taken, Partitions: len(s.Partitions), Ranges: len(s.Ranges), Requests: s.Cost.Requests,
		RowsRead: s.Cost.RowsRead, RingShare: s.Cost.RingShare, ElapsedSeconds: s.Cost.Elapsed.Seconds(), Stopped: s.Stopped, Limits: s.Limits,
		NodeMaxPartitionBytes: s.NodeMaxPartitionBytes,
	}}
	for _, p := range s.Partitions {
		a.Sample.Rows += len(p.Rows)
	}
	cur := CurrentKey(s.Columns)
	current := Project(s, cur, o)
	if b := s.NodeMaxPartitionBytes; b > o.Thresholds.PartitionWarningBytes {
		current.Warnings = append(current.Warnings, fmt.Sprintf("Cassandra's largest partition on %s is up to %s, over the %s warning: a partition the sample did not meet",
			s.Node, format.Bytes(float64(b)), format.Bytes(float64(o.Thresholds.PartitionWarningBytes))))
	}
	a.Keys = append(a.Keys, current)
	for _, k := range keys {
		if k.String() != cur.String() {
			a.Keys = append(a.Keys, Project(s, k, o))
		}
	}
	return a
}
