package exporter

import (
	"math"
	"slices"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// labelPairs hands out the label pairs of one Collect: each name and value
// pair is built once and shared by every series that carries it (the
// cluster pair by all of them, a node's by all of its tables), so a series
// costs one slice of pointers instead of three allocations a label
// (prometheus.MakeLabelPairs). Pairs are read-only once built, as
// client_golang's own const metrics hand them out; the registry copies
// nothing but reads them, and the exposition writes their name and value.
type labelPairs struct {
	byName map[string]map[string]*dto.LabelPair
}

func newLabelPairs() *labelPairs {
	return &labelPairs{byName: map[string]map[string]*dto.LabelPair{}}
}

// pair is the pair of name and value; a nil c shares nothing.
func (c *labelPairs) pair(name, value string) *dto.LabelPair {
	if c == nil {
		n, v := name, value
		return &dto.LabelPair{Name: &n, Value: &v}
	}
	values := c.byName[name]
	if values == nil {
		values = map[string]*dto.LabelPair{}
		c.byName[name] = values
	}
	p := values[value]
	if p == nil {
		n, v := name, value
		p = &dto.LabelPair{Name: &n, Value: &v}
		values[value] = p
	}
	return p
}

// of is d's label pairs for values, sorted by label name as
// prometheus.MakeLabelPairs sorts them; nil when values cannot make a
// metric of d (their count, invalid UTF-8): prometheus.NewConstMetric then
// says why.
func (c *labelPairs) of(d *metricDesc, values []string) []*dto.LabelPair {
	if len(values) != len(d.labels) {
		return nil
	}
	if len(values) == 0 {
		return noLabels
	}
	for _, v := range values {
		if !utf8.ValidString(v) {
			return nil
		}
	}
	out := make([]*dto.LabelPair, len(values))
	for i, j := range d.nameOrder {
		out[i] = c.pair(d.labels[j], values[j])
	}
	return out
}

// noLabels are the pairs of a series without labels: none, but valid.
var noLabels = []*dto.LabelPair{}

// nameOrder is the order of labels sorted by name: where each label
// pair of a series goes.
func nameOrder(labels []string) []int {
	order := make([]int, len(labels))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case labels[a] < labels[b]:
			return -1
		case labels[a] > labels[b]:
			return 1
		}
		return 0
	})
	return order
}

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
	return sharedLabels{m: m, values: values, pairs: m.pairs.of(d, values)}
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

// boxedValue holds a sample's value and its dto wrapper in one allocation.
type boxedValue struct {
	v       float64
	gauge   dto.Gauge
	counter dto.Counter
}

func (s sharedLabelMetric) Write(out *dto.Metric) error {
	if len(s.pairs) > 0 { // none is nil, as client_golang writes it
		out.Label = s.pairs
	}
	b := &boxedValue{v: s.value}
	if s.d.valueType == prometheus.CounterValue {
		b.counter.Value = &b.v
		out.Counter = &b.counter
	} else {
		b.gauge.Value = &b.v
		out.Gauge = &b.gauge
	}
	return nil
}
