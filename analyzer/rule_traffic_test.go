package analyzer

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/model"
)

func TestRuleWidePartition(t *testing.T) {
	cases := []struct {
		name      string
		engine    model.Engine
		keyedRows int64
		maxRows   float64 // rows_per_read max, a bucket bound
		p50Rows   float64
		maxBytes  int64
		scans     model.Ops
		wantSev   finding.Severity
		wantRows  float64
		wantKey   string
		wantBytes float64
		inText    []string
		wantNote  string
		noNote    string // a note that must not be there
	}{
		{name: "keyed, under", keyedRows: 99_999},
		{name: "keyed at warning", keyedRows: 100_000, wantSev: finding.SeverityWarning, wantRows: 100_000, wantKey: "k", wantBytes: 2 * testMiB,
			inText: []string{"partition k of ks.t on 10.0.0.1 has at least 100,000 rows (system.large_partitions", "2 buckets bring its 100,000 rows or more to ~50,000"}},
		{name: "keyed at critical", keyedRows: 1_000_000, wantSev: finding.SeverityCritical, wantRows: 1_000_000, wantKey: "k"},
		// 112,640 rows read whole fall in the bucket (105,778, 126,934]: at least 105,779.
		{name: "rows per read: a whole partition read", maxRows: 126_934, p50Rows: 10, maxBytes: 124 * mib, wantSev: finding.SeverityWarning,
			wantRows: 105_779, wantBytes: 124 * testMiB,
			inText: []string{"a read command on 10.0.0.1 iterated 105,779 to 126,934 live rows of one partition of ks.t", "at least 105,779 rows",
				"largest partition fragment on 10.0.0.1 is up to 124 MiB", "READ_ROW_COUNT ks t"}},
		// The bucket (88,148, 105,778] may hold a read of 90,000 rows: not proven.
		{name: "rows per read: the bucket across the threshold proves nothing", maxRows: 105_778, maxBytes: 124 * mib},
		// Truth scenario 06 (one hot user read with count(*)): count(*) reads
		// are paged (5,000 rows a page): the page is full, the partition's
		// width is unknown.
		{name: "rows per read: full pages", maxRows: 5_722, p50Rows: 5_722, maxBytes: 1 * mib},
		{name: "rows per read: range reads now", maxRows: 126_934, maxBytes: 124 * mib, scans: model.Ops{Count: 7, PerSecond: 0.01},
			wantNote: "wide_partition of ks.t on 10.0.0.1 unknown: range reads ran"},
		{name: "rows per read: range reads measured between cycles", maxRows: 126_934, maxBytes: 124 * mib, scans: model.Ops{Count: 7, Rate: 0.5},
			wantNote: "range reads ran"},
		{name: "rows per read: range reads long ago", maxRows: 126_934, maxBytes: 124 * mib, scans: model.Ops{Count: 7, PerSecond: 1e-6},
			wantSev: finding.SeverityWarning, wantRows: 105_779},
		// 943,128 rows need at least 8 MB (9 bytes an int-clustered row); no sstable holds more than 1 MiB of the table.
		{name: "rows the sstables cannot hold", maxRows: 1_131_752, maxBytes: 1 * mib, wantSev: finding.SeverityWarning, wantRows: 943_128,
			inText: []string{"no sstable fragment on 10.0.0.1 is big enough for them (largest 1.0 MiB holds at most 116,508 rows of 9 bytes): the partition is spread over sstables or still in memtables"}},
		{name: "rows per read alone is never critical", maxRows: 1_358_102, maxBytes: 124 * mib, wantSev: finding.SeverityWarning, wantRows: 1_131_753},
		{name: "ScyllaDB's per-read histograms are never filled", engine: model.EngineScyllaDB, maxRows: 126_934, maxBytes: 124 * mib,
			noNote: "wide_partition"},
		// Truth corpus scenario 18: a 150,000-row partition read with LIMIT 500.
		// 22 MiB has room for 2,563,186 rows of 9 bytes (header 3, content 1,
		// clustering header 1, int 4) and one of 5 (the empty clustering).
		{name: "reads capped by LIMIT, room for many rows: unknown", maxRows: 500, p50Rows: 500, maxBytes: 22 * mib,
			wantNote: "wide_partition of ks.t unknown: its largest partition fragment is up to 22 MiB (max_partition_size, per sstable): room for at most 2,563,186 rows of at least 9 bytes, " +
				"while the most live rows one read command counted was 500 (rows_per_read; pages and LIMIT cap it); what decides: nodetool tablehistograms ks t, whose Partition Size max is in bytes"},
		// 512 KiB holds at most 58,254 rows of 9 bytes: it cannot be wide.
		{name: "no room for a wide partition: nothing to say", maxRows: 500, maxBytes: 512 * kib, noNote: "wide_partition"},
		{name: "a finding, no unknown note", maxRows: 126_934, maxBytes: 124 * mib, wantSev: finding.SeverityWarning, wantRows: 105_779,
			noNote: "wide_partition of ks.t unknown"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newSnap().ring("dc1", 1).keyspace("ks", simple("1"), table("t", pk("id", "text", 0), ck("c", "int", 0, "asc")))
			if c.engine != "" {
				b.s.Engine = c.engine
			}
			b.stats("h01", "ks", "t", model.TableStats{
				MaxPartitionBytes: c.maxBytes, MeanPartitionBytes: 1 * kib,
				RowsPerRead: model.Distribution{Count: 10, P50: c.p50Rows, P99: c.maxRows, Max: c.maxRows},
				LocalScans:  c.scans,
			})
			if c.keyedRows > 0 {
				b.nodeData("h01").LargePartitions = []model.LargePartition{{Keyspace: "ks", Table: "t", Key: "k", Rows: c.keyedRows, SizeBytes: 2 * mib}}
			}
			a := analysisOf(t, b.s)
			fs := ruleWidePartition(a)
			if c.wantNote != "" && !strings.Contains(strings.Join(a.notes, "|"), c.wantNote) {
				t.Errorf("notes %q lack %q", a.notes, c.wantNote)
			}
			if c.noNote != "" && strings.Contains(strings.Join(a.notes, "|"), c.noNote) {
				t.Errorf("notes %q have %q", a.notes, c.noNote)
			}
			if c.wantSev == finding.SeverityNone {
				if len(fs) != 0 {
					t.Fatalf("want none, got %+v", fs)
				}
				return
			}
			if len(fs) != 1 {
				t.Fatalf("want one finding, got %+v", fs)
			}
			f := fs[0]
			if f.Severity != c.wantSev || f.PartitionKey != c.wantKey || f.Unit != finding.UnitRows || f.Value != c.wantRows ||
				f.Figures == nil || f.Figures.Rows != c.wantRows || (c.wantBytes > 0 && f.Figures.PartitionBytes != c.wantBytes) {
				t.Fatalf("got %v key %q value %g figures %+v, want %v %q %g bytes %g", f.Severity, f.PartitionKey, f.Value, f.Figures, c.wantSev, c.wantKey, c.wantRows, c.wantBytes)
			}
			for _, s := range c.inText {
				if !strings.Contains(f.Summary+" | "+f.Advice, s) {
					t.Errorf("missing %q in %q | %q", s, f.Summary, f.Advice)
				}
			}
		})
	}
}

