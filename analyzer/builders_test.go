package analyzer

import (
	"math/bits"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/analyzer/scope"
	"github.com/partmon/partmon/model"
)

// Hand-built snapshots for the rule tests: a builder keeps each test's
// snapshot to the lines that matter to it.

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

type snapBuilder struct{ s *model.Snapshot }

func newSnap() *snapBuilder {
	return &snapBuilder{s: &model.Snapshot{
		Taken: t0, Cluster: "test", Engine: model.EngineCassandra, Version: "5.0.8",
		Partitioner: "org.apache.cassandra.dht.Murmur3Partitioner",
		PerNode:     map[string]*model.NodeData{},
	}}
}

// evenTokens spaces n single tokens evenly around the ring.
func evenTokens(n int) []int64 {
	if n == 1 {
		return []int64{0}
	}
	step, _ := bits.Div64(1, 0, uint64(n)) // 2^64 ÷ n
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(uint64(1)<<63 + step/2 + uint64(i)*step)
	}
	return out
}

// ring adds n targeted nodes "h1".."hn" at 10.0.0.1.. in dc, single evenly spaced tokens.
func (b *snapBuilder) ring(dc string, n int) *snapBuilder {
	for i, tok := range evenTokens(n) {
		b.node(hostID(i+1), addr(i+1), dc, "r1", tok)
	}
	return b
}

func hostID(i int) string { return "h" + string(rune('0'+i/10)) + string(rune('0'+i%10)) }
func addr(i int) string   { return "10.0.0." + itoa(i) }

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var d []byte
	for ; i > 0; i /= 10 {
		d = append([]byte{byte('0' + i%10)}, d...)
	}
	return string(d)
}

func (b *snapBuilder) node(host, address, dc, rack string, tokens ...int64) *snapBuilder {
	b.s.Nodes = append(b.s.Nodes, model.Node{
		HostID: host, Address: address, DC: dc, Rack: rack, Tokens: tokens, Targeted: true,
		ReleaseVersion: "5.0.8",
	})
	return b
}

func (b *snapBuilder) keyspace(name string, repl map[string]string, tables ...model.Table) *snapBuilder {
	for i := range tables {
		tables[i].Keyspace = name
	}
	b.s.Schema.Keyspaces = append(b.s.Schema.Keyspaces, model.Keyspace{Name: name, Replication: repl, Tables: tables})
	return b
}

func nts(dcFactors ...string) map[string]string {
	m := map[string]string{"class": "org.apache.cassandra.locator.NetworkTopologyStrategy"}
	for i := 0; i+1 < len(dcFactors); i += 2 {
		m[dcFactors[i]] = dcFactors[i+1]
	}
	return m
}

func simple(rf string) map[string]string {
	return map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": rf}
}

func table(name string, cols ...model.Column) model.Table {
	return model.Table{Name: name, Columns: cols, GCGraceSeconds: 864000,
		Compaction: map[string]string{"class": "org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy"}}
}

func pk(name, typ string, pos int) model.Column {
	return model.Column{Name: name, Kind: kindPartitionKey, Position: pos, Type: typ, ClusteringOrder: "none"}
}

func ck(name, typ string, pos int, order string) model.Column {
	return model.Column{Name: name, Kind: kindClustering, Position: pos, Type: typ, ClusteringOrder: order}
}

func col(name, typ string) model.Column {
	return model.Column{Name: name, Kind: "regular", Position: -1, Type: typ, ClusteringOrder: "none"}
}

// nodeData returns (creating) the node-local data of a host.
func (b *snapBuilder) nodeData(host string) *model.NodeData {
	nd := b.s.PerNode[host]
	if nd == nil {
		address := ""
		for _, n := range b.s.Nodes {
			if n.HostID == host {
				address = n.Address
			}
		}
		nd = &model.NodeData{HostID: host, Address: address, Tables: map[string]*model.TableStats{}}
		b.s.PerNode[host] = nd
	}
	return nd
}

// stats sets one table's figures on one host; unknown rates default to -1.
func (b *snapBuilder) stats(host, keyspace, tbl string, ts model.TableStats) *snapBuilder {
	ts.Keyspace, ts.Table = keyspace, tbl
	for _, o := range []*model.Ops{&ts.LocalReads, &ts.LocalWrites, &ts.LocalScans} {
		if o.Rate == 0 && o.Count > 0 {
			o.Rate = -1
		}
	}
	b.nodeData(host).Tables[model.TableKey(keyspace, tbl)] = &ts
	return b
}

func (b *snapBuilder) sources(st ...model.SourceStatus) *snapBuilder {
	b.s.Sources = append(b.s.Sources, st...)
	return b
}

// analysisOf builds the rules' view with default thresholds and no history.
func analysisOf(t *testing.T, s *model.Snapshot) *analysis {
	t.Helper()
	return analysisWith(t, s, nil, DefaultThresholds())
}

func analysisWith(t *testing.T, s *model.Snapshot, h *history.History, th Thresholds) *analysis {
	t.Helper()
	if err := th.Validate(); err != nil {
		t.Fatalf("test thresholds invalid: %v", err)
	}
	if h == nil {
		h = history.New(history.Limits{})
	}
	return newAnalysis(s, scope.Of(s), h, th)
}

// match is what a test (and the fixture truth) matches a finding by.
type match struct{ kind, keyspace, table, node, key string }

func scopeOf(f finding.Finding) match {
	return match{f.Kind, f.Keyspace, f.Table, f.Node, f.PartitionKey}
}

func scopes(fs []finding.Finding) []match {
	out := make([]match, 0, len(fs))
	for _, f := range fs {
		out = append(out, scopeOf(f))
	}
	return out
}

const testMiB = float64(mib)

// record adds s to h the way Analyze does.
func record(h *history.History, s *model.Snapshot) { h.Record(s, scope.Of(s)) }

// sizeSnap is a one-node snapshot at t0+at with one table's max partition
// size and traffic counters.
func sizeSnap(at time.Duration, maxBytes, reads, writes int64) *model.Snapshot {
	b := newSnap().ring("dc1", 1).keyspace("ks", simple("1"), table("t", pk("id", "text", 0)))
	b.stats("h01", "ks", "t", model.TableStats{
		MaxPartitionBytes: maxBytes,
		LocalReads:        model.Ops{Count: reads},
		LocalWrites:       model.Ops{Count: writes},
	})
	b.s.Taken = t0.Add(at)
	return b.s
}
