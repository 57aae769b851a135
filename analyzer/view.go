package analyzer

import (
	"fmt"
	"sort"

	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/analyzer/index"
	"github.com/partmon/partmon/analyzer/scope"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/ring"
)

// analysis is a snapshot indexed for the rules: nodes by ID and address,
// keyspaces with their ownership, tables with their per-node figures. It is
// built once per Analyze; rules only read it.
type analysis struct {
	s   *model.Snapshot
	ix  *index.Index
	h   *history.History
	th  Thresholds
	now int64 // the snapshot's time, unix seconds

	byHost  map[string]*model.Node
	ringLen int // nodes with tokens

	// sc: the keyspaces never judged, the nodes whose data is stale.
	sc scope.Scope

	ring      *ring.TokenRing    // the nodes' ring, nil when it cannot be built
	raw       map[string]float64 // raw token ownership by host ID
	keyspaces []*keyspaceView    // non-system, by name
	ksByName  map[string]*keyspaceView
	tables    []*tableView // non-system, by keyspace then table
	// keys merges every key the node-local sources name, per table key.
	keys map[string][]*PartitionEntry
	// hot holds the sampled keys per table key, hottest first.
	hot map[string][]*hotKey

	// gr is the guardrails' thresholds and crossings (guardrailView).
	gr *GuardrailReport

	notes []string

	// nodesAt (perNode) and logIdx (logsOf) are built on first use.
	nodesAt []nodeDataAt
	logIdx  map[string][]logSeen
}

// keyspaceView is a keyspace with its parsed replication and ownership.
type keyspaceView struct {
	ks   *model.Keyspace
	repl ring.Replication
	// owns and skew are effective ownership and ownership ÷ fair share by
	// host ID; nil when the replication could not be used.
	owns map[string]float64
	skew map[string]float64
}

// tableView is one table with its figures on every node that reported it.
type tableView struct {
	keyspace, name, key string
	ks                  *keyspaceView // nil when the keyspace is not in the schema
	schema              *model.Table
	nodes               []*tableNode // by node address

	maxBytes   int64   // largest max_partition_size of any node
	meanBytes  float64 // partition-weighted mean over nodes
	partitions float64 // cluster estimate (see estimatePartitions)
	readRate   float64 // Σ known local read rates, ops/s
	writeRate  float64
	growth     growthFit
}

// tableNode is one table on one node.
type tableNode struct {
	node      *model.Node
	stats     *model.TableStats
	readRate  float64 // ops/s over the traffic window; -1 unknown
	writeRate float64
	readSkew  float64 // share ÷ fair share by ownership; 0 unknown
	writeSkew float64
	// Traffic shares within the node's placement group (DC), set with the skews.
	owns, groupOwns       float64 // effective ownership; Σ over the group
	readShare, writeShare float64
	groupRead, groupWrite float64 // the group's ops/s
	// The largest and widest keys this node's sources name for the table.
	largestKey      string
	largestKeyBytes int64
	largestSource   string
	largeKeys       int // keys at or above the partition warning size
	widestKey       string
	widestRows      int64
	widestBytes     int64 // the widest key's fragment size, same sstable
}

// newAnalysis indexes s and builds the rules' view of it; Analyze builds
// the index itself (it records the history from the same index) and calls
// indexedAnalysis.
func newAnalysis(s *model.Snapshot, sc scope.Scope, h *history.History, th Thresholds) *analysis {
	return indexedAnalysis(index.Of(s, sc), h, th)
}

// indexedAnalysis is the rules' view of the indexed snapshot: its ownership,
// tables with their schema, traffic, keys and growth.
func indexedAnalysis(ix *index.Index, h *history.History, th Thresholds) *analysis {
	s := ix.Snapshot
	a := &analysis{
		s: s, ix: ix, h: h, th: th, now: s.Taken.Unix(),
		byHost:   ix.ByHost,
		sc:       ix.Scope,
		ksByName: map[string]*keyspaceView{},
		keys:     map[string][]*PartitionEntry{},
	}
	a.ringLen = ix.Ownership().RingLen
	a.buildOwnership()
	a.buildTables()
	a.buildTraffic()
	a.buildKeys()
	a.buildGrowth()
	return a
}

func (a *analysis) note(format string, args ...any) {
	a.notes = append(a.notes, fmt.Sprintf(format, args...))
}

