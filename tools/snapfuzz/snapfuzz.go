// Package snapfuzz builds snapshots of every shape from a fuzzer's bytes,
// for the fuzz targets of the analyzer and of the outputs that render its
// reports: tables with sizes but no schema (a materialized view the
// collector did not read) and schema but no sizes, nodes in one source and
// not another, a node that left the ring, a keyspace dropped mid-cycle,
// names that differ only by case, vnode rings and an empty ring, figures
// that are zero, negative, huge, NaN or infinite, and a history of
// earlier snapshots at odd times. The same bytes always build the same
// snapshots; bytes run out into zeros, so any input builds something.
package snapfuzz

import (
	"encoding/binary"
	"math"
	"sort"
	"time"

	"github.com/partmon/partmon/model"
)

// T0 is the first snapshot's time.
var T0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// reader hands out the input's bytes; past the end it returns zeros.
type reader struct {
	b []byte
	i int
}

func (r *reader) byte() byte {
	if r.i >= len(r.b) {
		return 0
	}
	r.i++
	return r.b[r.i-1]
}

// n is a number in [0, m).
func (r *reader) n(m int) int { return int(r.byte()) % m }

func (r *reader) bool() bool { return r.byte()&1 == 1 }

func (r *reader) u64() uint64 {
	var buf [8]byte
	for i := range buf {
		buf[i] = r.byte()
	}
	return binary.LittleEndian.Uint64(buf[:])
}

// pick returns one of choices.
func pick[T any](r *reader, choices ...T) T { return choices[r.n(len(choices))] }

// Figures a source could give, and some no source should.
var (
	ints   = []int64{0, 1, -1, 100, 1 << 20, 200 << 20, 2 << 30, 1 << 40, math.MaxInt64, math.MinInt64, 943127, 4139110981}
	floats = []float64{0, 1, -1, 0.5, 3, 1e3, 1e6, 1e12, math.MaxFloat64, math.SmallestNonzeroFloat64,
		math.NaN(), math.Inf(1), math.Inf(-1), -1e9}
)

func (r *reader) int() int64 {
	if r.bool() {
		return ints[r.n(len(ints))]
	}
	return int64(r.byte()) << (r.n(5) * 8)
}

func (r *reader) float() float64 {
	if r.bool() {
		return floats[r.n(len(floats))]
	}
	return float64(r.byte()) * math.Pow(10, float64(r.n(8)))
}

// Names drawn from small sets, so that sources and the schema meet (and
// sometimes differ only by case).
var (
	hostIDs   = []string{"h1", "h2", "h3", "h4", "H1", "gone"}
	dcs       = []string{"dc1", "dc2", "", "DC1"}
	keyspaces = []string{"shop", "Shop", "ks", "system_x", "dropped"}
	tables    = []string{"orders", "Orders", "events", "by_user_mv", "t"}
	types     = []string{"int", "text", "timestamp", "timeuuid", "boolean", "tinyint", "uuid", "date", "bigint", "blob",
		"list<int>", "frozen<map<text,int>>", "map<text,text>", "vector<float, 3>", "", "FROZEN<TUPLE<INT>>", "custom_udt"}
	colNames = []string{"id", "user_id", "day", "bucket", "ts", "status", "v", "shard", "ID", ""}
	kinds    = []string{"partition_key", "clustering", "regular", "static", "", "unknown"}
)

// Build builds one to four snapshots from data, in time order (times may
// repeat or run backwards); the last is the one to analyze, the others its
// history.
func Build(data []byte) []*model.Snapshot {
	r := &reader{b: data}
	n := 1 + r.n(4)
	var base *model.Snapshot
	if r.n(8) == viewShape {
		base = ViewWithoutSchema()
	} else {
		base = build(r)
	}
	out := []*model.Snapshot{base}
	for i := 1; i < n; i++ {
		prev := out[len(out)-1]
		step := pick(r, time.Minute, 0, -time.Minute, time.Second, 40*24*time.Hour, time.Nanosecond)
		next := build(r)
		if r.bool() {
			next = vary(r, prev)
		}
		next.Taken = prev.Taken.Add(step)
		out = append(out, next)
	}
	return out
}

