package exporter

import "github.com/partmon/partmon/analyzer"

// thresholdDescs has one family per threshold, named from the analyzer's one
// table of thresholds, so the shipped alerting rules compare against the
// limits partmon was configured with instead of numbers copied into them.
var thresholdDescs = func() []*metricDesc {
	named := analyzer.DefaultThresholds().Named()
	out := make([]*metricDesc, len(named))
	for i, n := range named {
		out[i] = gauge("threshold_"+n.Name,
			"partmon's "+n.Key+" threshold (config key thresholds."+n.Key+"), in base units; the alerting rules compare against it",
			[]string{"cluster"})
	}
	return out
}()

// collectThresholds publishes every threshold the report was judged by, one
// series each, whether or not any finding uses it. A report built without
// thresholds (never one from analyzer.Analyze) publishes none rather than zeros.
func collectThresholds(m emitter, r *analyzer.Report, cluster string) {
	if r.Thresholds == (analyzer.Thresholds{}) {
		return
	}
	for i, n := range r.Thresholds.Named() {
		m.emit(thresholdDescs[i], n.Value, cluster)
	}
}