// buildOwnership takes the index's ownership into the rules' keyspaces.
func (a *analysis) buildOwnership() {
	o := a.ix.Ownership()
	a.notes = append(a.notes, o.Notes...)
	a.ring, a.raw = o.Ring, o.Raw
	for _, k := range o.Keyspaces {
		v := &keyspaceView{ks: k.Keyspace, repl: k.Repl, owns: k.Owns, skew: k.Skew}
		a.keyspaces = append(a.keyspaces, v)
		a.ksByName[k.Keyspace.Name] = v
	}
}

// buildTables joins the schema's tables with every node's table figures.
func (a *analysis) buildTables() {
	byKey := map[string]*tableView{}
	get := func(keyspace, table string) *tableView {
		key := model.TableKey(keyspace, table)
		if t, ok := byKey[key]; ok {
			return t
		}
		t := &tableView{keyspace: keyspace, name: table, key: key, ks: a.ksByName[keyspace]}
		byKey[key] = t
		a.tables = append(a.tables, t)
		return t
	}
	for _, ks := range a.keyspaces {
		for i := range ks.ks.Tables {
			t := get(ks.ks.Name, ks.ks.Tables[i].Name)
			t.schema = &ks.ks.Tables[i]
		}
	}
	for _, it := range a.ix.Tables {
		t := get(it.Keyspace, it.Name)
		if t.nodes == nil {
			t.nodes = make([]*tableNode, 0, len(it.Nodes))
		}
		for j := range it.Nodes {
			row := &it.Nodes[j]
			t.nodes = append(t.nodes, &tableNode{node: row.Node, stats: &row.Stats, readRate: -1, writeRate: -1})
		}
	}
	sort.Slice(a.tables, func(i, j int) bool {
		if a.tables[i].keyspace != a.tables[j].keyspace {
			return a.tables[i].keyspace < a.tables[j].keyspace
		}
		return a.tables[i].name < a.tables[j].name
	})
	for _, t := range a.tables {
		sort.Slice(t.nodes, func(i, j int) bool { return t.nodes[i].node.Address < t.nodes[j].node.Address })
		var weighted, counted float64
		for _, tn := range t.nodes {
			t.maxBytes = max(t.maxBytes, tn.stats.MaxPartitionBytes)
			if p := float64(tn.stats.PartitionsEstimate); p > 0 && tn.stats.MeanPartitionBytes > 0 {
				weighted += p * float64(tn.stats.MeanPartitionBytes)
				counted += p
			}
		}
		if counted > 0 {
			t.meanBytes = weighted / counted
		}
		t.partitions = a.estimatePartitions(t)
	}
}

// estimatePartitions extrapolates the nodes' primary-range counts to the
// whole ring: Σ counts ÷ Σ raw ownership of the nodes that reported. With
// every node reporting that is the plain sum; a sidecar sees its own node.
// Counts are per sstable (a partition in k sstables counts k times), so this
// errs high, which keeps low-cardinality findings conservative.
func (a *analysis) estimatePartitions(t *tableView) float64 {
	var sum, owned float64
	for _, tn := range t.nodes {
		if tn.stats.PartitionsEstimate <= 0 {
			continue
		}
		sum += float64(tn.stats.PartitionsEstimate)
		owned += a.raw[tn.node.HostID]
	}
	if sum == 0 {
		return 0
	}
	// Shares are rounded to 6 decimals: all nodes together may sum to 0.999999.
	if owned > 0 && owned < 0.999 {
		return sum / owned
	}
	return sum
}

// nodeDataAt is one node's local data with the address the ring gives it.
type nodeDataAt struct {
	hostID, addr string
	nd           *model.NodeData
}

// perNode lists the nodes' local data by host ID, with each node's ring
// address (its own when the ring no longer names it).
func (a *analysis) perNode() []nodeDataAt {
	if a.nodesAt != nil || len(a.s.PerNode) == 0 {
		return a.nodesAt
	}
	out := make([]nodeDataAt, 0, len(a.ix.Nodes))
	for _, n := range a.ix.Nodes {
		out = append(out, nodeDataAt{hostID: n.HostID, addr: n.Node.Address, nd: n.Data})
	}
	a.nodesAt = out
	return out
}
