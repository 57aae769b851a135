package exporter

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/tools/reporttest"
)

// floorReport has one table node per reason to keep or hide it, on node
// 127.0.0.1 of the hand-built cluster.
func floorReport() *analyzer.Report {
	const mib = 1 << 20
	r := reporttest.Cluster()
	r.Findings = append(r.Findings, analyzer.Finding{Kind: analyzer.KindLowCardinalityKey, Severity: analyzer.SeverityWarning,
		Keyspace: "lint", Table: "flagged"})
	tn := func(table string, edit func(*analyzer.TableNode)) analyzer.TableNode {
		t := analyzer.TableNode{Keyspace: "lint", Table: table, HostID: "h1", Node: "127.0.0.1", DC: "dc1", Rack: "r1"}
		t.PartitionsEstimate, t.MeanPartitionBytes, t.MaxPartitionBytes, t.DiskUsageBytes = 10, 100, 2048, 64<<10
		t.LocalReads = model.Ops{Count: 5, Rate: 0.01}
		t.LocalWrites = model.Ops{Count: 5, Rate: -1}
		edit(&t)
		return t
	}
	r.TableNodes = append(r.TableNodes,
		tn("small_idle", func(*analyzer.TableNode) {}),
		tn("big", func(t *analyzer.TableNode) { t.DiskUsageBytes = 2 << 30 }),
		tn("busy_reads", func(t *analyzer.TableNode) { t.LocalReads.Rate = 40 }),
		tn("busy_first_cycle", func(t *analyzer.TableNode) { t.LocalWrites.PerSecond = 3 }), // no measured rate yet
		tn("flagged", func(*analyzer.TableNode) {}),
		tn("oversized", func(t *analyzer.TableNode) { t.MaxPartitionBytes = 60 * mib }),
		tn("tombstones", func(t *analyzer.TableNode) { t.TombstonesPerRead = model.Distribution{Count: 9, P99: 1500} }),
		tn("skewed", func(t *analyzer.TableNode) { t.ReadSkew = 2.5 }),
		tn("at_floor_disk", func(t *analyzer.TableNode) { t.DiskUsageBytes = 1 * mib }),
	)
	return r
}

var tableNodeFamilies = []string{
	"partmon_table_max_partition_size_bytes", "partmon_table_mean_partition_size_bytes", "partmon_table_partitions",
	"partmon_table_disk_usage_bytes", "partmon_table_local_reads_total", "partmon_table_local_writes_total",
	"partmon_table_tombstones_per_read_p99", "partmon_table_traffic_skew_ratio",
}

func TestTableFloor(t *testing.T) {
	every := []string{"small_idle", "big", "busy_reads", "busy_first_cycle", "flagged", "oversized", "tombstones", "skewed", "at_floor_disk"}
	tests := []struct {
		name  string
		floor TableFloor
		mode  publish.Mode
		// hidden are the lint tables whose per-node series the floor drops.
		hidden []string
	}{
		{"off", TableFloor{}, publish.ModeCluster, nil},
		{"disk only is off", TableFloor{DiskBytes: 1 << 20}, publish.ModeCluster, nil},
		{"ops only is off", TableFloor{OpsPerSecond: 1}, publish.ModeCluster, nil},
		{"1 MiB and 1 op/s", TableFloor{DiskBytes: 1 << 20, OpsPerSecond: 1}, publish.ModeCluster, []string{"small_idle"}},
		{"1 MiB and 1 op/s, sidecar", TableFloor{DiskBytes: 1 << 20, OpsPerSecond: 1}, publish.ModeSidecar, []string{"small_idle"}},
		{"4 MiB and 5 op/s", TableFloor{DiskBytes: 4 << 20, OpsPerSecond: 5}, publish.ModeCluster, []string{"small_idle", "busy_first_cycle", "at_floor_disk"}},
		{"above everything", TableFloor{DiskBytes: 1 << 40, OpsPerSecond: 1e6}, publish.ModeCluster,
			[]string{"small_idle", "big", "busy_reads", "busy_first_cycle", "at_floor_disk"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			full := floorReport()
			eLatest := &publish.Latest{}
			e := New(eLatest, Options{Mode: tc.mode, TableFloor: tc.floor, BuildInfo: fixtureBuild})
			eLatest.Publish(full)

			// The oracle: an exporter without a floor, given the report
			// without the hidden table nodes.
			trimmed := floorReport()
			trimmed.TableNodes = slices.DeleteFunc(trimmed.TableNodes, func(tn analyzer.TableNode) bool {
				return tn.Keyspace == "lint" && slices.Contains(tc.hidden, tn.Table)
			})
			oracleLatest := &publish.Latest{}
			oracle := New(oracleLatest, Options{Mode: tc.mode, BuildInfo: fixtureBuild})
			oracleLatest.Publish(trimmed)
			want := exposition(t, oracle, tableNodeFamilies)
			if err := testutil.CollectAndCompare(e, strings.NewReader(want), tableNodeFamilies...); err != nil {
				t.Error(err)
			}
			// And the kept tables are the ones named, no more.
			for _, table := range every {
				got := testutil.CollectAndCount(filtered{e, "lint", table}, "partmon_table_disk_usage_bytes")
				if wantN := 1 - boolCount(slices.Contains(tc.hidden, table)); got != wantN {
					t.Errorf("lint.%s: %d disk series, want %d", table, got, wantN)
				}
			}
			// Everything else is untouched: the shop tables of the fixture keep all their series.
			if n := testutil.CollectAndCount(filtered{e, "shop", ""}, tableNodeFamilies...); n != testutil.CollectAndCount(filtered{oracle, "shop", ""}, tableNodeFamilies...) || n == 0 {
				t.Errorf("shop tables: %d series", n)
			}
		})
	}
}

func boolCount(b bool) int {
	if b {
		return 1
	}
	return 0
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

// filtered passes on the metrics of one keyspace (and table, when set).
type filtered struct {
	c               prometheus.Collector
	keyspace, table string
}

func (f filtered) Describe(ch chan<- *prometheus.Desc) { f.c.Describe(ch) }

func (f filtered) Collect(ch chan<- prometheus.Metric) {
	all := make(chan prometheus.Metric)
	go func() { f.c.Collect(all); close(all) }()
	for m := range all {
		pb := &dto.Metric{}
		if err := m.Write(pb); err != nil {
			continue
		}
		l := labelsOf(pb)
		if l["keyspace"] == f.keyspace && (f.table == "" || l["table"] == f.table) {
			ch <- m
		}
	}
}
