package exporter

import (
	"fmt"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/proto"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/tools/reporttest"
)

// TestGatherAsARegistry: the exporter's own Gather answers the families
// and the errors a registry holding it alone gathers, for the golden
// reports, a report whose series a registry sorts (keys out of label
// order), one with a label value that is not UTF-8 (an invalid metric:
// the registry's error) and one with a finding twice (the exporter keeps
// one series of a label set).
func TestGatherAsARegistry(t *testing.T) {
	unsorted := topKReport()
	for i := range 30 {
		unsorted.TopPartitions = append(unsorted.TopPartitions, analyzer.PartitionEntry{Keyspace: fmt.Sprintf("ks%02d", 30-i), Table: "t",
			Key: fmt.Sprint(i), SizeBytes: int64(i+1) << 20, Nodes: []string{"127.0.0.1"}})
	}
	invalid := reporttest.Cluster()
	invalid.TableNodes[0].Table = "bad\xff"
	twice := reporttest.Cluster()
	twice.Findings = append(twice.Findings, twice.Findings[0])
	twice.Findings[len(twice.Findings)-1].ID = "another"
	tests := []struct {
		name    string
		opts    Options
		reports []*analyzer.Report
		wantErr bool
	}{
		{"cluster", Options{Mode: publish.ModeCluster}, []*analyzer.Report{reporttest.Cluster()}, false},
		{"sidecar", Options{Mode: publish.ModeSidecar}, []*analyzer.Report{reporttest.Cluster()}, false},
		{"floor", Options{TableFloor: TableFloor{Enabled: true, DiskBytes: 1 << 30, OpsPerSecond: 1}}, []*analyzer.Report{reporttest.Cluster()}, false},
		{"unsorted", Options{TopK: 20}, []*analyzer.Report{unsorted}, false},
		{"empty report", Options{}, []*analyzer.Report{{}}, false},
		{"nothing published", Options{}, nil, false},
		{"invalid UTF-8", Options{}, []*analyzer.Report{invalid}, true},
		{"a finding twice", Options{}, []*analyzer.Report{twice}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.BuildInfo = fixtureBuild
			latest := &publish.Latest{}
			e := New(latest, tt.opts)
			for _, r := range tt.reports {
				latest.Publish(r)
			}
			reg := prometheus.NewRegistry()
			reg.MustRegister(e)
			want, wantErr := reg.Gather()
			got, err := e.Gather()
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Errorf("error %v, a registry's %v", err, wantErr)
			}
			if (wantErr != nil) != tt.wantErr {
				t.Errorf("the registry's error %v; want one: %v", wantErr, tt.wantErr)
			}
			if len(got) != len(want) {
				t.Fatalf("%d families, a registry's %d", len(got), len(want))
			}
			for i := range want {
				if !proto.Equal(got[i], want[i]) {
					t.Errorf("family %d: %s\nthe registry's: %s", i, brief(got[i]), brief(want[i]))
				}
			}
			if len(want) < 2 {
				t.Error("a registry gathered next to nothing: the comparison cannot fail")
			}
		})
	}
}

func brief(mf *dto.MetricFamily) string {
	s := mf.String()
	if len(s) > 600 {
		s = s[:600] + "…"
	}
	return strings.TrimSpace(s)
}

func TestInOrder(t *testing.T) {
	c := newLabelPairs()
	series := func(values ...string) *dto.Metric {
		return &dto.Metric{Label: c.of(tableMaxPartitionSize, append([]string{"c", "dc1", "r1", "n1"}, values...))}
	}
	tests := []struct {
		name        string
		ms          []*dto.Metric
		sorted, dup bool
	}{
		{"sorted", []*dto.Metric{series("a", "t1"), series("a", "t2"), series("b", "t1")}, true, false},
		{"unsorted", []*dto.Metric{series("b", "t1"), series("a", "t2")}, false, false},
		{"a duplicate", []*dto.Metric{series("a", "t1"), series("a", "t1"), series("b", "t1")}, true, true},
		{"same values, other pairs", []*dto.Metric{series("a", "t1"), {Label: newLabelPairs().of(tableMaxPartitionSize, []string{"c", "dc1", "r1", "n1", "a", "t1"})}}, true, true},
		{"fewer labels first", []*dto.Metric{{}, series("a", "t1")}, true, false},
	}
	for _, tt := range tests {
		if sorted, dup := inOrder(tt.ms); sorted != tt.sorted || dup != tt.dup {
			t.Errorf("%s: sorted %v, duplicate %v; want %v, %v", tt.name, sorted, dup, tt.sorted, tt.dup)
		}
	}
}