// vary is prev with its per-node figures changed: a later cycle of the
// same cluster (sizes grow or shrink, counters advance or reset).
func vary(r *reader, prev *model.Snapshot) *model.Snapshot {
	s := *prev
	s.PerNode = map[string]*model.NodeData{}
	for id, nd := range prev.PerNode {
		if nd == nil || r.n(8) == 0 { // the node's data is gone this cycle
			continue
		}
		c := *nd
		c.Tables = map[string]*model.TableStats{}
		for k, ts := range nd.Tables {
			if ts == nil {
				continue
			}
			t := *ts
			t.MaxPartitionBytes = pick(r, t.MaxPartitionBytes*2, t.MaxPartitionBytes, t.MaxPartitionBytes+r.int(), 0)
			t.LocalReads.Count += r.int()
			t.LocalWrites.Count += r.int()
			c.Tables[k] = &t
		}
		s.PerNode[id] = &c
	}
	return &s
}

func build(r *reader) *model.Snapshot {
	s := &model.Snapshot{
		Taken: T0, Cluster: pick(r, "test", "", "Test Cluster"), Engine: pick(r, model.EngineCassandra, model.EngineScyllaDB, model.EngineUnknown),
		Version: pick(r, "5.0.2", "4.1.5", "", "2025.1.0"), Partitioner: "org.apache.cassandra.dht.Murmur3Partitioner",
		PerNode: map[string]*model.NodeData{},
	}
	buildRing(r, s)
	buildSchema(r, s)
	for range r.n(6) {
		id := pick(r, hostIDs...)
		s.PerNode[id] = nodeData(r, id)
	}
	if r.bool() {
		s.PerNode["nil"] = nil
	}
	for range r.n(5) {
		s.Sources = append(s.Sources, sourceStatus(r))
	}
	return s
}

// buildRing: no node, a few with one token, vnodes, a node with none (it
// left the ring or has not joined), the same host ID twice.
func buildRing(r *reader, s *model.Snapshot) {
	for i := range r.n(6) {
		n := model.Node{HostID: pick(r, hostIDs...), Address: "10.0.0." + string(rune('1'+i)), DC: pick(r, dcs...),
			Rack: pick(r, "r1", "r2", ""), Targeted: r.n(4) != 0, ReleaseVersion: s.Version}
		switch r.n(5) {
		case 0: // no tokens
		case 1:
			n.Tokens = []int64{int64(r.u64())}
		case 2:
			n.Tokens = vnodes(r, 16)
		case 3:
			n.Tokens = vnodes(r, 256)
		default:
			n.Tokens = []int64{math.MinInt64 + int64(i)*(math.MaxInt64/3)}
		}
		s.Nodes = append(s.Nodes, n)
	}
}

