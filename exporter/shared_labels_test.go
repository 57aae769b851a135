package exporter

import (
	"reflect"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/partmon/partmon/analyzer"
)

// Metrics that share label pairs (sharing, and emit's pairs built once a
// Collect) write what prometheus.NewConstMetric would have, for gauges and
// counters alike, label pairs sorted by name, and invalid label values
// still become invalid metrics rather than series.
func TestSharedLabelsWriteLikeConstMetrics(t *testing.T) {
	values := []string{"c", "dc1", "r1", "10.0.0.1", "ks", "t"}
	finding := []string{"c", "dc1", "r1", "10.0.0.1", "ks", "t", "oversized_partition", "critical", "PartmonFinding", "node", "true"}
	tests := []struct {
		name    string
		desc    *metricDesc
		values  []string
		value   float64
		wantErr bool
	}{
		{"gauge", tableMaxPartitionSize, values, 42, false},
		{"counter", tableLocalReads, values, 7, false},
		{"names not in order", findingValue, finding, 3, false},
		{"invalid UTF-8", tableMaxPartitionSize, []string{"c", "dc1", "r1", "10.0.0.1", "ks\xff", "t"}, 1, true},
		{"too few values", tablePartitions, values[:5], 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch := make(chan prometheus.Metric, 3)
			m := newEmitter(ch)
			m.emit(tt.desc, tt.value, tt.values...) // the pairs built
			m.emit(tt.desc, tt.value, tt.values...) // the pairs shared
			if len(tt.values) == len(tableMaxPartitionSize.labels) {
				m.sharing(tableMaxPartitionSize, tt.values...).emit(tt.desc, tt.value)
			}
			close(ch)
			direct, directErr := prometheus.NewConstMetric(tt.desc.desc, tt.desc.valueType, tt.value, tt.values...)
			if (directErr != nil) != tt.wantErr {
				t.Fatalf("NewConstMetric: %v; want an error: %v", directErr, tt.wantErr)
			}
			for got := range ch {
				var g, want dto.Metric
				gotErr := got.Write(&g)
				if (gotErr != nil) != tt.wantErr {
					t.Fatalf("error %v; want one: %v", gotErr, tt.wantErr)
				}
				if tt.wantErr {
					continue
				}
				if err := direct.Write(&want); err != nil {
					t.Fatal(err)
				}
				if got.Desc() != tt.desc.desc || !reflect.DeepEqual(labelsOf(&g), labelsOf(&want)) ||
					g.GetGauge().GetValue() != want.GetGauge().GetValue() || g.GetCounter().GetValue() != want.GetCounter().GetValue() ||
					(g.Gauge == nil) != (want.Gauge == nil) || (g.Counter == nil) != (want.Counter == nil) {
					t.Errorf("metric %v, want %v", &g, &want)
				}
			}
		})
	}
}

func labelsOf(m *dto.Metric) map[string]string {
	out := map[string]string{}
	var names []string
	for _, p := range m.Label {
		out[p.GetName()] = p.GetValue()
		names = append(names, p.GetName())
	}
	out["(order)"] = strings.Join(names, ",")
	return out
}

func TestInLabelOrder(t *testing.T) {
	tn := func(dc, ks, node, rack, table string) analyzer.TableNode {
		return analyzer.TableNode{DC: dc, Keyspace: ks, Node: node, Rack: rack, Table: table}
	}
	in := []analyzer.TableNode{
		tn("dc2", "a", "10.0.0.1", "r1", "t"),
		tn("dc1", "b", "10.0.0.1", "r1", "a"),
		tn("dc1", "a", "10.0.0.2", "r2", "a"),
		tn("dc1", "a", "10.0.0.1", "r1", "z"),
		tn("dc1", "a", "10.0.0.1", "r1", "b"),
	}
	var got []string
	for _, p := range inLabelOrder(in) {
		got = append(got, p.DC+"/"+p.Keyspace+"/"+p.Node+"/"+p.Table)
	}
	want := []string{"dc1/a/10.0.0.1/b", "dc1/a/10.0.0.1/z", "dc1/a/10.0.0.2/a", "dc1/b/10.0.0.1/a", "dc2/a/10.0.0.1/t"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	if &in[0] != inLabelOrder(in)[4] {
		t.Error("inLabelOrder copies the table nodes; want pointers into the report")
	}
}