func TestBucketFloor(t *testing.T) {
	for _, c := range []struct{ bound, floor float64 }{
		{1, 0}, {2, 2}, {10, 9}, {5_722, 4_769}, {126_934, 105_779}, {129_557_750, 107_964_793},
		{12_345, 12_345}, // not a bound: taken as exact
	} {
		if got := bucketFloor(c.bound); got != c.floor {
			t.Errorf("bucketFloor(%g) = %g, want %g", c.bound, got, c.floor)
		}
	}
}

func TestRuleHotPartition(t *testing.T) {
	cases := []struct {
		name       string
		count, err int64
		total      int64
		window     float64
		readRate   float64 // of the table on the node, for samplers without a total
		partitions int64
		disk, mean int64   // disk usage and mean partition size of the table on the node
		others     []int64 // counts of other sampled keys
		wantSev    finding.Severity
		wantShare  float64
		inText     []string
	}{
		// The rule grades the share two standard errors down (Wilson): at
		// 10,000 operations 26 % assures 25.1 %, 25 % only 24.1 %.
		{name: "at the warning share, not assured", count: 2500, total: 10000, window: 10},
		{name: "at warning", count: 2600, total: 10000, window: 10, wantSev: finding.SeverityWarning, wantShare: 0.26,
			inText: []string{"key hot takes 26 % of ks.t's sampled reads on 10.0.0.1", "a sample that size assures 25 %",
				"2,600 ± 0 of 10,000 operations, sampler total", "260 ops/s", "spread key hot over 2 suffix buckets"}},
		{name: "error bound counts against the key", count: 2620, err: 40, total: 10000, window: 10},
		// A key once found falsely hot by the truth corpus: 15 of 60 writes is 25 %, and assures 16 %.
		{name: "a small sample at the warning share", count: 15, total: 60, window: 10},
		{name: "a small sample above critical, assured only above warning", count: 33, total: 60, window: 10, wantSev: finding.SeverityWarning, wantShare: 0.55,
			inText: []string{"takes 55 %", "assures 42 %"}},
		{name: "critical", count: 900, total: 1000, window: 10, wantSev: finding.SeverityCritical, wantShare: 0.9,
			inText: []string{"over 3 suffix buckets", "~30 % of the table's reads"}},
		{name: "idle table: under the traffic floor", count: 9, total: 10, window: 10},
		// One partition on this node of three ⇒ ~3 in the ring: a fair key share is 1/3.
		{name: "few partitions: a big share is fair", count: 500, total: 1000, window: 10, partitions: 1},
		{name: "enough partitions", count: 700, total: 1000, window: 10, partitions: 1, wantSev: finding.SeverityCritical, wantShare: 0.7},
		// Three keys read evenly: the key estimate reads the floor (128),
		// the bytes say ~3 partitions (1 MiB on this third of the ring), so half
		// the reads of one key is within twice its fair share.
		{name: "few partitions by bytes, the key estimate at its floor", count: 500, total: 1000, window: 10, partitions: 128, disk: 1 * mib, mean: 1 * mib},
		{name: "no sampler total: table rate × window", count: 300, window: 10, readRate: 100, wantSev: finding.SeverityWarning, wantShare: 0.3,
			inText: []string{"table rate × window"}},
		// A cut list's counts are a lower bound of the window's operations:
		// over them the share is an upper bound, judged only beside a rate.
		{name: "no total, no rate: the listed counts alone judge nothing", count: 300, window: 10, others: []int64{100, 100}},
		{name: "no total, a rate under the listed counts: their sum, at most", count: 300, window: 10, readRate: 20, others: []int64{100, 100},
			wantSev: finding.SeverityCritical, wantShare: 0.6, inText: []string{"takes at most 60 %", "300 ± 0 of 500 operations, sum of sampled keys; the node's list was cut"}},
		{name: "no total, a rate over the listed counts: the rate", count: 300, window: 10, readRate: 60, others: []int64{100, 100},
			wantSev: finding.SeverityWarning, wantShare: 0.5, inText: []string{"takes 50 %", "of 600 operations, table rate × window"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newSnap().ring("dc1", 3).keyspace("ks", simple("1"), table("t", pk("k", "text", 0)))
			b.stats("h01", "ks", "t", model.TableStats{PartitionsEstimate: c.partitions, DiskUsageBytes: c.disk, MeanPartitionBytes: c.mean,
				LocalReads: model.Ops{Count: 1e6, Rate: c.readRate}})
			hp := []model.HotPartition{{Keyspace: "ks", Table: "t", Key: "hot", Op: "read", Count: c.count, Error: c.err,
				Total: c.total, Window: c.window, Source: "rest"}}
			for i, o := range c.others {
				hp = append(hp, model.HotPartition{Keyspace: "ks", Table: "t", Key: "other" + itoa(i), Op: "read", Count: o, Window: c.window, Source: "rest"})
			}
			b.nodeData("h01").HotPartitions = hp
			if c.readRate == 0 {
				b.s.PerNode["h01"].Tables["ks.t"].LocalReads.Rate = -1
			}
			fs := ruleHotPartition(analysisOf(t, b.s))
			if c.wantSev == finding.SeverityNone {
				if len(fs) != 0 {
					t.Fatalf("want none, got %+v", fs)
				}
				return
			}
			if len(fs) != 1 {
				t.Fatalf("want one finding, got %+v", fs)
			}
			f := fs[0]
			if f.Severity != c.wantSev || math.Abs(f.Value-c.wantShare) > 1e-9 || f.PartitionKey != "hot" || f.Unit != finding.UnitRatio || f.Node != "10.0.0.1" || len(f.Nodes) != 1 {
				t.Fatalf("got %v share %g key %q node %q, want %v %g", f.Severity, f.Value, f.PartitionKey, f.Node, c.wantSev, c.wantShare)
			}
			for _, s := range c.inText {
				if !strings.Contains(f.Summary+" | "+f.Advice, s) {
					t.Errorf("missing %q in %q | %q", s, f.Summary, f.Advice)
				}
			}
		})
	}
}

