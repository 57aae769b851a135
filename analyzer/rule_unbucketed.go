package analyzer

import (
	"fmt"
	"strings"
	"time"

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
// timeuuid, date) whose partition key has no bucket, judged by what was
// measured, never by the schema alone: the design guidance itself keys a
// per-user viewing history by user alone, because one user's rows stay few.
//   - warning: the largest partition reached the partition warning size,
//     or grows (history fit) with no default TTL and reaches it within
//     ForecastWarning;
//   - info: it grows with no TTL and reaches the warning size within the
//     history's MaxAge (partmon forecasts no further ahead than it looks
//     back); it grows under a TTL whose worth of growth reaches the warning
//     size; or it is over TimeSeriesLargeBytes and the history is too short
//     to tell whether it grows;
//   - nothing otherwise: small, or measured flat, or growing slowly; a
//     written table with no TTL whose growth is not measured yet gets a
//     note saying so (noteGrowthUnknown), not a finding.
func ruleUnbucketedTimeSeries(a *analysis) []Finding {
	var out []Finding
	warnBytes := float64(a.th.PartitionWarningBytes)
	for _, t := range a.tables {
		col, ok := timeClustering(t)
		if !ok || hasBucket(t) {
			continue
		}
		size := largestKnown(t)
		ttl := float64(t.schema.DefaultTTLSeconds)
		g := t.growth
		toWarn := -1.0
		if g.ok && g.slope > 0 {
			toWarn = max(0, (warnBytes-g.current)/g.slope)
		}
		// value is the size the finding is about: measured, or where the
		// fit takes it within the horizon that grades it.
		var sev Severity
		var value, threshold float64
		var why string
		horizon := func(d time.Duration) float64 { return g.current + g.slope*d.Seconds() }
		switch {
		case size >= warnBytes:
			sev, value, threshold, why = SeverityWarning, size, warnBytes, "it reached the partition warning size"
		case toWarn >= 0 && ttl == 0 && toWarn <= a.th.ForecastWarning.Seconds():
			sev, value, threshold = SeverityWarning, horizon(a.th.ForecastWarning), warnBytes
			why = fmt.Sprintf("at this rate it reaches %s in %s (%s in %s)", format.Bytes(warnBytes), format.Seconds(toWarn),
				format.Bytes(value), format.Seconds(a.th.ForecastWarning.Seconds()))
		case toWarn >= 0 && ttl == 0 && toWarn <= a.h.Limits.MaxAge.Seconds():
			sev, value, threshold = SeverityInfo, horizon(a.h.Limits.MaxAge), warnBytes
			why = fmt.Sprintf("at this rate it reaches %s in %s", format.Bytes(warnBytes), format.Seconds(toWarn))
		case g.ok && ttl > 0 && g.slope*ttl >= warnBytes:
			sev, value, threshold = SeverityInfo, g.slope*ttl, warnBytes
			why = fmt.Sprintf("a TTL's worth of this growth is %s", format.Bytes(value))
		case !g.judged && size >= float64(a.th.TimeSeriesLargeBytes):
			sev, value, threshold = SeverityInfo, size, float64(a.th.TimeSeriesLargeBytes)
			why = "growth is not measured yet (the history is shorter than " + format.Seconds(a.th.ForecastMinSpan.Seconds()) + ")"
		default:
			if !g.judged && ttl == 0 {
				a.noteGrowthUnknown(t, col)
			}
			continue
		}
		f := a.unbucketedFinding(t, col, size, why)
		f.Severity, f.Value, f.Threshold = sev, value, threshold
		out = append(out, f)
	}
	return out
}

func (a *analysis) unbucketedFinding(t *tableView, col string, size float64, why string) Finding {
	var key []string
	for _, c := range partitionKey(t.schema) {
		key = append(key, c.Name)
	}
	c, _ := columnByName(t.schema, col)
	f := a.newFinding(KindUnbucketedTimeSeries, SeverityInfo, nil, t.keyspace, t.name)
	f.Unit = UnitBytes
	f.Source = joinSources("system_schema.columns", a.sizeSource())
	f.Figures = &Figures{PartitionBytes: size}
	f.Summary = fmt.Sprintf("%s clusters by %s (%s) with no time bucket in its partition key (%s); largest partition %s",
		t.key, col, c.Type, strings.Join(key, ", "), format.Bytes(size))
	if t.growth.ok {
		f.Figures.CurrentBytes, f.Figures.GrowthBytesPerSecond = t.growth.current, t.growth.slope
		f.Summary += fmt.Sprintf(", growing %s/day (over %s)", format.Bytes(t.growth.slope*86400), format.Seconds(t.growth.window))
	}
	f.Summary += ": " + why
	if ttl := t.schema.DefaultTTLSeconds; ttl > 0 {
		f.Summary += fmt.Sprintf("; default TTL %s bounds it (writes may set their own)", format.Seconds(float64(ttl)))
	} else if t.growth.ok {
		f.Summary += "; no default TTL: it grows for as long as its key is written"
	}
	f.Advice = a.splitAdvice(t, size)
	return f
}

// noteGrowthUnknown says so when a written time series with no bucket and
// no TTL is small but its growth is not measured yet. Small is all the
// sources can tell apart: max_partition_size reads 1 MiB for anything up to
// 943,127 bytes and moves in steps of 20 % or more, so a partition gaining
// a megabyte an hour shows as one step or none in a short history, and a
// per-user history that stays small looks the same. Only history tells
// them apart (forecast_min_points over forecast_min_span).
func (a *analysis) noteGrowthUnknown(t *tableView, col string) {
	written := false
	for _, tn := range t.nodes {
		written = written || tn.stats.LocalWrites.Count > 0
	}
	if !written || t.maxBytes <= 0 {
		return
	}
	have := "one collection"
	if pts := a.sizePointsNow(t); len(pts) > 1 {
		have = pointsOver(pts)
	}
	a.note("unbucketed_time_series of %s unknown: written, clustered by %s with no time bucket in its partition key and no default TTL; "+
		"whether its partitions keep growing needs %d points over %s of history (have %s); its largest partition fragment is up to %s (max_partition_size)",
		t.key, col, a.th.ForecastMinPoints, format.SecondsWords(a.th.ForecastMinSpan.Seconds()), have, format.Bytes(float64(t.maxBytes)))
}
