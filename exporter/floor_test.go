package exporter

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/tools/reporttest"
)

// floorReport has one table node per reason to keep or hide its families,
// on node 127.0.0.1 of the hand-built cluster.
func floorReport() *analyzer.Report {
	const mib = 1 << 20
	r := reporttest.Cluster()
	r.Findings = append(r.Findings, finding.Finding{Kind: analyzer.KindLowCardinalityKey, Severity: finding.SeverityWarning,
		Keyspace: "lint", Table: "flagged"})
	tn := func(table string, edit func(*analyzer.TableNode)) analyzer.TableNode {
		t := analyzer.TableNode{Keyspace: "lint", Table: table, HostID: "h1", Node: "127.0.0.1", DC: "dc1", Rack: "r1"}
		t.PartitionsEstimate, t.MeanPartitionBytes, t.MaxPartitionBytes, t.DiskUsageBytes = 10, 100, 2048, 64<<10
		t.LocalReads = model.Ops{Count: 5, Rate: 0}
		t.LocalWrites = model.Ops{Count: 5, Rate: -1}
		t.TombstonesPerRead = model.Distribution{Count: 5, P99: 2}
		edit(&t)
		return t
	}
	r.TableNodes = append(r.TableNodes,
		tn("small_idle", func(*analyzer.TableNode) {}),
		tn("big", func(t *analyzer.TableNode) { t.DiskUsageBytes = 2 << 30 }),
		tn("busy_reads", func(t *analyzer.TableNode) { t.LocalReads.Rate = 40 }),
		tn("busy_first_cycle", func(t *analyzer.TableNode) { t.LocalWrites.PerSecond = 3 }), // no measured rate yet
		tn("busy_no_tombstones", func(t *analyzer.TableNode) { t.LocalReads.Rate, t.TombstonesPerRead.P99 = 40, 0 }),
		tn("flagged", func(*analyzer.TableNode) {}),
		tn("oversized", func(t *analyzer.TableNode) { t.MaxPartitionBytes = 60 * mib }),
		tn("tombstones", func(t *analyzer.TableNode) { t.TombstonesPerRead = model.Distribution{Count: 9, P99: 1500} }),
		tn("skewed", func(t *analyzer.TableNode) { t.ReadSkew, t.ReadRate = 2.5, 3 }),
		tn("at_floor_disk", func(t *analyzer.TableNode) { t.DiskUsageBytes = 1 * mib }),
	)
	return r
}

var tableNodeFamilies = []string{
	"partmon_table_max_partition_size_bytes", "partmon_table_mean_partition_size_bytes", "partmon_table_partitions",
	"partmon_table_disk_usage_bytes", "partmon_table_local_reads_total", "partmon_table_local_writes_total",
	"partmon_table_tombstones_per_read_p99", "partmon_table_traffic_skew_ratio",
}

// hiddenParts says what the floor leaves out of one lint table node.
type hiddenParts struct{ size, traffic, zeroTombstones bool }

// withoutHidden is floorReport with the hidden families' figures zeroed, as
// an exporter without a floor then leaves them out: the oracle.
func withoutHidden(hidden map[string]hiddenParts) *analyzer.Report {
	r := floorReport()
	for i := range r.TableNodes {
		tn := &r.TableNodes[i]
		h, ok := hidden[tn.Table]
		if tn.Keyspace != "lint" || !ok {
			continue
		}
		if h.size {
			tn.MaxPartitionBytes, tn.MeanPartitionBytes, tn.PartitionsEstimate, tn.DiskUsageBytes = 0, 0, 0, 0
		}
		if h.traffic {
			tn.LocalReads.Count, tn.LocalWrites.Count, tn.ReadSkew, tn.WriteSkew = 0, 0, 0, 0
		}
		if h.traffic || h.zeroTombstones {
			tn.TombstonesPerRead = model.Distribution{}
		}
	}
	return r
}

