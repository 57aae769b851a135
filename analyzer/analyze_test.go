package analyzer

import (
	"encoding/json"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/model"
)

// plantedSnapshot mirrors tools/cmd/fixturetool: three nodes, node 1
// owning half the ring; pm_big with a 120 MiB key on its three replicas,
// pm_hot (RF 1) hammered on one key, pm_tomb read through tombstones,
// pm_lowcard keyed by an order status, pm_ts an unbucketed series of 60 MiB
// partitions, and pm_clean, which must stay silent.
func plantedSnapshot(scale float64) *model.Snapshot {
	third := int64(math.MaxInt64 / 3)
	b := newSnap().
		node("h01", "10.0.0.1", "dc1", "r1", 0).
		node("h02", "10.0.0.2", "dc1", "r1", third).
		node("h03", "10.0.0.3", "dc1", "r1", math.MaxInt64).
		keyspace("pm_big", nts("dc1", "3"), table("events", pk("id", "text", 0), ck("seq", "int", 0, "asc"), col("payload", "blob"))).
		keyspace("pm_hot", nts("dc1", "1"), table("kv", pk("k", "text", 0), col("v", "blob"))).
		keyspace("pm_tomb", nts("dc1", "3"), table("queue", pk("queue", "text", 0), ck("id", "int", 0, "asc"), col("payload", "text"))).
		keyspace("pm_lowcard", nts("dc1", "3"), table("orders_by_status", pk("status", "text", 0), ck("order_id", "timeuuid", 0, "asc"),
			col("customer", "text"), col("amount", "int"))).
		keyspace("pm_ts", nts("dc1", "3"), table("readings", pk("sensor_id", "text", 0), ck("ts", "timestamp", 0, "desc"), col("value", "double"))).
		keyspace("pm_clean", nts("dc1", "3"), table("users_by_id", pk("user_id", "uuid", 0), col("name", "text"), col("email", "text")))
	b.s.Schema.Keyspaces = append(b.s.Schema.Keyspaces, model.Keyspace{Name: "system", System: true,
		Replication: map[string]string{"class": "org.apache.cassandra.locator.LocalStrategy"}})
	ops := func(count int64, rate float64) model.Ops { return model.Ops{Count: count, Rate: rate} }
	for i, host := range []string{"h01", "h02", "h03"} {
		nd := b.nodeData(host)
		nd.LoadBytes = []float64{180, 100, 100}[i] * gib * scale
		b.stats(host, "pm_big", "events", model.TableStats{MaxPartitionBytes: 130 * mib, MeanPartitionBytes: 2 * mib, PartitionsEstimate: 300, DiskUsageBytes: 200 * mib,
			LocalReads: ops(1000, 1*scale), LocalWrites: ops(5000, 5*scale)})
		hotReads := []float64{0.5, 0.5, 0.5}
		if i == 1 {
			hotReads[i] = 400 * scale // the hot key lives on node 2 (RF 1)
		}
		b.stats(host, "pm_hot", "kv", model.TableStats{MaxPartitionBytes: 1 * mib, MeanPartitionBytes: 200, PartitionsEstimate: 3000, DiskUsageBytes: 2 * mib,
			LocalReads: ops(1e6, hotReads[i]), LocalWrites: ops(10, 0)})
		b.stats(host, "pm_tomb", "queue", model.TableStats{MaxPartitionBytes: 2 * mib, MeanPartitionBytes: 700, PartitionsEstimate: 400, DiskUsageBytes: 1 * mib,
			TombstonesPerRead: model.Distribution{Count: 500, P50: 4000, P99: 9000 * scale, Max: 9500 * scale},
			RowsPerRead:       model.Distribution{Count: 500, P50: 10, P99: 20, Max: 20}})
		b.stats(host, "pm_lowcard", "orders_by_status", model.TableStats{MaxPartitionBytes: 8 * mib, MeanPartitionBytes: 6 * mib, PartitionsEstimate: 1, DiskUsageBytes: 6 * mib})
		b.stats(host, "pm_ts", "readings", model.TableStats{MaxPartitionBytes: 60 * mib, MeanPartitionBytes: 100 * kib, PartitionsEstimate: 400, DiskUsageBytes: 70 * mib})
		b.stats(host, "pm_clean", "users_by_id", model.TableStats{MaxPartitionBytes: 1 * mib, MeanPartitionBytes: 120, PartitionsEstimate: 40000, DiskUsageBytes: 5 * mib,
			LocalReads: ops(1e5, 30*scale), LocalWrites: ops(1e5, 30*scale)})
		b.stats(host, "system", "local", model.TableStats{MaxPartitionBytes: 900 * mib})
		nd.TopPartitions = []model.TopPartition{
			{Keyspace: "pm_big", Table: "events", Type: "SIZES", Key: "big", Value: int64(120 * mib * scale)},
			{Keyspace: "pm_tomb", Table: "queue", Type: "TOMBSTONES", Key: "jobs", Value: int64(9000 * scale)},
		}
		b.sources(model.SourceStatus{Source: "max_partition_size", Node: addr(i + 1), State: model.StateOK, Taken: b.s.Taken, LastSuccess: b.s.Taken})
	}
	b.nodeData("h02").HotPartitions = []model.HotPartition{
		{Keyspace: "pm_hot", Table: "kv", Key: "hot-key", Op: "read", Count: int64(3900 * scale), Error: 0, Total: int64(4000 * scale), Window: 10, Source: "nodetool"},
		{Keyspace: "pm_hot", Table: "kv", Key: "k17", Op: "read", Count: 20, Total: int64(4000 * scale), Window: 10, Source: "nodetool"},
	}
	b.sources(model.SourceStatus{Source: "schema", State: model.StateOK, Taken: b.s.Taken, LastSuccess: b.s.Taken})
	return b.s
}

