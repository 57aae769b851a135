package exporter

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/tools/reporttest"
)

// A finding the analyzer folded over three replicas keeps one value series
// per node, with each node's own value and severity; a sidecar speaking for
// one node publishes that node's only. The finding counts once.
func TestFoldedFindingKeepsPerNodeSeries(t *testing.T) {
	r := reporttest.Cluster()
	r.Findings = []finding.Finding{{ID: "f1", Kind: analyzer.KindOversizedPartition, Severity: finding.SeverityCritical, Cluster: "demo",
		DC: "dc1", Keyspace: "shop", Table: "orders", Value: 124 << 20, Threshold: 100 << 20, Unit: finding.UnitBytes,
		Nodes: []finding.NodeValue{
			{Node: "127.0.0.1", DC: "dc1", Rack: "r1", Value: 124 << 20, Threshold: 100 << 20, Severity: finding.SeverityCritical},
			{Node: "127.0.0.2", DC: "dc1", Rack: "r2", Value: 72 << 20, Threshold: 50 << 20, Severity: finding.SeverityWarning},
		}}}
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{name: "cluster", opts: Options{Mode: publish.ModeCluster}, want: `
partmon_finding_value{alert="PartmonOversizedPartition",cluster="demo",dc="dc1",keyspace="shop",kind="oversized_partition",measured="node",node="127.0.0.1",pushed="true",rack="r1",severity="critical",table="orders"} 1.30023424e+08
partmon_finding_value{alert="PartmonOversizedPartition",cluster="demo",dc="dc1",keyspace="shop",kind="oversized_partition",measured="node",node="127.0.0.2",pushed="true",rack="r2",severity="warning",table="orders"} 7.5497472e+07
`},
		{name: "sidecar of the second node", opts: Options{Mode: publish.ModeSidecar, SpeakFor: []string{"127.0.0.2"}}, want: `
partmon_finding_value{alert="PartmonOversizedPartition",cluster="demo",dc="dc1",keyspace="shop",kind="oversized_partition",measured="node",node="127.0.0.2",pushed="true",rack="r2",severity="warning",table="orders"} 7.5497472e+07
`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			eLatest := &publish.Latest{}
			e := New(eLatest, tc.opts)
			eLatest.Publish(r)
			want := "# HELP partmon_finding_value " + helpOf(t, e, "partmon_finding_value") + "\n# TYPE partmon_finding_value gauge" + tc.want
			if err := testutil.CollectAndCompare(e, strings.NewReader(want), "partmon_finding_value"); err != nil {
				t.Error(err)
			}
		})
	}
}

// helpOf is a family's HELP as the exporter publishes it.
func helpOf(t *testing.T, c prometheus.Collector, name string) string {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetHelp()
		}
	}
	t.Fatalf("no family %s", name)
	return ""
}