func TestTableFloor(t *testing.T) {
	size, traffic := hiddenParts{size: true}, hiddenParts{traffic: true}
	both := hiddenParts{size: true, traffic: true}
	// At 1 MiB and any operation, on a node past min_tables.
	oneMiB := map[string]hiddenParts{
		"small_idle": both, "big": traffic, "busy_reads": size, "busy_first_cycle": size,
		"busy_no_tombstones": {size: true, zeroTombstones: true}, "at_floor_disk": traffic,
	}
	tests := []struct {
		name   string
		floor  TableFloor
		mode   publish.Mode
		hidden map[string]hiddenParts
		// series: how many series the node says the floor left out: 4 size
		// families, 3 traffic ones with a figure (no skew), and zero tombstones.
		series int
	}{
		{"off", TableFloor{}, publish.ModeCluster, nil, 0},
		{"parts set but not enabled", TableFloor{DiskBytes: 1 << 20, OpsPerSecond: 1}, publish.ModeCluster, nil, 0},
		{"node under min_tables", TableFloor{Enabled: true, MinTables: 100, DiskBytes: 1 << 20}, publish.ModeCluster, nil, 0},
		{"1 MiB, any operation", TableFloor{Enabled: true, DiskBytes: 1 << 20}, publish.ModeCluster, oneMiB, 4*4 + 3*3 + 1},
		{"1 MiB, any operation, sidecar", TableFloor{Enabled: true, DiskBytes: 1 << 20}, publish.ModeSidecar, oneMiB, 4*4 + 3*3 + 1},
		{"4 MiB and 5 op/s", TableFloor{Enabled: true, DiskBytes: 4 << 20, OpsPerSecond: 5}, publish.ModeCluster, map[string]hiddenParts{
			"small_idle": both, "big": traffic, "busy_reads": size, "busy_first_cycle": both,
			"busy_no_tombstones": {size: true, zeroTombstones: true}, "at_floor_disk": both,
		}, 4*5 + 3*4 + 1},
		{"above everything", TableFloor{Enabled: true, DiskBytes: 1 << 40, OpsPerSecond: 1e6}, publish.ModeCluster, map[string]hiddenParts{
			"small_idle": both, "big": both, "busy_reads": both, "busy_first_cycle": both, "busy_no_tombstones": both, "at_floor_disk": both,
		}, 4*6 + 3*6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			eLatest := &publish.Latest{}
			e := New(eLatest, Options{Mode: tc.mode, TableFloor: tc.floor, BuildInfo: fixtureBuild})
			eLatest.Publish(floorReport())

			oracleLatest := &publish.Latest{}
			oracle := New(oracleLatest, Options{Mode: tc.mode, BuildInfo: fixtureBuild})
			oracleLatest.Publish(withoutHidden(tc.hidden))
			want := exposition(t, oracle, tableNodeFamilies)
			if err := testutil.CollectAndCompare(e, strings.NewReader(want), tableNodeFamilies...); err != nil {
				t.Error(err)
			}
			// The node says what was left out, and its totals count every table.
			got := exposition(t, filteredNode(e, "127.0.0.1"), []string{"partmon_node_table_series_below_floor", "partmon_node_tables"})
			if !strings.Contains(got, fmt.Sprintf("partmon_node_table_series_below_floor{cluster=\"demo\",dc=\"dc1\",node=\"127.0.0.1\",rack=\"r1\"} %d\n", tc.series)) {
				t.Errorf("below-floor count, want %d:\n%s", tc.series, got)
			}
			// Everything else is untouched: the shop tables of the fixture keep all their series.
			if n := testutil.CollectAndCount(filtered(e, "shop", ""), tableNodeFamilies...); n != testutil.CollectAndCount(filtered(oracle, "shop", ""), tableNodeFamilies...) || n == 0 {
				t.Errorf("shop tables: %d series", n)
			}
		})
	}
}

// TestNodeTotalsCountHiddenTables: the node's disk and table count include
// what the floor leaves out, so node roll-ups stay exact with it on.
func TestNodeTotalsCountHiddenTables(t *testing.T) {
	for _, floor := range []TableFloor{{}, {Enabled: true, DiskBytes: 1 << 40, OpsPerSecond: 1e6}} {
		latest := &publish.Latest{}
		e := New(latest, Options{Mode: publish.ModeCluster, TableFloor: floor, BuildInfo: fixtureBuild})
		r := floorReport()
		latest.Publish(r)
		var disk float64
		tables := 0
		for _, tn := range r.TableNodes {
			if tn.Node == "127.0.0.1" {
				disk += float64(tn.DiskUsageBytes)
				tables++
			}
		}
		want := fmt.Sprintf(`# HELP partmon_node_disk_usage_bytes Disk space used by the live sstables of all of the node's tables, in bytes (cached from the last collection cycle).
# TYPE partmon_node_disk_usage_bytes gauge
partmon_node_disk_usage_bytes{cluster="demo",dc="dc1",node="127.0.0.1",rack="r1"} %g
# HELP partmon_node_tables Tables the node holds (Cassandra's own included) (cached from the last collection cycle).
# TYPE partmon_node_tables gauge
partmon_node_tables{cluster="demo",dc="dc1",node="127.0.0.1",rack="r1"} %d
`, disk, tables)
		if err := testutil.CollectAndCompare(filteredNode(e, "127.0.0.1"), strings.NewReader(want), "partmon_node_disk_usage_bytes", "partmon_node_tables"); err != nil {
			t.Errorf("floor %+v: %v", floor, err)
		}
	}
}

// TestGrowthBelowFloor: past min_tables a flat table publishes no growth
// series; a growing one (and every table under min_tables) does.
func TestGrowthBelowFloor(t *testing.T) {
	r := floorReport()
	r.Tables = []analyzer.TableSummary{
		{Keyspace: "lint", Table: "flat", SecondsToCritical: -1},
		{Keyspace: "lint", Table: "growing", GrowthBytesPerSecond: 12, SecondsToCritical: 3600},
	}
	for _, tc := range []struct {
		floor TableFloor
		want  int
	}{{TableFloor{}, 2}, {TableFloor{Enabled: true, MinTables: 2}, 2}, {TableFloor{Enabled: true, MinTables: 1}, 1}} {
		latest := &publish.Latest{}
		e := New(latest, Options{Mode: publish.ModeCluster, TableFloor: tc.floor, BuildInfo: fixtureBuild})
		latest.Publish(r)
		if got := testutil.CollectAndCount(e, "partmon_table_partition_growth_bytes_per_second"); got != tc.want {
			t.Errorf("floor %+v: %d growth series, want %d", tc.floor, got, tc.want)
		}
		if got := testutil.CollectAndCount(e, "partmon_table_partition_size_forecast_seconds"); got != 1 {
			t.Errorf("floor %+v: %d forecast series, want 1", tc.floor, got)
		}
	}
}