// trafficSnap: three nodes of dc1 with evenly spaced tokens; keyspace ks
// with the given replication; table t with each node's reads and writes
// per second (as the collector's Rate).
func trafficSnap(repl map[string]string, reads, writes []float64) *model.Snapshot {
	b := newSnap().ring("dc1", len(reads)).keyspace("ks", repl, table("t", pk("k", "text", 0)))
	for i := range reads {
		b.stats(hostID(i+1), "ks", "t", model.TableStats{
			LocalReads:  model.Ops{Count: 1e6, Rate: reads[i]},
			LocalWrites: model.Ops{Count: 1e6, Rate: writes[i]},
		})
	}
	return b.s
}

func TestRuleHotTokenRange(t *testing.T) {
	cases := []struct {
		name          string
		repl          map[string]string
		reads, writes []float64
		want          []match
		wantSev       finding.Severity
		wantValue     float64
		wantThreshold float64
		inText        []string
	}{
		{name: "balanced", repl: simple("1"), reads: []float64{100, 100, 100}, writes: []float64{10, 10, 10}},
		{name: "RF 1: just under twice the fair share", repl: simple("1"), reads: []float64{199, 50.5, 50.5}, writes: []float64{0, 0, 0}},
		{name: "RF 1: twice the fair share", repl: simple("1"), reads: []float64{200, 50, 50}, writes: []float64{0, 0, 0},
			want: []match{{KindHotTokenRange, "ks", "t", "10.0.0.1", ""}}, wantSev: finding.SeverityWarning, wantValue: 2, wantThreshold: 2,
			inText: []string{"10.0.0.1 serves 67 % of ks.t's local reads in the ring (200 ops/s of 300 ops/s) for a 33 % share", "nodetool -h 10.0.0.1 toppartitions ks t"}},
		{name: "idle table under the floor", repl: simple("1"), reads: []float64{0.6, 0.1, 0.1}, writes: []float64{0, 0, 0}},
		{name: "a replica without a rate: no share", repl: simple("1"), reads: []float64{300, -1, 10}, writes: []float64{0, 0, 0}},
		// RF 2 on 3 nodes: a hot key's writes reach 1.5× on its two replicas
		// at most, so the warning level drops to 1.25.
		{name: "RF 2 writes: hot replica set", repl: simple("2"), reads: []float64{0, 0, 0}, writes: []float64{100, 100, 2},
			want:    []match{{KindHotTokenRange, "ks", "t", "10.0.0.1", ""}, {KindHotTokenRange, "ks", "t", "10.0.0.2", ""}},
			wantSev: finding.SeverityWarning, wantThreshold: 1.25, inText: []string{"replica set 10.0.0.2"}},
		{name: "RF 3 on 3 nodes: every node holds everything", repl: simple("3"), reads: []float64{1000, 1, 1}, writes: []float64{5, 5, 5}},
		{name: "critical", repl: nts("dc1", "1"), reads: []float64{1, 1, 1, 1, 1, 1, 1, 1, 100, 1}, writes: make([]float64, 10),
			want: []match{{KindHotTokenRange, "ks", "t", "10.0.0.9", ""}}, wantSev: finding.SeverityCritical, wantThreshold: 4,
			inText: []string{"in dc1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := ruleHotTokenRange(analysisOf(t, trafficSnap(c.repl, c.reads, c.writes)))
			got := scopes(fs)
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v\n%+v", got, c.want, fs)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("got %v, want %v", got, c.want)
				}
				f := fs[i]
				// Ownership shares are rounded to 6 decimals, as nodetool does.
				if f.Severity != c.wantSev || math.Abs(f.Threshold-c.wantThreshold) > 1e-5 || f.Unit != finding.UnitRatio {
					t.Fatalf("got %v threshold %g, want %v %g", f.Severity, f.Threshold, c.wantSev, c.wantThreshold)
				}
				if c.wantValue > 0 && math.Abs(f.Value-c.wantValue) > 1e-3 {
					t.Fatalf("value %g, want %g", f.Value, c.wantValue)
				}
			}
			for _, s := range c.inText {
				if len(fs) == 0 || !strings.Contains(fs[0].Summary+" | "+fs[0].Advice, s) {
					t.Errorf("missing %q in %+v", s, fs)
				}
			}
		})
	}
}

