package analyzer

import (
	"fmt"
	"strings"

	"github.com/partmon/partmon/internal/format"
)

// largestKnown is the table's largest partition: max_partition_size or a
// key list's measured size.
func largestKnown(t *tableView) float64 {
	size := t.maxBytes
	for _, tn := range t.nodes {
		size = max(size, tn.largestKeyBytes)
	}
	return float64(size)
}

// ruleUnbucketedTimeSeries: a table clustered by a time column (timestamp,
// timeuuid, date) whose partition key has no bucket. Warning when its
// largest partition reached the partition warning size, or grows (history
// fit) with no default TTL to bound it. Info when it is over
// TimeSeriesLargeBytes or grows under a TTL, and, from the schema alone,
// when it holds data and has no TTL: its partitions then grow for as long
// as their keys are written. A table with a TTL, small and not growing, is
// bounded and left alone.
func ruleUnbucketedTimeSeries(a *analysis) []Finding {
	var out []Finding
	for _, t := range a.tables {
		col, ok := timeClustering(t)
		if !ok || hasBucket(t) {
			continue
		}
		size := largestKnown(t)
		ttl := t.schema.DefaultTTLSeconds
		growing := t.growth.ok
		var sev Severity
		var threshold float64
		switch {
		case size >= float64(a.th.PartitionWarningBytes):
			sev, threshold = SeverityWarning, float64(a.th.PartitionWarningBytes)
		case growing && ttl == 0:
			sev, threshold = SeverityWarning, float64(a.th.TimeSeriesLargeBytes)
		case size >= float64(a.th.TimeSeriesLargeBytes) || growing:
			sev, threshold = SeverityInfo, float64(a.th.TimeSeriesLargeBytes)
		case ttl == 0 && (size > 0 || t.partitions > 0):
			sev, threshold = SeverityInfo, float64(a.th.TimeSeriesLargeBytes)
		default:
			continue
		}
		var key []string
		for _, c := range partitionKey(t.schema) {
			key = append(key, c.Name)
		}
		c, _ := columnByName(t.schema, col)
		f := a.newFinding(KindUnbucketedTimeSeries, sev, nil, t.keyspace, t.name)
		f.Value, f.Threshold, f.Unit = size, threshold, UnitBytes
		f.Source = joinSources("system_schema.columns", a.sizeSource())
		f.Summary = fmt.Sprintf("%s clusters by %s (%s) with no time bucket in its partition key (%s); largest partition %s",
			t.key, col, c.Type, strings.Join(key, ", "), format.Bytes(size))
		if growing {
			f.Summary += fmt.Sprintf(", growing %s/day (over %s)", format.Bytes(t.growth.slope*86400), format.Seconds(t.growth.window))
		}
		if ttl > 0 {
			f.Summary += fmt.Sprintf("; default TTL %s bounds it", format.Seconds(float64(ttl)))
		} else {
			f.Summary += "; no default TTL: partitions grow without bound"
		}
		f.Advice = a.splitAdvice(t, size)
		out = append(out, f)
	}
	return out
}