func TestTableFloorValidate(t *testing.T) {
	for _, tc := range []struct {
		floor TableFloor
		ok    bool
	}{
		{TableFloor{}, true}, {DefaultTableFloor(), true}, {TableFloor{Enabled: true, OpsPerSecond: 0.5}, true},
		{TableFloor{MinTables: -1}, false}, {TableFloor{DiskBytes: -1}, false},
		{TableFloor{OpsPerSecond: math.NaN()}, false}, {TableFloor{OpsPerSecond: math.Inf(1)}, false},
	} {
		if err := tc.floor.Validate(); (err == nil) != tc.ok {
			t.Errorf("%+v: Validate() = %v, want ok %v", tc.floor, err, tc.ok)
		}
	}
}

// exposition is the text format of families of c, as testutil compares it.
func exposition(t *testing.T, c prometheus.Collector, families []string) string {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, mf := range mfs {
		if slices.Contains(families, mf.GetName()) {
			if _, err := expfmt.MetricFamilyToText(&buf, mf); err != nil {
				t.Fatal(err)
			}
		}
	}
	return buf.String()
}

// byLabels passes on the metrics of c whose labels keep accepts.
type byLabels struct {
	c    prometheus.Collector
	keep func(labels map[string]string) bool
}

func (f byLabels) Describe(ch chan<- *prometheus.Desc) { f.c.Describe(ch) }

func (f byLabels) Collect(ch chan<- prometheus.Metric) {
	all := make(chan prometheus.Metric)
	go func() { f.c.Collect(all); close(all) }()
	for m := range all {
		pb := &dto.Metric{}
		if err := m.Write(pb); err == nil && f.keep(labelsOf(pb)) {
			ch <- m
		}
	}
}

// filteredNode passes on the metrics of one node.
func filteredNode(c prometheus.Collector, node string) byLabels {
	return byLabels{c, func(l map[string]string) bool { return l["node"] == node }}
}

// filtered passes on the metrics of one keyspace (and table, when set).
func filtered(c prometheus.Collector, keyspace, table string) byLabels {
	return byLabels{c, func(l map[string]string) bool {
		return l["keyspace"] == keyspace && (table == "" || l["table"] == table)
	}}
}

// TestNodeOperationRates: a node's reads and writes per second are the sum
// of its tables' five-minute moving rates, partmon's own rate standing in
// for a table whose source gives none, an unknown rate counting 0.
func TestNodeOperationRates(t *testing.T) {
	r := reporttest.Cluster()
	r.TableNodes = nil
	for i, ops := range []struct{ reads, writes model.Ops }{
		{model.Ops{Count: 100, PerSecond: 5, Rate: 9}, model.Ops{Count: 100, PerSecond: 0.5, Rate: 1}},
		{model.Ops{Count: 100, Rate: 2}, model.Ops{Count: 100, Rate: 0.25}},
		{model.Ops{Count: 100, Rate: -1}, model.Ops{Count: 0, Rate: -1}},
	} {
		tn := analyzer.TableNode{Keyspace: "ks", Table: fmt.Sprint("t", i), HostID: "h1", Node: "127.0.0.1", DC: "dc1", Rack: "r1"}
		tn.LocalReads, tn.LocalWrites = ops.reads, ops.writes
		r.TableNodes = append(r.TableNodes, tn)
	}
	latest := &publish.Latest{}
	e := New(latest, Options{Mode: publish.ModeSidecar, TableFloor: DefaultTableFloor(), BuildInfo: fixtureBuild})
	latest.Publish(r)
	want := `# HELP partmon_node_local_reads_per_second Local reads per second of all of the node's tables: the sum of Cassandra's five-minute moving rates (system_views per_second), or of partmon's rate between two cycles where a table has none (cached from the last collection cycle).
# TYPE partmon_node_local_reads_per_second gauge
partmon_node_local_reads_per_second{cluster="demo",dc="dc1",node="127.0.0.1",rack="r1"} 7
# HELP partmon_node_local_writes_per_second Local writes per second of all of the node's tables: the sum of Cassandra's five-minute moving rates (system_views per_second), or of partmon's rate between two cycles where a table has none (cached from the last collection cycle).
# TYPE partmon_node_local_writes_per_second gauge
partmon_node_local_writes_per_second{cluster="demo",dc="dc1",node="127.0.0.1",rack="r1"} 0.75
`
	if err := testutil.CollectAndCompare(e, strings.NewReader(want), "partmon_node_local_reads_per_second", "partmon_node_local_writes_per_second"); err != nil {
		t.Error(err)
	}
}