func TestAnalyzeFindsPlantedProblems(t *testing.T) {
	r := Analyze(plantedSnapshot(1), nil, DefaultThresholds())
	onNode := func(f finding.Finding, node string) bool {
		if node == "*" || f.Node == node {
			return true
		}
		for _, n := range f.Nodes {
			if n.Node == node {
				return true
			}
		}
		return false
	}
	has := func(kind, keyspace, table, node, key string) bool {
		for _, f := range r.Findings {
			if f.Kind == kind && f.Keyspace == keyspace && f.Table == table && onNode(f, node) && f.PartitionKey == key {
				return true
			}
		}
		return false
	}
	want := []match{
		{KindOversizedPartition, "pm_big", "events", "10.0.0.1", "big"},
		{KindOversizedPartition, "pm_big", "events", "10.0.0.3", "big"},
		{KindHotPartition, "pm_hot", "kv", "10.0.0.2", "hot-key"},
		{KindHotTokenRange, "pm_hot", "kv", "10.0.0.2", ""},
		{KindTombstoneHeavy, "pm_tomb", "queue", "10.0.0.2", "jobs"},
		{KindOwnershipSkew, "pm_hot", "", "10.0.0.1", ""},
		{KindLoadSkew, "", "", "10.0.0.1", ""},
		{KindLowCardinalityKey, "pm_lowcard", "orders_by_status", "", ""},
		{KindUnbucketedTimeSeries, "pm_ts", "readings", "", ""},
	}
	for _, w := range want {
		if !has(w.kind, w.keyspace, w.table, w.node, w.key) {
			t.Errorf("planted problem not found: %+v", w)
		}
	}
	for _, f := range r.Findings {
		if f.Keyspace == "pm_clean" || f.Keyspace == "system" {
			t.Errorf("finding on a clean or system keyspace: %+v", f)
		}
		if f.ID == "" || f.Summary == "" || f.Advice == "" || f.Unit == "" || f.Source == "" || f.Cluster != "test" {
			t.Errorf("incomplete finding: %+v", f)
		}
	}
	// RF 3 on 3 nodes: everyone owns everything, no ownership skew there.
	if has(KindOwnershipSkew, "pm_big", "", "*", "") {
		t.Errorf("ownership skew reported for a keyspace every node holds whole")
	}
}

