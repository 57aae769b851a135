package exporter

import (
	"math"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// sharedLabels emits several families that carry the same label values
// (the eight per-table-per-node ones) from one set of label pairs. Building
// the pairs once instead of once per family (prometheus.NewConstMetric)
// removes most of a scrape's allocations; `make bench` measures it
// (BenchmarkExposition1000Tables3Nodes). Label values that cannot make a
// metric fall back to emit, which reports them as invalid metrics.
type sharedLabels struct {
	m      emitter
	values []string
	pairs  []*dto.LabelPair // nil: the values are invalid
}

// sharing validates values against d (every family sharing them must have
// d's label names) and builds their label pairs.
func (m emitter) sharing(d *metricDesc, values ...string) sharedLabels {
	s := sharedLabels{m: m, values: values}
	for _, v := range values {
		if !utf8.ValidString(v) {
			return s
		}
	}
	if len(values) == len(d.labels) {
		s.pairs = prometheus.MakeLabelPairs(d.desc, values)
	}
	return s
}

func (s sharedLabels) emit(d *metricDesc, v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	if s.pairs == nil {
		s.m.emit(d, v, s.values...)
		return
	}
	s.m.ch <- sharedLabelMetric{d: d, value: v, pairs: s.pairs}
}

// sharedLabelMetric is a const metric whose label pairs other metrics share.
// Like client_golang's own const metrics, it hands out the same read-only
// pairs to every Write.
type sharedLabelMetric struct {
	d     *metricDesc
	value float64
	pairs []*dto.LabelPair
}

func (s sharedLabelMetric) Desc() *prometheus.Desc { return s.d.desc }

func (s sharedLabelMetric) Write(out *dto.Metric) error {
	out.Label = s.pairs
	v := s.value
	if s.d.valueType == prometheus.CounterValue {
		out.Counter = &dto.Counter{Value: &v}
	} else {
		out.Gauge = &dto.Gauge{Value: &v}
	}
	return nil
}