func TestRatesFromHistoryWindow(t *testing.T) {
	// Counters 15 minutes apart: the rate is their delta over the window,
	// whatever the collector's one-interval rate says.
	s := trafficSnap(simple("1"), []float64{999, 999, 999}, []float64{0, 0, 0})
	h := history.New(history.Limits{TrafficWindow: 15 * time.Minute})
	before := trafficSnap(simple("1"), []float64{0, 0, 0}, []float64{0, 0, 0})
	before.Taken = t0.Add(-15 * time.Minute)
	for i, host := range []string{"h01", "h02", "h03"} {
		before.PerNode[host].Tables["ks.t"].LocalReads.Count = 1e6 - int64(900*(3-i)*100)
	}
	record(h, before)
	record(h, s) // recording the analyzed snapshot first changes nothing
	a := analysisWith(t, s, h, DefaultThresholds())
	for i, tn := range a.tables[0].nodes {
		want := float64(900*(3-i)*100) / 900
		if math.Abs(tn.readRate-want) > 1e-9 {
			t.Errorf("%s: rate %g, want %g", tn.node.Address, tn.readRate, want)
		}
	}
	if got := a.tables[0].readRate; math.Abs(got-600) > 1e-9 {
		t.Errorf("table read rate %g, want 600", got)
	}
}