func TestAnalyzeReportFigures(t *testing.T) {
	s := plantedSnapshot(1)
	r := Analyze(s, nil, DefaultThresholds())
	if r.Cluster != "test" || r.Engine != model.EngineCassandra || !r.Taken.Equal(t0) || len(r.Sources) != len(s.Sources) {
		t.Fatalf("header: %+v", r)
	}
	if len(r.Nodes) != 3 || r.Nodes[0].Tokens != 1 || len(r.Nodes[0].TokenValues) != 1 {
		t.Fatalf("nodes: %+v", r.Nodes)
	}
	if got := r.Nodes[0].LoadSkew; math.Abs(got-180.0/(380.0/3)) > 1e-9 {
		t.Errorf("load skew %g", got)
	}
	// Raw ownership plus the six user keyspaces, three nodes each.
	byKS := map[string]int{}
	for _, o := range r.Ownership {
		byKS[o.Keyspace]++
	}
	if len(byKS) != 7 || byKS[""] != 3 || byKS["pm_hot"] != 3 {
		t.Fatalf("ownership rows per keyspace: %v", byKS)
	}
	for _, o := range r.Ownership {
		if o.Keyspace == "" && o.Node == "10.0.0.1" && math.Abs(o.Owns-0.5) > 1e-5 {
			t.Errorf("raw ownership of node 1: %g, want 0.5", o.Owns)
		}
		if o.Keyspace == "pm_big" && math.Abs(o.Owns-1) > 1e-5 {
			t.Errorf("RF 3 of 3: %s owns %g", o.Node, o.Owns)
		}
	}
	if len(r.Tables) != 6 || len(r.TableNodes) != 18 {
		t.Fatalf("tables %d, table nodes %d; want 6 and 18 (system tables left out)", len(r.Tables), len(r.TableNodes))
	}
	for _, tn := range r.TableNodes {
		if tn.Keyspace == "pm_hot" && tn.Node == "10.0.0.2" && tn.ReadSkew < 2 {
			t.Errorf("hot node read skew %g", tn.ReadSkew)
		}
	}
	for _, ts := range r.Tables {
		if ts.Keyspace == "pm_big" && (ts.MaxPartitionBytes != 130*mib || ts.SecondsToCritical != 0) {
			t.Errorf("pm_big summary: %+v", ts)
		}
		if ts.Keyspace == "pm_ts" && ts.SecondsToCritical != -1 {
			t.Errorf("no history, no forecast: %+v", ts)
		}
	}
	// "big" is reported by all three replicas: one entry naming all three.
	var big *PartitionEntry
	for i := range r.TopPartitions {
		if r.TopPartitions[i].Key == "big" {
			if big != nil {
				t.Fatalf("key listed twice: %+v", r.TopPartitions)
			}
			big = &r.TopPartitions[i]
		}
	}
	if big == nil || strings.Join(big.Nodes, ",") != "10.0.0.1,10.0.0.2,10.0.0.3" || big.SizeBytes != 120*mib || big.Source != srcTopPartitions {
		t.Fatalf("merged entry: %+v", big)
	}
	if _, err := json.Marshal(r); err != nil {
		t.Fatalf("report does not serialize: %v", err)
	}
}

func TestAnalyzeFindingOrderAndIDs(t *testing.T) {
	r1 := Analyze(plantedSnapshot(1), nil, DefaultThresholds())
	for i := 1; i < len(r1.Findings); i++ {
		if r1.Findings[i-1].Severity < r1.Findings[i].Severity {
			t.Fatalf("not sorted by severity at %d", i)
		}
	}
	ids := map[string]finding.Finding{}
	for _, f := range r1.Findings {
		if prev, dup := ids[f.ID]; dup {
			t.Fatalf("two findings share ID %s:\n%+v\n%+v", f.ID, prev, f)
		}
		ids[f.ID] = f
	}
	// Different values, same problems: same IDs.
	s2 := plantedSnapshot(1.1)
	s2.Taken = t0.Add(5 * time.Minute)
	r2 := Analyze(s2, nil, DefaultThresholds())
	for _, f := range r2.Findings {
		prev, ok := ids[f.ID]
		if !ok || scopeOf(prev) != scopeOf(f) {
			t.Errorf("ID %s not stable for %+v", f.ID, scopeOf(f))
		}
	}
	// Deterministic: the same input gives the same report.
	again := Analyze(plantedSnapshot(1), nil, DefaultThresholds())
	a, _ := json.Marshal(r1)
	b, _ := json.Marshal(again)
	if string(a) != string(b) {
		t.Fatalf("two analyses of one snapshot differ")
	}
}

func TestAnalyzeDegenerateInput(t *testing.T) {
	cases := []struct {
		name string
		s    *model.Snapshot
		th   Thresholds
		note string
	}{
		{"nil snapshot", nil, DefaultThresholds(), "no snapshot to analyze"},
		{"empty snapshot", &model.Snapshot{Taken: t0}, DefaultThresholds(), "no node has tokens"},
		{"bad thresholds", plantedSnapshot(1), Thresholds{}, "invalid thresholds, defaults used"},
		{"unparsable replication", func() *model.Snapshot {
			s := plantedSnapshot(1)
			s.Schema.Keyspaces = append(s.Schema.Keyspaces, model.Keyspace{Name: "odd", Replication: map[string]string{}})
			return s
		}(), DefaultThresholds(), "keyspace odd: replication not understood"},
		{"stats of a node the ring lost", func() *model.Snapshot {
			s := plantedSnapshot(1)
			s.PerNode["gone"] = &model.NodeData{HostID: "gone", Address: "10.0.0.9", Tables: map[string]*model.TableStats{
				"pm_big.events": {Keyspace: "pm_big", Table: "events", MaxPartitionBytes: 500 * mib}}}
			return s
		}(), DefaultThresholds(), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Analyze(c.s, nil, c.th)
			if r == nil {
				t.Fatal("nil report")
			}
			if c.note == "" {
				return
			}
			for _, n := range r.Notes {
				if strings.Contains(n, c.note) {
					return
				}
			}
			t.Fatalf("notes %q lack %q", r.Notes, c.note)
		})
	}
}

