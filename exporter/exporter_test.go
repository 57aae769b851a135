package exporter

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/tools/reporttest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// topKReport has more keys per table than the top-K bound lets through.
func topKReport() *analyzer.Report {
	r := &analyzer.Report{Cluster: "demo", Nodes: reporttest.Cluster().Nodes}
	for i := 1; i <= 5; i++ {
		r.TopPartitions = append(r.TopPartitions, analyzer.PartitionEntry{
			Keyspace: "shop", Table: "orders", Key: fmt.Sprintf("k%d", i),
			SizeBytes: int64(i) << 20, Tombstones: int64(10 * i), Nodes: []string{"127.0.0.1"},
		})
	}
	// The table's largest key lives on other replicas: it pushes k4 out.
	r.TopPartitions = append(r.TopPartitions, analyzer.PartitionEntry{
		Keyspace: "shop", Table: "orders", Key: "k6", SizeBytes: 6 << 20, Nodes: []string{"127.0.0.2", "127.0.0.3"}})
	// A key longer than a label may be, and keys with equal sizes.
	r.TopPartitions = append(r.TopPartitions,
		analyzer.PartitionEntry{Keyspace: "shop", Table: "events", Key: strings.Repeat("sensor-", 30), SizeBytes: 9 << 20, Nodes: []string{"127.0.0.2"}},
		analyzer.PartitionEntry{Keyspace: "shop", Table: "events", Key: "b", SizeBytes: 1 << 20, Nodes: []string{"127.0.0.2"}},
		analyzer.PartitionEntry{Keyspace: "shop", Table: "events", Key: "a", SizeBytes: 1 << 20, Nodes: []string{"127.0.0.2"}},
	)
	return r
}

func TestCollectGolden(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		reports []*analyzer.Report // published in order
		metrics []string           // families compared; all when empty
	}{
		{name: "cluster", opts: Options{Mode: publish.ModeCluster}, reports: []*analyzer.Report{reporttest.Cluster()}},
		{name: "sidecar", opts: Options{Mode: publish.ModeSidecar}, reports: []*analyzer.Report{reporttest.Cluster()}},
		{name: "sidecar_speak_for", opts: Options{Mode: publish.ModeSidecar, SpeakFor: []string{"127.0.0.2"}, Cluster: "prod"},
			reports: []*analyzer.Report{reporttest.Cluster()}},
		{name: "topk", opts: Options{TopK: 2}, reports: []*analyzer.Report{topKReport()},
			metrics: []string{"partmon_partition_size_bytes", "partmon_partition_tombstones", "partmon_partition_operations_share_ratio"}},
		{name: "empty_report", opts: Options{}, reports: []*analyzer.Report{{}}},
		{name: "nothing_published", opts: Options{}},
		{name: "failed_after_good", opts: Options{}, reports: []*analyzer.Report{reporttest.Cluster(), reporttest.Failed()},
			metrics: []string{"partmon_up", "partmon_collector_success", "partmon_collector_last_success_timestamp_seconds",
				"partmon_last_cycle_timestamp_seconds", "partmon_node_tokens"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.BuildInfo = fixtureBuild
			eLatest := &publish.Latest{}
			e := New(eLatest, tc.opts)
			for _, r := range tc.reports {
				eLatest.Publish(r)
			}
			golden := filepath.Join("testdata", tc.name+".prom")
			if *update {
				writeGolden(t, e, golden, tc.metrics)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("reading golden file (run go test -update to create it): %v", err)
			}
			if err := testutil.CollectAndCompare(e, bytes.NewReader(want), tc.metrics...); err != nil {
				t.Error(err)
			}
		})
	}
}