// TestHotPartitionNodes: the finding names the replicas where the key is
// hot, each with its share, and not the replica where it is not.
func TestHotPartitionNodes(t *testing.T) {
	b := newSnap().ring("dc1", 3).keyspace("ks", simple("3"), table("t", pk("k", "text", 0)))
	for node, count := range map[string]int64{"h01": 900, "h02": 400, "h03": 100} {
		b.stats(node, "ks", "t", model.TableStats{LocalReads: model.Ops{Count: 1e6}})
		b.nodeData(node).HotPartitions = []model.HotPartition{{Keyspace: "ks", Table: "t", Key: "hot", Op: "read",
			Count: count, Total: 1000, Window: 10, Source: "rest"}}
	}
	fs := ruleHotPartition(analysisOf(t, b.s))
	if len(fs) != 1 {
		t.Fatalf("want one finding per key, got %+v", fs)
	}
	f := fs[0]
	want := []finding.NodeValue{
		{Node: "10.0.0.1", DC: "dc1", Value: 0.9, Severity: finding.SeverityCritical},
		{Node: "10.0.0.2", DC: "dc1", Value: 0.4, Severity: finding.SeverityWarning},
	}
	if f.Severity != finding.SeverityCritical || f.Value != 0.9 || f.Node != "" || f.DC != "dc1" || len(f.Nodes) != len(want) {
		t.Fatalf("got %v %g node %q dc %q nodes %+v", f.Severity, f.Value, f.Node, f.DC, f.Nodes)
	}
	for i, w := range want {
		g := f.Nodes[i]
		if g.Node != w.Node || g.DC != w.DC || math.Abs(g.Value-w.Value) > 1e-9 || g.Severity != w.Severity || g.Threshold <= 0 {
			t.Errorf("node %d: got %+v, want %+v", i, g, w)
		}
	}
}

