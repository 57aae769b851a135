package exporter

import (
	"sort"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// Gather is the exporter's metric families as a prometheus.Registry
// holding it alone gathers them (web caches them once per report), without
// the registry's cost per series: its checks hash every series' labels to
// find duplicates and check every label name and value again, a third of
// a gather at 30 nodes × 2,000 tables. Here every series comes from a
// metricDesc (fixed, valid label names) with label values checked once
// (labelPairs.of); families are sorted as the registry sorts them, and a
// duplicate shows as two neighbours with the same labels once sorted.
// Anything else (an invalid metric, a duplicate, a panic) gathers again
// through a registry, whose families and errors are then the answer:
// TestGatherAsARegistry holds the two to the same families.
func (e *Exporter) Gather() ([]*dto.MetricFamily, error) {
	ch := make(chan prometheus.Metric, 4096)
	panicked := false
	go func() {
		defer close(ch)
		defer func() {
			if recover() != nil {
				panicked = true // the registry recovers it too, and says where
			}
		}()
		e.Collect(ch)
	}()
	byName := map[string]*dto.MetricFamily{}
	ok := true
	for metric := range ch {
		if !ok {
			continue // drain
		}
		s, shared := metric.(sharedLabelMetric)
		if !shared {
			ok = false
			continue
		}
		mf := byName[s.d.name]
		switch {
		case mf == nil:
			name, help := s.d.name, s.d.help
			mf = &dto.MetricFamily{Name: &name, Help: &help, Type: s.d.dtoType()}
			byName[s.d.name] = mf
		case mf.GetHelp() != s.d.help || mf.GetType() != *s.d.dtoType():
			ok = false
			continue
		}
		mf.Metric = append(mf.Metric, s.dto())
	}
	if !ok || panicked {
		return e.registryGather()
	}
	names := make([]string, 0, len(byName))
	for name, mf := range byName {
		sorted, dup := inOrder(mf.Metric)
		if !sorted {
			sort.Sort(byLabelValues(mf.Metric))
			_, dup = inOrder(mf.Metric)
		}
		if dup {
			return e.registryGather() // the registry says which
		}
		if len(mf.Metric) > 0 {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	out := make([]*dto.MetricFamily, len(names))
	for i, name := range names {
		out[i] = byName[name]
	}
	return out, nil
}

func (e *Exporter) registryGather() ([]*dto.MetricFamily, error) {
	reg := prometheus.NewRegistry()
	if err := reg.Register(e); err != nil {
		return nil, err
	}
	return reg.Gather()
}

func (d *metricDesc) dtoType() *dto.MetricType {
	if d.valueType == prometheus.CounterValue {
		return dto.MetricType_COUNTER.Enum()
	}
	return dto.MetricType_GAUGE.Enum()
}

// sampleMetric is a series' dto.Metric and its value in one allocation.
type sampleMetric struct {
	m dto.Metric
	boxedValue
}

func (s sharedLabelMetric) dto() *dto.Metric {
	x := &sampleMetric{}
	if len(s.pairs) > 0 {
		x.m.Label = s.pairs
	}
	x.v = s.value
	if s.d.valueType == prometheus.CounterValue {
		x.counter.Value = &x.v
		x.m.Counter = &x.counter
	} else {
		x.gauge.Value = &x.v
		x.m.Gauge = &x.gauge
	}
	return &x.m
}

// inOrder says whether ms are sorted by compareLabelValues, and whether
// two neighbours have the same labels (a duplicate, once sorted).
func inOrder(ms []*dto.Metric) (sorted, dup bool) {
	sorted = true
	for i := 1; i < len(ms); i++ {
		switch c := compareLabelValues(ms[i-1], ms[i]); {
		case c == 0:
			dup = true
		case c > 0:
			sorted = false
		}
	}
	return sorted, dup
}

// compareLabelValues orders series as the registry's sort does
// (client_golang's internal MetricSorter): by label count, then label
// values in label name order; 0 for the same labels.
func compareLabelValues(a, b *dto.Metric) int {
	if len(a.Label) != len(b.Label) {
		return len(a.Label) - len(b.Label)
	}
	for n, lp := range a.Label {
		if lp == b.Label[n] {
			continue // one shared pair (labelPairs)
		}
		if c := strings.Compare(lp.GetValue(), b.Label[n].GetValue()); c != 0 {
			return c
		}
	}
	return 0
}

type byLabelValues []*dto.Metric

func (s byLabelValues) Len() int           { return len(s) }
func (s byLabelValues) Swap(i, j int)      { s[i], s[j] = s[j], s[i] }
func (s byLabelValues) Less(i, j int) bool { return compareLabelValues(s[i], s[j]) < 0 }