func writeGolden(t *testing.T, c prometheus.Collector, path string, metrics []string) {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, mf := range mfs {
		if len(metrics) > 0 && !slices.Contains(metrics, mf.GetName()) {
			continue
		}
		if _, err := expfmt.MetricFamilyToText(&out, mf); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestPublishKeepsLastGoodReport(t *testing.T) {
	good := reporttest.Cluster()
	tests := []struct {
		name      string
		publish   []*analyzer.Report
		wantReady bool
		wantUp    float64
		wantSame  *analyzer.Report
	}{
		{name: "nothing yet", wantUp: 0},
		{name: "good", publish: []*analyzer.Report{good}, wantReady: true, wantUp: 1, wantSame: good},
		{name: "nil after good", publish: []*analyzer.Report{good, nil}, wantReady: true, wantUp: 0, wantSame: good},
		{name: "all sources failed after good", publish: []*analyzer.Report{good, reporttest.Failed()}, wantReady: true, wantUp: 0, wantSame: good},
		{name: "failed first", publish: []*analyzer.Report{reporttest.Failed()}, wantReady: false, wantUp: 0},
		{name: "good after failed", publish: []*analyzer.Report{reporttest.Failed(), good}, wantReady: true, wantUp: 1, wantSame: good},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			eLatest := &publish.Latest{}
			e := New(eLatest, Options{})
			for _, r := range tc.publish {
				eLatest.Publish(r)
			}
			if got := eLatest.Ready(); got != tc.wantReady {
				t.Errorf("Ready() = %v, want %v", got, tc.wantReady)
			}
			if got := eLatest.Report(); got != tc.wantSame {
				t.Errorf("Report() = %p, want %p", got, tc.wantSame)
			}
			if got := gaugeValue(t, e, "partmon_up"); got != tc.wantUp {
				t.Errorf("partmon_up = %v, want %v", got, tc.wantUp)
			}
		})
	}
}

// gaugeValue reads the single series of a label-less family.
func gaugeValue(t *testing.T, c prometheus.Collector, name string) float64 {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			if len(mf.GetMetric()) != 1 {
				t.Fatalf("%s has %d series, want 1", name, len(mf.GetMetric()))
			}
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatalf("%s not collected", name)
	return 0
}

// TestSeriesPerTablePerNode holds the metric contract's bound: a table costs
// at most 8 series per node, top-K keys and findings aside. The fixture fills
// every per-table figure of node .1, so the bound is reached there.
func TestSeriesPerTablePerNode(t *testing.T) {
	eLatest := &publish.Latest{}
	e := New(eLatest, Options{})
	eLatest.Publish(reporttest.Cluster())
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(e)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	perTable := make(map[string]int)
	for _, mf := range mfs {
		name := mf.GetName()
		if strings.HasPrefix(name, "partmon_partition_") || strings.HasPrefix(name, "partmon_finding") {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := make(map[string]string)
			for _, lp := range m.GetLabel() {
				labels[lp.GetName()] = lp.GetValue()
			}
			node, hasNode := labels["node"]
			table, hasTable := labels["table"]
			if hasNode && hasTable {
				perTable[node+" "+labels["keyspace"]+"."+table]++
			}
		}
	}
	const limit = 8
	for id, n := range perTable {
		if n > limit {
			t.Errorf("%s costs %d series, the contract allows %d", id, n, limit)
		}
	}
	if got := perTable["127.0.0.1 shop.orders"]; got != limit {
		t.Errorf("fully populated table has %d series, want %d (the fixture no longer fills every figure?)", got, limit)
	}
}

func TestCollectAndLint(t *testing.T) {
	eLatest := &publish.Latest{}
	e := New(eLatest, Options{})
	eLatest.Publish(reporttest.Cluster())
	problems, err := testutil.CollectAndLint(e)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}

// TestMetricNamesCoverCollected: every family Collect can emit is listed, and
// the list names nothing the exporter lacks.
func TestMetricNamesCoverCollected(t *testing.T) {
	listed := make(map[string]bool)
	for _, n := range MetricNames() {
		listed[n] = true
	}
	eLatest := &publish.Latest{}
	e := New(eLatest, Options{Started: reporttest.Time, Config: NewConfigStatus(reporttest.Time)})
	eLatest.Publish(reporttest.Cluster())
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(e, e.Process())
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	collected := make(map[string]bool)
	for _, mf := range mfs {
		collected[mf.GetName()] = true
		if !listed[mf.GetName()] {
			t.Errorf("%s is collected but missing from MetricNames", mf.GetName())
		}
	}
	// The fixture fills every family, so each listed name must show up.
	for n := range listed {
		if !collected[n] {
			t.Errorf("%s is listed but the full fixture does not produce it", n)
		}
	}
	for _, n := range []string{"partmon_table_local_reads_total", "partmon_up", "partmon_build_info"} {
		if !listed[n] {
			t.Errorf("MetricNames lacks contract family %s", n)
		}
	}
}