// A key's share is that of its hottest sample above the traffic floor: on
// the truth corpus's timeline the WRITES sampler saw 3 of 4 writes of the hot
// user (75 %, 0.3 ops/s) while the READS sampler saw it in hundreds of
// pages; judging the 75 % alone dropped the key as idle.
func TestHotPartitionJudgesSamplesAboveTheFloor(t *testing.T) {
	writes := model.HotPartition{Keyspace: "ks", Table: "t", Key: "hot", Op: "write", Count: 3, Total: 4, Window: 10, Source: "nodetool"}
	reads := model.HotPartition{Keyspace: "ks", Table: "t", Key: "hot", Op: "read", Count: 300, Total: 1000, Window: 10, Source: "nodetool"}
	cases := []struct {
		name      string
		h01, h02  []model.HotPartition
		wantShare float64 // 0: no finding
		wantNodes []string
	}{
		{name: "a small hot write sample and a busy read sample", h01: []model.HotPartition{writes}, h02: []model.HotPartition{reads},
			wantShare: 0.3, wantNodes: []string{"10.0.0.2"}},
		{name: "both on one node", h01: []model.HotPartition{writes, reads}, wantShare: 0.3, wantNodes: []string{"10.0.0.1"}},
		{name: "only the small sample", h01: []model.HotPartition{writes}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newSnap().ring("dc1", 3).keyspace("ks", simple("3"), table("t", pk("k", "text", 0)))
			for node, hp := range map[string][]model.HotPartition{"h01": c.h01, "h02": c.h02} {
				b.stats(node, "ks", "t", model.TableStats{LocalReads: model.Ops{Count: 1e6}, LocalWrites: model.Ops{Count: 1e6}})
				b.nodeData(node).HotPartitions = hp
			}
			fs := ruleHotPartition(analysisOf(t, b.s))
			if c.wantShare == 0 {
				if len(fs) != 0 {
					t.Fatalf("want none, got %+v", fs)
				}
				return
			}
			if len(fs) != 1 || math.Abs(fs[0].Value-c.wantShare) > 1e-9 || !strings.Contains(fs[0].Summary, "sampled reads") {
				t.Fatalf("want one finding of share %g from the reads, got %+v", c.wantShare, fs)
			}
			var nodes []string
			for _, n := range fs[0].Nodes {
				nodes = append(nodes, n.Node)
			}
			if strings.Join(nodes, ",") != strings.Join(c.wantNodes, ",") {
				t.Errorf("nodes %v, want %v", nodes, c.wantNodes)
			}
		})
	}
}

