// Package index is a snapshot indexed once a cycle: every node's local
// data in host-ID order, and every table some node reports (system
// keyspaces left out) with its figures on each of those nodes. The history
// records from it and the analyzer's rules and page figures read it; none
// of them walks the snapshot's maps again.
package index

import (
	"math"

	"github.com/partmon/partmon/analyzer/internal/set"
	"github.com/partmon/partmon/analyzer/scope"
	"github.com/partmon/partmon/model"
)

// Index is one snapshot indexed. It is built by Of and only read after.
type Index struct {
	Snapshot *model.Snapshot
	Scope    scope.Scope
	// ByHost is the ring's nodes by host ID.
	ByHost map[string]*model.Node
	// Nodes is every node's local data, by host ID.
	Nodes []NodeData
	// Tables is every non-system table some node reports, in the order
	// the nodes (by host ID) and their tables (by key) first name them.
	Tables []*Table

	own ownership // see Ownership
}

// NodeData is one node's local data.
type NodeData struct {
	HostID string
	// Node is the ring's node, else one named by the data's own address
	// (a node the ring no longer names), without DC or rack.
	Node *model.Node
	Data *model.NodeData
}

// Table is one table's figures on every node that reported it.
type Table struct {
	Keyspace, Name, Key string
	// Nodes are in host-ID order.
	Nodes []Row
	// MaxBytes is the largest max_partition_size any node reports (0: none).
	MaxBytes int64
}

// Row is one table on one node: the figures as the node gave them and
// a copy made fit to compute with (Sane).
type Row struct {
	Node  *model.Node
	Raw   *model.TableStats
	Stats model.TableStats
}

// Of indexes s within its scope (scope.Of(s)).
func Of(s *model.Snapshot, sc scope.Scope) *Index {
	ix := &Index{Snapshot: s, Scope: sc, ByHost: make(map[string]*model.Node, len(s.Nodes))}
	for i := range s.Nodes {
		n := &s.Nodes[i]
		ix.ByHost[n.HostID] = n
	}
	byKey := map[string]*Table{}
	for _, hostID := range set.Keys(s.PerNode) {
		nd := s.PerNode[hostID]
		if nd == nil {
			continue
		}
		node := ix.ByHost[hostID]
		if node == nil {
			node = &model.Node{HostID: hostID, Address: nd.Address}
		}
		ix.Nodes = append(ix.Nodes, NodeData{HostID: hostID, Node: node, Data: nd})
		for _, key := range set.Keys(nd.Tables) {
			ts := nd.Tables[key]
			if ts == nil || sc.System[ts.Keyspace] {
				continue
			}
			tk := model.TableKey(ts.Keyspace, ts.Table)
			t := byKey[tk]
			if t == nil {
				t = &Table{Keyspace: ts.Keyspace, Name: ts.Table, Key: tk, Nodes: make([]Row, 0, len(s.PerNode))}
				byKey[tk] = t
				ix.Tables = append(ix.Tables, t)
			}
			row := Row{Node: node, Raw: ts, Stats: Sane(ts)}
			t.MaxBytes = max(t.MaxBytes, row.Stats.MaxPartitionBytes)
			t.Nodes = append(t.Nodes, row)
		}
	}
	return ix
}

// Sane is a copy of one node's table figures that the rules can compute
// with: a figure no source can mean (NaN, ±Inf, a negative size or count)
// is read as the source giving nothing (0; a rate, -1: unknown), so that no
// finding carries it and no sum or ratio turns into it.
func Sane(ts *model.TableStats) model.TableStats {
	c := *ts
	for _, p := range []*int64{&c.MaxPartitionBytes, &c.MeanPartitionBytes, &c.PartitionsEstimate, &c.DiskUsageBytes,
		&c.MaxSSTableBytes, &c.MaxCellsPerPartition, &c.MaxFragmentBytes} {
		*p = max(*p, 0)
	}
	if c.DistinctPartitions != nil && *c.DistinctPartitions < 0 {
		c.DistinctPartitions = nil
	}
	for _, o := range []*model.Ops{&c.LocalReads, &c.LocalWrites, &c.LocalScans} {
		o.Count = max(o.Count, 0)
		if !Finite(o.Rate) || (o.Rate < 0 && o.Rate != -1) {
			o.Rate = -1
		}
		o.PerSecond, o.P99Seconds = saneFloat(o.PerSecond), saneFloat(o.P99Seconds)
	}
	for _, d := range []*model.Distribution{&c.TombstonesPerRead, &c.RowsPerRead} {
		d.Count = max(d.Count, 0)
		d.P50, d.P99, d.Max = saneFloat(d.P50), saneFloat(d.P99), saneFloat(d.Max)
	}
	return c
}

// Finite: neither NaN nor ±Inf.
func Finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// saneFloat: a non-negative finite figure, else 0 (nothing given).
func saneFloat(v float64) float64 {
	if !Finite(v) || v < 0 {
		return 0
	}
	return v
}
