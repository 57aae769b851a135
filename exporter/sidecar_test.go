package exporter

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/tools/reporttest"
)

// tableSeries lists the series of c that name a table or a finding, each
// as its family name and label pairs.
func tableSeries(t *testing.T, c prometheus.Collector) []string {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var pairs []string
			table := strings.HasPrefix(mf.GetName(), "partmon_finding_")
			for _, lp := range m.GetLabel() {
				pairs = append(pairs, lp.GetName()+"="+lp.GetValue())
				table = table || lp.GetName() == "table"
			}
			if table {
				out = append(out, mf.GetName()+"{"+strings.Join(pairs, ",")+"}")
			}
		}
	}
	return out
}

// sidecarReport is the fixture with a key whose replicas are not named
// (published like a node-less finding).
func sidecarReport() *analyzer.Report {
	r := reporttest.Cluster()
	r.TopPartitions = append(r.TopPartitions, analyzer.PartitionEntry{Keyspace: "shop", Table: "events", Key: "device|1",
		SizeBytes: 70 << 20, Source: "size_estimates"})
	return r
}

// TestSidecarsPublishEachTableSeriesOnce renders one three-node report as
// each node's sidecar: every series naming a table (growth and forecast,
// which have no node of their own, included) or a finding comes from
// exactly one sidecar, and together they cover every table and kind the
// cluster-mode partmon publishes.
func TestSidecarsPublishEachTableSeriesOnce(t *testing.T) {
	seen := map[string]int{}
	for _, node := range []string{"127.0.0.1", "127.0.0.2", "127.0.0.3"} {
		eLatest := &publish.Latest{}
		e := New(eLatest, Options{Mode: publish.ModeSidecar, SpeakFor: []string{node}})
		eLatest.Publish(sidecarReport())
		for _, s := range tableSeries(t, e) {
			seen[s]++
		}
	}
	for s, n := range seen {
		if n != 1 {
			t.Errorf("%s is published by %d sidecars, want 1", s, n)
		}
	}
	coverage := func(series []string) []string {
		set := map[string]bool{}
		for _, s := range series {
			name, labels, _ := strings.Cut(strings.TrimSuffix(s, "}"), "{")
			var keep []string
			for _, p := range strings.Split(labels, ",") {
				if k, _, _ := strings.Cut(p, "="); k != "dc" && k != "rack" && k != "node" {
					keep = append(keep, p)
				}
			}
			set[name+"{"+strings.Join(keep, ",")+"}"] = true
		}
		out := make([]string, 0, len(set))
		for s := range set {
			out = append(out, s)
		}
		sort.Strings(out)
		return out
	}
	clusterLatest := &publish.Latest{}
	cluster := New(clusterLatest, Options{Mode: publish.ModeCluster})
	clusterLatest.Publish(sidecarReport())
	var sidecars []string
	for s := range seen {
		sidecars = append(sidecars, s)
	}
	if got, want := coverage(sidecars), coverage(tableSeries(t, cluster)); !slices.Equal(got, want) {
		t.Errorf("the sidecars together cover\n%s\nthe cluster-mode partmon\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A sidecar's table-wide series carry its own node's labels; the
// cluster-mode partmon's carry none.
func TestTableSeriesLabelsByMode(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{name: "sidecar of .2", opts: Options{Mode: publish.ModeSidecar, SpeakFor: []string{"127.0.0.2"}}, want: `
# HELP partmon_table_partition_size_forecast_seconds ` + forecastHelp + cachedNote + `.
# TYPE partmon_table_partition_size_forecast_seconds gauge
partmon_table_partition_size_forecast_seconds{cluster="demo",dc="dc1",keyspace="shop",node="127.0.0.2",rack="r2",table="events"} 86400
partmon_table_partition_size_forecast_seconds{cluster="demo",dc="dc1",keyspace="shop",node="127.0.0.2",rack="r2",table="orders"} 0
# HELP partmon_partition_size_bytes Size of a top-K large partition as reported by the node, in bytes` + cachedNote + `.
# TYPE partmon_partition_size_bytes gauge
partmon_partition_size_bytes{cluster="demo",dc="dc1",keyspace="shop",node="127.0.0.2",partition_key="customer|42",rack="r2",table="orders"} 2.097152e+08
partmon_partition_size_bytes{cluster="demo",dc="dc1",keyspace="shop",node="127.0.0.2",partition_key="device|1",rack="r2",table="events"} 7.340032e+07
`},
		{name: "cluster", opts: Options{Mode: publish.ModeCluster}, want: `
# HELP partmon_table_partition_size_forecast_seconds ` + forecastHelp + cachedNote + `.
# TYPE partmon_table_partition_size_forecast_seconds gauge
partmon_table_partition_size_forecast_seconds{cluster="demo",keyspace="shop",table="events"} 86400
partmon_table_partition_size_forecast_seconds{cluster="demo",keyspace="shop",table="orders"} 0
# HELP partmon_partition_size_bytes Size of a top-K large partition as reported by the node, in bytes` + cachedNote + `.
# TYPE partmon_partition_size_bytes gauge
partmon_partition_size_bytes{cluster="demo",dc="",keyspace="shop",node="",partition_key="device|1",rack="",table="events"} 7.340032e+07
partmon_partition_size_bytes{cluster="demo",dc="dc1",keyspace="shop",node="127.0.0.1",partition_key="customer|42",rack="r1",table="orders"} 2.097152e+08
partmon_partition_size_bytes{cluster="demo",dc="dc1",keyspace="shop",node="127.0.0.2",partition_key="customer|42",rack="r2",table="orders"} 2.097152e+08
`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			eLatest := &publish.Latest{}
			e := New(eLatest, tc.opts)
			eLatest.Publish(sidecarReport())
			if err := testutil.CollectAndCompare(e, strings.NewReader(tc.want),
				"partmon_table_partition_size_forecast_seconds", "partmon_partition_size_bytes"); err != nil {
				t.Error(err)
			}
		})
	}
}