// The cell histogram of nodetool tablehistograms bounds a partition's rows
// whatever the reads page or limit: (floor − statics) ÷ cells a row.
func TestRuleWidePartitionFromCells(t *testing.T) {
	hotel := []model.Column{col("guest_name", "text"), col("guest_email", "text"), col("room_number", "int"),
		col("room_type", "text"), col("total_amount", "double"), col("status", "text")}
	static := model.Column{Name: "hotel_name", Kind: "static", Type: "text"}
	cases := []struct {
		name     string
		cols     []model.Column
		cells    int64
		perRead  float64 // rows_per_read max
		wantSev  finding.Severity
		wantRows float64
		inText   []string
		wantNote string
	}{
		// Truth corpus scenario 18: 150,000 rows × 6 cells = 900,000 cells,
		// bucket (785,939, 943,127]: at least 130,990 rows, read with LIMIT 500.
		{name: "the hotel read with LIMIT 500", cols: hotel, cells: 943_127, perRead: 500, wantSev: finding.SeverityWarning, wantRows: 130_990,
			inText: []string{"one sstable on 10.0.0.1 holds 785,940 to 943,127 cells of one partition of ks.t (nodetool tablehistograms Cell Count max",
				"a row writes no more than 6 cells (6 regular columns, none multi-cell), so a partition holds at least 130,990 rows"}},
		{name: "a static cell counts once", cols: append([]model.Column{static}, col("v", "int")), cells: 126_934, wantSev: finding.SeverityWarning, wantRows: 105_778,
			inText: []string{"less 1 static"}},
		{name: "under the warning", cols: hotel, cells: 654_949}, // at least 90,965 rows
		{name: "critical from cells", cols: []model.Column{col("v", "blob")}, cells: 1_358_102, wantSev: finding.SeverityCritical, wantRows: 1_131_753},
		{name: "overflowed histogram", cols: []model.Column{col("a", "int"), col("b", "int")}, cells: math.MaxInt64, wantSev: finding.SeverityCritical, wantRows: 2_069_555_491},
		{name: "frozen and tuple columns are one cell", cols: []model.Column{col("a", "frozen<list<int>>"), col("b", "frozen<tuple<int, text>>")},
			cells: 263_210, wantSev: finding.SeverityWarning, wantRows: 109_671},
		// A list writes a cell per element: 943,127 cells may be 10 rows.
		{name: "a collection bounds nothing", cols: []model.Column{col("tags", "list<text>")}, cells: 943_127, perRead: 500,
			wantNote: "wide_partition of ks.t unknown: its largest partition fragment is up to 22 MiB"},
		{name: "a non-frozen user type bounds nothing", cols: []model.Column{col("addr", "address")}, cells: 943_127},
		{name: "key columns only: no cells", cols: nil, cells: 943_127},
		{name: "rows per read counts more: it speaks, at warning", cols: hotel, cells: 943_127, perRead: 1_358_102, wantSev: finding.SeverityWarning, wantRows: 1_131_753,
			inText: []string{"a read command on 10.0.0.1 iterated"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cols := append([]model.Column{pk("hotel_id", "uuid", 0), ck("check_in_date", "date", 0, "asc")}, c.cols...)
			b := newSnap().ring("dc1", 1).keyspace("ks", simple("1"), table("t", cols...))
			b.stats("h01", "ks", "t", model.TableStats{MaxPartitionBytes: 22 * mib, MeanPartitionBytes: 1 * kib, MaxCellsPerPartition: c.cells,
				RowsPerRead: model.Distribution{Count: 10, P50: c.perRead, P99: c.perRead, Max: c.perRead}})
			a := analysisOf(t, b.s)
			fs := ruleWidePartition(a)
			if c.wantNote != "" && !strings.Contains(strings.Join(a.notes, "|"), c.wantNote) {
				t.Errorf("notes %q lack %q", a.notes, c.wantNote)
			}
			if c.wantSev == finding.SeverityNone {
				if len(fs) != 0 {
					t.Fatalf("want none, got %+v", fs)
				}
				return
			}
			if len(fs) != 1 {
				t.Fatalf("want one finding, got %+v", fs)
			}
			f := fs[0]
			if f.Severity != c.wantSev || f.Value != c.wantRows || f.Figures.Rows != c.wantRows || f.PartitionKey != "" {
				t.Fatalf("got %v %g rows (figures %+v) key %q, want %v %g", f.Severity, f.Value, f.Figures, f.PartitionKey, c.wantSev, c.wantRows)
			}
			for _, s := range c.inText {
				if !strings.Contains(f.Summary, s) {
					t.Errorf("missing %q in %q", s, f.Summary)
				}
			}
		})
	}
}

