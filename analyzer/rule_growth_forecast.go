package analyzer

import (
	"fmt"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/internal/format"
)

// rulePartitionGrowthForecast: the time until a table's largest partition
// crosses the critical size, from a robust fit of its history. The history
// is of max_partition_size: bucket bounds per sstable in whole MiB, so it
// moves in steps, and a step can be compaction merging fragments rather
// than new data. None when it
// does not grow (or the history is too short), and none once it has crossed
// (oversized_partition then speaks).
func rulePartitionGrowthForecast(a *analysis) []finding.Finding {
	var out []finding.Finding
	crit := float64(a.th.PartitionCriticalBytes)
	warnSecs, critSecs := a.th.ForecastWarning.Seconds(), a.th.ForecastCritical.Seconds()
	for _, t := range a.tables {
		secs := t.growth.secondsTo(crit)
		if !t.growth.trusted() || secs <= 0 {
			continue
		}
		var sev finding.Severity
		var horizon float64
		switch {
		case secs <= critSecs:
			sev, horizon = finding.SeverityCritical, critSecs
		case secs <= warnSecs:
			sev, horizon = finding.SeverityWarning, warnSecs
		default:
			continue
		}
		f := a.newFinding(KindPartitionGrowthForecast, sev, nil, t.keyspace, t.name)
		f.Value, f.Threshold, f.Unit = secs, horizon, finding.UnitSeconds
		f.Figures = &finding.Figures{PartitionBytes: float64(t.maxBytes), CurrentBytes: t.growth.current, GrowthBytesPerSecond: t.growth.slope}
		f.Source = joinSources(a.sizeSource(), "history")
		f.Summary = fmt.Sprintf("largest partition of %s is %s and grows %s/day (robust fit of %d points over %s): it crosses %s in %s",
			t.key, format.Bytes(t.growth.current), format.Bytes(t.growth.slope*86400), t.growth.points,
			format.Seconds(t.growth.window), format.Bytes(crit), format.Seconds(secs))
		advice, key := bucketAdvice{a}.splitAdvice(t, t.growth.current)
		f.Advice, f.SuggestedKey = "before then: "+advice, key
		out = append(out, f)
	}
	return out
}

// KindPartitionGrowthForecast names the partition_growth_forecast findings.
const KindPartitionGrowthForecast = "partition_growth_forecast"

func init() {
	registerKind(11, KindFacts{Name: KindPartitionGrowthForecast, Label: "partition growth forecast",
		Sentence:     "The largest partition is growing toward the critical size.",
		LowerIsWorse: true, SizeIsTheProblem: true, TableWide: true,
		scope: scopeTable, problemOrder: 7, splitOrder: 5, rule: rulePartitionGrowthForecast})
}

// The thresholds the rule reads, each declared once, here, with why
// (thresholds.go: their check, unit and series).
func init() {
	registerThresholds([]thresholdSpec{
		// A week leaves time to change a data model; a day is an emergency.
		// A critical forecast is the nearer horizon.
		{key: "forecast_warning", unit: thresholdSeconds, check: mustBePositive, def: 7 * dayS, bound: true,
			readBy: []string{KindPartitionGrowthForecast, KindUnbucketedTimeSeries, "PartmonPartitionGrowthForecast"}},
		{key: "forecast_critical", unit: thresholdSeconds, check: mustBePositive, def: dayS, bound: true, notAbove: []string{"forecast_warning"},
			readBy: []string{KindPartitionGrowthForecast, "PartmonPartitionGrowthForecast"}},
		// Size estimates refresh every 5 minutes and max_partition_size moves
		// on flushes: an hour and six points see several refreshes.
		{key: "forecast_min_points", unit: thresholdCount, check: mustBeThreeOrMore, def: 6,
			readBy: []string{KindPartitionGrowthForecast, KindUnbucketedTimeSeries, KindGuardrailCrossing}},
		{key: "forecast_min_span", unit: thresholdSeconds, check: mustBePositive, def: hourS,
			readBy: []string{KindPartitionGrowthForecast, KindUnbucketedTimeSeries, KindGuardrailCrossing}},
	})
}