func vnodes(r *reader, n int) []int64 {
	seed := r.u64() | 1
	out := make([]int64, n)
	for i := range out {
		seed ^= seed << 13 // xorshift: deterministic, spread over the ring
		seed ^= seed >> 7
		seed ^= seed << 17
		out[i] = int64(seed)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func buildSchema(r *reader, s *model.Snapshot) {
	for range r.n(4) {
		ks := model.Keyspace{Name: pick(r, keyspaces...), System: r.n(8) == 0}
		switch r.n(5) {
		case 0:
			ks.Replication = map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": pick(r, "1", "3", "0", "-2", "x", "99")}
		case 1:
			ks.Replication = map[string]string{"class": "NetworkTopologyStrategy", pick(r, dcs...): pick(r, "3", "1", "3/1", "0"), pick(r, dcs...): pick(r, "2", "")}
		case 2:
			ks.Replication = map[string]string{"class": "EverywhereStrategy"}
		case 3:
			ks.Replication = nil
		default:
			ks.Replication = map[string]string{"class": "org.apache.cassandra.locator.LocalStrategy"}
		}
		for range r.n(4) {
			ks.Tables = append(ks.Tables, table(r, ks.Name))
		}
		s.Schema.Keyspaces = append(s.Schema.Keyspaces, ks)
	}
}

func table(r *reader, keyspace string) model.Table {
	t := model.Table{Keyspace: keyspace, Name: pick(r, tables...), DefaultTTLSeconds: int(pick(r, 0, 0, 86400, -1, math.MaxInt32)),
		GCGraceSeconds: 864000}
	for i := range r.n(6) {
		t.Columns = append(t.Columns, model.Column{Name: pick(r, colNames...), Kind: pick(r, kinds...), Position: pick(r, i, 0, -1, 1000),
			Type: pick(r, types...), ClusteringOrder: pick(r, "asc", "desc", "none", "")})
	}
	if r.n(3) == 0 {
		t.Compaction = map[string]string{"class": "org.apache.cassandra.db.compaction.TimeWindowCompactionStrategy",
			"compaction_window_size": pick(r, "1", "0", "-5", "x", "999999999999"), "compaction_window_unit": pick(r, "MINUTES", "HOURS", "DAYS", "", "weeks")}
	}
	if r.n(3) == 0 {
		t.Indexes = append(t.Indexes, model.Index{Name: "ix", Kind: pick(r, "COMPOSITES", "CUSTOM", "KEYS", ""),
			Options: map[string]string{"target": pick(r, "status", "values(v)", `{"pk":["id"],"ck":["ts"]}`, "(", `{"ck":[`, "", "keys()"),
				"class_name": pick(r, "", "org.apache.cassandra.index.sai.StorageAttachedIndex", ".")}})
	}
	return t
}

func nodeData(r *reader, id string) *model.NodeData {
	nd := &model.NodeData{HostID: id, Address: pick(r, "10.0.0.1", "10.0.0.2", "10.0.0.9", ""), Tables: map[string]*model.TableStats{},
		LoadBytes: r.float()}
	for range r.n(6) {
		ks, tb := pick(r, keyspaces...), pick(r, tables...)
		nd.Tables[model.TableKey(ks, tb)] = tableStats(r, ks, tb)
	}
	if r.bool() {
		nd.Tables["nil.nil"] = nil
	}
	for range r.n(4) {
		ks, tb, key := pick(r, keyspaces...), pick(r, tables...), pick(r, "k1", "k2", "", "\xff\xfe", "a\nb")
		switch r.n(5) {
		case 0:
			nd.TopPartitions = append(nd.TopPartitions, model.TopPartition{Keyspace: ks, Table: tb, Type: pick(r, "SIZES", "TOMBSTONES", ""),
				Key: key, Value: r.int(), LastUpdate: T0})
		case 1:
			nd.LargePartitions = append(nd.LargePartitions, model.LargePartition{Keyspace: ks, Table: tb, Key: key, SizeBytes: r.int(),
				Rows: r.int(), DeadRows: r.int(), RangeTombstones: r.int()})
		case 2:
			nd.HotPartitions = append(nd.HotPartitions, model.HotPartition{Keyspace: ks, Table: tb, Key: key, Op: pick(r, "read", "write", ""),
				Count: r.int(), Error: r.int(), Total: r.int(), Window: r.float(), Source: "nodetool", Pass: r.n(2)})
		case 3:
			nd.LogEvidence = append(nd.LogEvidence, model.LogEvidence{Kind: pick(r, model.LogTombstoneWarning, model.LogTombstoneAbort,
				model.LogPartitionSize, model.LogPartitionTombstones, model.LogSlowRead, model.LogWriteGuardrail, ""), Keyspace: ks, Table: tb, Key: key,
				Value: r.int(), Threshold: r.int(), LiveRows: r.int(), MaxMillis: r.int(), Count: r.int(), First: T0, Last: T0})
			if e := &nd.LogEvidence[len(nd.LogEvidence)-1]; e.Kind == model.LogWriteGuardrail {
				e.Guardrail, e.Column = pick(r, "collection_size", "items_per_collection", "column_value_size", "x"), pick(r, "c", "v", "")
				e.Failure, e.Stored = r.bool(), r.bool()
				for i := range r.n(8) {
					e.Series = append(e.Series, model.GuardrailPoint{At: T0.Unix() - int64(r.n(4))*60 + int64(i), Value: r.int()})
				}
			}
		default:
			nd.LargeRows = append(nd.LargeRows, model.LargeRow{Keyspace: ks, Table: tb, Key: key, SizeBytes: r.int()})
			nd.LargeCells = append(nd.LargeCells, model.LargeCell{Keyspace: ks, Table: tb, Key: key, SizeBytes: r.int(), CollectionElements: r.int()})
		}
	}
	if r.bool() {
		nd.GossipLoad = map[string]float64{"10.0.0.1": r.float(), "10.0.0.2": r.float()}
	}
	if r.bool() {
		nd.Settings = map[string]string{"tombstone_warn_threshold": pick(r, "1000", "-1", "x", ""),
			"collection_size_fail_threshold": pick(r, "8KiB", "", "-1"), "authenticator": pick(r, "PasswordAuthenticator", "")}
	}
	return nd
}

func tableStats(r *reader, ks, tb string) *model.TableStats {
	ts := &model.TableStats{Keyspace: ks, Table: tb, MaxPartitionBytes: r.int(), MeanPartitionBytes: r.int(), PartitionsEstimate: r.int(),
		DiskUsageBytes: r.int(), MaxSSTableBytes: r.int()}
	if r.bool() {
		ts.MaxCellsPerPartition, ts.MaxFragmentBytes = r.int(), r.int()
		d := r.int()
		ts.DistinctPartitions = &d
	}
	ts.LocalReads = ops(r)
	ts.LocalWrites = ops(r)
	ts.LocalScans = ops(r)
	ts.TombstonesPerRead = dist(r)
	ts.RowsPerRead = dist(r)
	return ts
}

func ops(r *reader) model.Ops {
	return model.Ops{Count: r.int(), Rate: r.float(), PerSecond: r.float(), P99Seconds: r.float()}
}

func dist(r *reader) model.Distribution {
	return model.Distribution{Count: r.int(), P50: r.float(), P99: r.float(), Max: r.float()}
}

func sourceStatus(r *reader) model.SourceStatus {
	st := model.SourceStatus{Source: pick(r, "table_sizes", "top_partitions", "topology", "nodetool_sampler", ""),
		Node: pick(r, "10.0.0.1", "10.0.0.2", "", "10.0.0.9"), State: pick(r, model.StateOK, model.StateError, model.StateUnsupported, model.StateDisabled, model.StateBusy),
		Taken: T0, Duration: time.Duration(r.int()), Rows: int(r.int())}
	if r.bool() {
		st.LastSuccess = T0.Add(-time.Duration(r.int()))
	}
	if st.State == model.StateError {
		st.Error = pick(r, "timeout", "", "panic: x")
	}
	return st
}

// viewShape, as Build's second byte (mod 8), starts from ViewWithoutSchema.
const viewShape = 7

// ViewSeed is the input that builds ViewWithoutSchema alone (one snapshot).
var ViewSeed = []byte{0, viewShape}

// ViewWithoutSchema is the shape that crashed partmon: a keyspace whose schema
// lists its base table only, and a materialized view that every node
// reports sizes of (system_views, size estimates) but the schema does not
// name (the collector read no system_schema.views).
func ViewWithoutSchema() *model.Snapshot {
	s := &model.Snapshot{Taken: T0, Cluster: "test", Engine: model.EngineCassandra, Version: "5.0.2",
		Partitioner: "org.apache.cassandra.dht.Murmur3Partitioner", PerNode: map[string]*model.NodeData{}}
	for i, id := range []string{"h1", "h2", "h3"} {
		addr := "10.0.0." + string(rune('1'+i))
		s.Nodes = append(s.Nodes, model.Node{HostID: id, Address: addr, DC: "dc1", Rack: "r1", Targeted: true,
			Tokens: []int64{math.MinInt64 + int64(i)*(math.MaxInt64/3*2)}})
		nd := &model.NodeData{HostID: id, Address: addr, Tables: map[string]*model.TableStats{}}
		for _, tb := range []string{"orders", "orders_by_user"} {
			nd.Tables[model.TableKey("shop", tb)] = &model.TableStats{Keyspace: "shop", Table: tb,
				MaxPartitionBytes: 1 << 20, MeanPartitionBytes: 4096, PartitionsEstimate: 1000}
		}
		s.PerNode[id] = nd
	}
	s.Schema.Keyspaces = []model.Keyspace{{Name: "shop", Replication: map[string]string{"class": "SimpleStrategy", "replication_factor": "3"},
		Tables: []model.Table{{Keyspace: "shop", Name: "orders", Columns: []model.Column{
			{Name: "id", Kind: "partition_key", Type: "uuid"}, {Name: "v", Kind: "regular", Type: "text"}}}}}}
	return s
}
