package collector

import (
	"context"
	"errors"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
)

// Scope says where a source is read from.
type Scope int

const (
	// ClusterScope sources describe the whole cluster (topology, schema):
	// they are read once per run from any reachable node.
	ClusterScope Scope = iota
	// NodeScope sources describe the node that answers (system.* local
	// tables, system_views, REST, nodetool): they are read from every
	// targeted node, from that node.
	NodeScope
)

func (s Scope) String() string {
	if s == ClusterScope {
		return "cluster"
	}
	return "node"
}

// ErrUnsupported marks a source the engine or version lacks. Wrap it with
// the reason (fmt.Errorf("%w: needs Cassandra 4.1+", ErrUnsupported)); the
// status then says "unsupported" instead of "error".
var ErrUnsupported = errors.New("unsupported")

// Source is one kind of data partmon reads: usually one system table.
type Source interface {
	Name() string
	Scope() Scope
	// Facts declares the source's help, version gate, default schedule,
	// grants and default state (facts.go).
	Facts() Facts
	// Collect runs only where Facts().Gate lets it (gatedCollect). It reads the source through in and writes what it found into out:
	// out.Cluster for ClusterScope, out.Node for NodeScope. It returns the
	// number of rows it used. On error, out is discarded.
	Collect(ctx context.Context, in Input, out *Output) (rows int, err error)
}

// Input is what a source may read from.
type Input struct {
	// Q queries the node being read (NodeScope) or the node chosen for a
	// cluster read (ClusterScope). Nil for sources that do not use CQL.
	Q cql.Querier
	// Caps are what that node's schema offers; never nil when Q is set.
	Caps *Capabilities
	// Address is the node's address (no port).
	Address string
	// Own is true for the first configured host: the sidecar's own node.
	Own bool
	// Schema is the latest schema read, nil before the schema source ran.
	Schema *model.Schema
	// Ring is the topology's nodes for ClusterScope sources when it was read
	// moments ago (within ringFreshFor, e.g. earlier in the same CollectAll),
	// else nil. The schema source compares their schema versions.
	Ring []model.Node
	// Holding is, for a source that reads only tables holding data
	// (nodetool tablestats), the node's tables its latest CQL figures show
	// holding any (Collector.holding); nil when those figures are missing
	// or stale, and for every other source.
	Holding map[string]bool
}

// Output receives a source's data. Only the fields a source owns are set;
// the collector merges the latest good Output of every source into a Snapshot.
type Output struct {
	Cluster *model.Snapshot
	Node    *model.NodeData
}

func newOutput(address string) *Output {
	return &Output{
		Cluster: &model.Snapshot{},
		Node:    &model.NodeData{Address: address, Tables: map[string]*model.TableStats{}},
	}
}