// The one-shot samples twice (collector.SampleAgain): a key is graded at
// the lower of its two windows on a node (docs/detection.md: a
// key at 24 % of its node is graded warning in ~2 % of single windows).
func TestHotKeyGradedAtTheLowerOfTwoWindows(t *testing.T) {
	window := func(pass int, count int64) model.HotPartition {
		return model.HotPartition{Keyspace: "ks", Table: "t", Key: "hot", Op: "read", Count: count, Total: 1000, Window: 10, Source: "nodetool", Pass: pass}
	}
	cases := []struct {
		name      string
		hps       []model.HotPartition
		wantSev   finding.Severity
		wantShare float64
	}{
		{name: "one window: graded on it", hps: []model.HotPartition{window(0, 300)}, wantSev: finding.SeverityWarning, wantShare: 0.3},
		{name: "an unlucky first window, an ordinary second: not hot", hps: []model.HotPartition{window(0, 300), window(1, 240)}},
		{name: "hot in both: graded at the lower", hps: []model.HotPartition{window(0, 600), window(1, 320)}, wantSev: finding.SeverityWarning, wantShare: 0.32},
		{name: "critical in both", hps: []model.HotPartition{window(0, 900), window(1, 800)}, wantSev: finding.SeverityCritical, wantShare: 0.8},
		{name: "missing from the second window's list: not graded", hps: []model.HotPartition{window(0, 900),
			{Keyspace: "ks", Table: "t", Key: "other", Op: "read", Count: 500, Total: 1000, Window: 10, Pass: 1}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newSnap().ring("dc1", 3).keyspace("ks", simple("1"), table("t", pk("k", "text", 0)))
			b.stats("h01", "ks", "t", model.TableStats{LocalReads: model.Ops{Count: 1e6, Rate: 100}})
			b.nodeData("h01").HotPartitions = c.hps
			var hot []finding.Finding
			for _, f := range ruleHotPartition(analysisOf(t, b.s)) {
				if f.PartitionKey == "hot" {
					hot = append(hot, f)
				}
			}
			if c.wantSev == finding.SeverityNone {
				if len(hot) != 0 {
					t.Fatalf("want none, got %+v", hot)
				}
				return
			}
			if len(hot) != 1 || hot[0].Severity != c.wantSev || math.Abs(hot[0].Value-c.wantShare) > 1e-9 {
				t.Fatalf("got %+v, want %v at %g", hot, c.wantSev, c.wantShare)
			}
			if two := strings.Contains(hot[0].Summary, "the lower of 2 sampler windows"); two != (len(c.hps) > 1) {
				t.Errorf("summary %q: says two windows %v, want %v", hot[0].Summary, two, len(c.hps) > 1)
			}
		})
	}
}

// Hashed mode shows a key as its hash wherever the key's text appears, so
// the advice names the key once and speaks of "the key" and its suffixes:
// "h:c58b…#0" read as a hash to be hashed again. A plain key reads the same.
func TestHotKeyAdviceNamesTheKeyOnce(t *testing.T) {
	b := newSnap().ring("dc1", 3).keyspace("ks", simple("1"))
	a := analysisOf(t, b.s)
	for _, key := range []string{"alice@example.org", "42"} {
		advice := hotPartitions{a}.hotKeyAdvice(&hotKey{key: key, op: "read", node: &a.s.Nodes[0], share: 0.9})
		if n := strings.Count(advice, key); n != 1 {
			t.Errorf("key %q named %d times: %s", key, n, advice)
		}
		for _, s := range []string{"over 3 suffix buckets", "the key becomes 3 partitions: the key with each suffix", "bucket column 0..2"} {
			if !strings.Contains(advice, s) {
				t.Errorf("advice lacks %q: %s", s, advice)
			}
		}
		if strings.Contains(advice, "#") {
			t.Errorf("advice writes a suffix onto the key: %s", advice)
		}
	}
}