func TestTopPartitionsBoundedPerTable(t *testing.T) {
	b := newSnap().ring("dc1", 2).keyspace("ks", simple("2"), table("t", pk("k", "text", 0)))
	for _, host := range []string{"h01", "h02"} {
		b.stats(host, "ks", "t", model.TableStats{})
		nd := b.nodeData(host)
		for i := 0; i < 15; i++ {
			nd.TopPartitions = append(nd.TopPartitions,
				model.TopPartition{Keyspace: "ks", Table: "t", Type: "SIZES", Key: "s" + itoa(i), Value: int64(i+1) * mib},
				model.TopPartition{Keyspace: "ks", Table: "t", Type: "TOMBSTONES", Key: "t" + itoa(i), Value: int64(i+1) * 1000})
		}
	}
	th := DefaultThresholds()
	th.TopK = 3
	a := analysisWith(t, b.s, nil, th)
	got := viewFigures{a}.topPartitions()
	var keys []string
	for _, e := range got {
		keys = append(keys, e.Key)
		if len(e.Nodes) != 2 {
			t.Errorf("%s: nodes %v", e.Key, e.Nodes)
		}
	}
	want := []string{"s14", "s13", "s12", "t14", "t13", "t12"}
	if strings.Join(keys, ",") != strings.Join(want, ",") {
		t.Fatalf("got %v, want %v", keys, want)
	}
	if !sort.SliceIsSorted(got[:3], func(i, j int) bool { return got[i].SizeBytes > got[j].SizeBytes }) {
		t.Fatalf("largest first: %+v", got)
	}
}

// A sidecar reads only its own node: partition counts are extrapolated by
// the node's raw ownership, and shares of traffic (which need every
// replica) are not computed.
func TestSidecarView(t *testing.T) {
	b := newSnap().ring("dc1", 4).keyspace("ks", simple("1"), table("t", pk("k", "text", 0)))
	for i := range b.s.Nodes {
		b.s.Nodes[i].Targeted = i == 0
	}
	b.stats("h01", "ks", "t", model.TableStats{PartitionsEstimate: 250, MeanPartitionBytes: 1 * kib,
		LocalReads: model.Ops{Count: 1e6, Rate: 500}})
	a := analysisOf(t, b.s)
	if got := a.tables[0].partitions; math.Abs(got-1000) > 0.01 {
		t.Fatalf("extrapolated partitions %g, want 1000", got)
	}
	if fs := ruleHotTokenRange(a); len(fs) != 0 || a.tables[0].nodes[0].readSkew != 0 {
		t.Fatalf("a share of one node's traffic is unknown: %+v", fs)
	}
	r := Analyze(b.s, nil, DefaultThresholds())
	if len(r.Nodes) != 4 || !r.Nodes[0].Targeted || r.Nodes[1].Targeted || len(r.TableNodes) != 1 {
		t.Fatalf("nodes %+v, table nodes %d", r.Nodes, len(r.TableNodes))
	}
}

// Design lint that the schema alone says is a remark: kept apart from the
// findings (which the exporter counts and alerts on), severity info.
func TestSchemaOnlyRemarksStayApart(t *testing.T) {
	r := Analyze(plantedSnapshot(1), nil, DefaultThresholds())
	for _, f := range r.Findings {
		if f.Kind == KindAscendingTimeOrder || f.Remark {
			t.Errorf("a schema-only remark among the findings: %+v", f)
		}
	}
	found := false
	for _, f := range r.Remarks {
		if f.Severity != finding.SeverityInfo || f.ID == "" {
			t.Errorf("remark %+v: want severity info and an ID", f)
		}
		found = found || (f.Kind == KindAscendingTimeOrder && f.Keyspace == "pm_lowcard")
	}
	if !found {
		t.Fatalf("the ascending timeuuid of pm_lowcard.orders_by_status is not remarked: %+v", r.Remarks)
	}
}
