package exporter

import (
	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/model"
)

// Guardrail thresholds: one family per unit, the guardrail and its level as
// labels, rather than a family per guardrail: each Cassandra release adds
// guardrails, and a label keeps them one selector for dashboards and
// alerts; the unit stays in the name as Prometheus naming asks. A threshold
// that is off (null, -1) is not published as 0 (0 would read as a limit of
// nothing): partmon_guardrail_set says 0 for it; a guardrail the node's
// version lacks has no series at all.
var (
	guardrailLabels = []string{"cluster", "dc", "rack", "node", "guardrail", "level"}

	guardrailSet = gauge("guardrail_set", "1 when the node runs with this guardrail threshold set, 0 when it is off (null or -1 in system_views.settings); "+
		"absent when the node's version has no such setting", guardrailLabels)
	guardrailBytes = gauge("guardrail_threshold_bytes", "Guardrail threshold the node runs with, in bytes (partition_size, column_value_size, collection_size, "+
		"4.x compaction_large_partition); absent when off", guardrailLabels)
	guardrailCount = gauge("guardrail_threshold", "Guardrail threshold the node runs with, as a count (tombstones, items, tables, columns); absent when off", guardrailLabels)
	guardrailRatio = gauge("guardrail_threshold_ratio", "Guardrail threshold the node runs with, as a ratio 0-1 (data_disk_usage_percentage ÷ 100); absent when off", guardrailLabels)
)

var guardrailDescs = []*metricDesc{guardrailSet, guardrailBytes, guardrailCount, guardrailRatio}

// collectGuardrails publishes each node's guardrail thresholds.
func collectGuardrails(m emitter, r *analyzer.Report, cluster string, speaks func(string) bool) {
	if r.Guardrails == nil {
		return
	}
	for _, s := range r.Guardrails.Settings {
		if !speaks(s.Node) {
			continue
		}
		labels := []string{cluster, s.DC, s.Rack, s.Node, s.Guardrail, s.Level}
		m.emit(guardrailSet, boolValue(s.Set), labels...)
		if !s.Set {
			continue
		}
		switch s.Unit {
		case model.UnitBytes:
			m.emit(guardrailBytes, s.Value, labels...)
		case model.UnitPercent:
			m.emit(guardrailRatio, s.Value/100, labels...)
		default:
			m.emit(guardrailCount, s.Value, labels...)
		}
	}
}
