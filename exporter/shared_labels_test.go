package exporter

import (
	"reflect"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/partmon/partmon/analyzer"
)

// Metrics that share label pairs write what NewConstMetric would have, for
// gauges and counters alike, and invalid label values still become invalid
// metrics rather than series.
func TestSharedLabelsWriteLikeConstMetrics(t *testing.T) {
	values := []string{"c", "dc1", "r1", "10.0.0.1", "ks", "t"}
	tests := []struct {
		name    string
		desc    *metricDesc
		values  []string
		value   float64
		wantErr bool
	}{
		{"gauge", tableMaxPartitionSize, values, 42, false},
		{"counter", tableLocalReads, values, 7, false},
		{"invalid UTF-8", tableMaxPartitionSize, []string{"c", "dc1", "r1", "10.0.0.1", "ks\xff", "t"}, 1, true},
		{"too few values", tablePartitions, values[:5], 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch := make(chan prometheus.Metric, 2)
			m := emitter{ch: ch}
			m.sharing(tableMaxPartitionSize, tt.values...).emit(tt.desc, tt.value)
			m.emit(tt.desc, tt.value, tt.values...)
			close(ch)
			shared, direct := <-ch, <-ch
			var got, want dto.Metric
			gotErr, wantErr := shared.Write(&got), direct.Write(&want)
			if (gotErr != nil) != tt.wantErr || (wantErr != nil) != tt.wantErr {
				t.Fatalf("errors: shared %v, NewConstMetric %v; want an error: %v", gotErr, wantErr, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if shared.Desc() != tt.desc.desc || !reflect.DeepEqual(labelsOf(&got), labelsOf(&want)) ||
				got.GetGauge().GetValue() != want.GetGauge().GetValue() || got.GetCounter().GetValue() != want.GetCounter().GetValue() ||
				(got.Gauge == nil) != (want.Gauge == nil) || (got.Counter == nil) != (want.Counter == nil) {
				t.Errorf("shared metric %v, want %v", &got, &want)
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