func TestPartitionKeyLabel(t *testing.T) {
	long1 := strings.Repeat("é", 100) + "1"
	long2 := strings.Repeat("é", 100) + "2"
	tests := []struct {
		name, key, want string
	}{
		{name: "short key kept", key: "customer|42", want: "customer|42"},
		{name: "invalid UTF-8 replaced", key: "a\xffb", want: "a\uFFFDb"},
		{name: "exactly the limit kept", key: strings.Repeat("x", keyLabelMax), want: strings.Repeat("x", keyLabelMax)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := partitionKeyLabel(tc.key); got != tc.want {
				t.Errorf("partitionKeyLabel(%q) = %q, want %q", tc.key, got, tc.want)
			}
		})
	}
	t.Run("long keys bounded and distinct", func(t *testing.T) {
		a, b := partitionKeyLabel(long1), partitionKeyLabel(long2)
		if a == b {
			t.Errorf("two long keys share the label %q", a)
		}
		for _, l := range []string{a, b} {
			if len(l) > keyLabelMax || !utf8.ValidString(l) || !strings.HasPrefix(l, "éé") {
				t.Errorf("label %q: %d bytes, valid UTF-8 %v", l, len(l), utf8.ValidString(l))
			}
		}
	})
}

// bigReport is a synthetic cluster: nodes × tables table figures, ten
// top keys per table per node, and one finding per table per node.
func bigReport(nodes, tables int) *analyzer.Report {
	r := &analyzer.Report{Cluster: "bench", Generated: reporttest.Time, Taken: reporttest.Time}
	for n := range nodes {
		addr := fmt.Sprintf("10.0.%d.%d", n/250, n%250)
		r.Nodes = append(r.Nodes, analyzer.NodeSummary{Address: addr, DC: "dc1", Rack: "r1", Tokens: 16, LoadBytes: 1e12})
		r.Ownership = append(r.Ownership, analyzer.Ownership{Node: addr, DC: "dc1", Rack: "r1", Owns: 1 / float64(nodes), Skew: 1})
		for tb := range tables {
			table := fmt.Sprintf("t%03d", tb)
			r.TableNodes = append(r.TableNodes, analyzer.TableNode{Keyspace: "ks", Table: table, Node: addr, DC: "dc1", Rack: "r1",
				TableStats: model.TableStats{MaxPartitionBytes: 1 << 20, MeanPartitionBytes: 1 << 10, PartitionsEstimate: 1e6,
					DiskUsageBytes: 1 << 30, LocalReads: model.Ops{Count: 1e6}, LocalWrites: model.Ops{Count: 1e6},
					TombstonesPerRead: model.Distribution{Count: 1, P99: 2}}, ReadSkew: 1})
			for k := range 10 {
				r.TopPartitions = append(r.TopPartitions, analyzer.PartitionEntry{Keyspace: "ks", Table: table,
					Key: fmt.Sprintf("key-%d", k), SizeBytes: int64(k+1) << 20, Nodes: []string{addr}})
			}
			r.Findings = append(r.Findings, finding.Finding{Kind: analyzer.KindHotTokenRange, Severity: finding.SeverityWarning,
				Node: addr, DC: "dc1", Rack: "r1", Keyspace: "ks", Table: table, Value: 3, Threshold: 2})
		}
	}
	return r
}

// BenchmarkCollect measures one scrape's Gather of a 12-node, 200-table report.
func BenchmarkCollect(b *testing.B) {
	eLatest := &publish.Latest{}
	e := New(eLatest, Options{})
	eLatest.Publish(bigReport(12, 200))
	reg := prometheus.NewRegistry()
	reg.MustRegister(e)
	series := 0
	for b.Loop() {
		mfs, err := reg.Gather()
		if err != nil {
			b.Fatal(err)
		}
		series = 0
		for _, mf := range mfs {
			series += len(mf.GetMetric())
		}
	}
	b.ReportMetric(float64(series), "series")
}
