package analyzer

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/internal/format"
	"github.com/partmon/partmon/model"
)

// largestKnownKey is the largest partition a key list measured (0: none).
func largestKnownKey(t *tableView) int64 {
	var size int64
	for _, tn := range t.nodes {
		size = max(size, tn.largestKeyBytes)
	}
	return size
}

// largestKnown is the table's largest partition: max_partition_size or a
// key list's measured size.
func largestKnown(t *tableView) float64 {
	return float64(max(t.maxBytes, largestKnownKey(t)))
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
//   - info also, with no TTL, when no size history shows growth and none
//     can rule it out (too short, or TWCS, where it never can): a key whose
//     sampled writes assure a rate that passes PartitionRowsWarning rows
//     within ForecastWarning if every write adds a row (value: that rate);
//   - nothing otherwise: small, or measured flat (not under TWCS), or
//     growing slowly; a written table with no TTL whose growth is not
//     measured yet gets a note saying so (noteGrowthUnknown), not a finding.
func ruleUnbucketedTimeSeries(a *analysis) []finding.Finding {
	var out []finding.Finding
	warnBytes := float64(a.th.PartitionWarningBytes)
	writers := unbucketed{a}.fastWriters()
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
		var sev finding.Severity
		var value, threshold float64
		var why string
		horizon := func(d time.Duration) float64 { return g.current + g.slope*d.Seconds() }
		switch {
		case size >= warnBytes:
			sev, value, threshold, why = finding.SeverityWarning, size, warnBytes, "it reached the partition warning size"
		case toWarn >= 0 && ttl == 0 && toWarn <= a.th.ForecastWarning.Seconds():
			sev, value, threshold = finding.SeverityWarning, horizon(a.th.ForecastWarning), warnBytes
			why = fmt.Sprintf("at this rate it reaches %s in %s (%s in %s)", format.Bytes(warnBytes), format.Seconds(toWarn),
				format.Bytes(value), format.Seconds(a.th.ForecastWarning.Seconds()))
		case toWarn >= 0 && ttl == 0 && toWarn <= a.h.Limits.MaxAge.Seconds():
			sev, value, threshold = finding.SeverityInfo, horizon(a.h.Limits.MaxAge), warnBytes
			why = fmt.Sprintf("at this rate it reaches %s in %s", format.Bytes(warnBytes), format.Seconds(toWarn))
		case g.ok && ttl > 0 && g.slope*ttl >= warnBytes:
			sev, value, threshold = finding.SeverityInfo, g.slope*ttl, warnBytes
			why = fmt.Sprintf("a TTL's worth of this growth is %s", format.Bytes(value))
		case !g.judged && size >= float64(a.th.TimeSeriesLargeBytes):
			sev, value, threshold = finding.SeverityInfo, size, float64(a.th.TimeSeriesLargeBytes)
			why = "growth is not measured yet (the history is shorter than " + format.Seconds(a.th.ForecastMinSpan.Seconds()) + ")"
		case ttl == 0 && !g.ok && (!g.judged || twcs(t)) && !deletedFrom(t) && writers[t.key].assured >= unbucketed{a}.rowsRateWarning():
			// No size history shows growth, and none can rule it out yet (or,
			// under TWCS, ever): the sampler's write rate into one key can,
			// unless reads meet tombstones (a delete is a write too).
			kw := writers[t.key]
			sev, value, threshold = finding.SeverityInfo, kw.assured, unbucketed{a}.rowsRateWarning()
			why = fmt.Sprintf("its busiest key %s took %s writes in %s on %s (at least %s by that sample), and every write at a new %s adds a row that stays: "+
				"at that rate it passes %s rows (the wide partition warning) in %s",
				kw.key, format.Count(float64(kw.count)), format.Seconds(kw.window), kw.node, writesPerSecond(kw.assured), col,
				format.Count(float64(a.th.PartitionRowsWarning)), format.Seconds(float64(a.th.PartitionRowsWarning)/kw.assured))
			f := unbucketed{a}.unbucketedFinding(t, col, size, why)
			f.Severity, f.Value, f.Threshold, f.Unit, f.PartitionKey = sev, value, threshold, finding.UnitOpsPerSec, kw.key
			f.Source = joinSources(f.Source, srcSampler)
			f.Advice, f.SuggestedKey = bucketAdvice{a}.rowsBucketAdvice(t, col, kw.assured)
			out = append(out, f)
			continue
		default:
			// Under TWCS a flat history is no evidence either (twcsWindow).
			if window, isTWCS := twcsWindow(t.schema); ttl == 0 && (!g.judged || isTWCS) {
				unbucketed{a}.noteGrowthUnknown(t, col, window)
			}
			continue
		}
		f := unbucketed{a}.unbucketedFinding(t, col, size, why)
		f.Severity, f.Value, f.Threshold = sev, value, threshold
		out = append(out, f)
	}
	return out
}

func (a unbucketed) unbucketedFinding(t *tableView, col string, size float64, why string) finding.Finding {
	var key []string
	for _, c := range partitionKey(t.schema) {
		key = append(key, c.Name)
	}
	c, _ := columnByName(t.schema, col)
	f := a.newFinding(KindUnbucketedTimeSeries, finding.SeverityInfo, nil, t.keyspace, t.name)
	f.Unit = finding.UnitBytes
	f.Source = joinSources("system_schema.columns", a.sizeSource())
	f.Figures = &finding.Figures{PartitionBytes: size}
	// max_partition_size is a bucket bound per sstable: "up to", unless a
	// key list measured the largest partition itself.
	largest := "largest partition " + format.Bytes(size)
	if known := largestKnownKey(t); float64(known) < size {
		largest = "largest partition up to " + format.Bytes(size)
	}
	f.Summary = fmt.Sprintf("%s clusters by %s (%s) with no time bucket in its partition key (%s); %s",
		t.key, col, c.Type, strings.Join(key, ", "), largest)
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
	f.Advice, f.SuggestedKey = bucketAdvice{a.analysis}.splitAdvice(t, size)
	return f
}

// noteGrowthUnknown says so when a written time series with no bucket and
// no TTL is small but its growth is not measured yet. Small is all the
// sources can tell apart: max_partition_size reads 1 MiB for anything up to
// 943,127 bytes and moves in steps of 20 % or more, so a partition gaining
// a megabyte an hour shows as one step or none in a short history, and a
// per-user history that stays small looks the same. Only history tells
// them apart (forecast_min_points over forecast_min_span), and under
// TimeWindowCompactionStrategy (window > 0) not even history: see twcsWindow.
func (a unbucketed) noteGrowthUnknown(t *tableView, col string, window time.Duration) {
	written := false
	for _, tn := range t.nodes {
		written = written || tn.stats.LocalWrites.Count > 0
	}
	if !written || t.maxBytes <= 0 {
		return
	}
	lead := fmt.Sprintf("unbucketed_time_series of %s unknown: written, clustered by %s with no time bucket in its partition key and no default TTL; ", t.key, col)
	if window > 0 {
		a.note(lead+"with TimeWindowCompactionStrategy in windows of %s no background compaction merges a partition's fragments of different windows, "+
			"so max_partition_size (up to %s) shows at most one window's worth of a partition, and a flat history does not mean its partitions stay small",
			format.SecondsWords(window.Seconds()), format.Bytes(float64(t.maxBytes)))
		return
	}
	have := "one collection"
	if pts := a.sizePointsNow(t); len(pts) > 1 {
		have = pointsOver(pts)
	}
	a.note(lead+"whether its partitions keep growing needs %d points over %s of history (have %s); its largest partition fragment is up to %s (max_partition_size)",
		a.th.ForecastMinPoints, format.SecondsWords(a.th.ForecastMinSpan.Seconds()), have, format.Bytes(float64(t.maxBytes)))
}

// deletedFrom says whether a read of the table met tombstones on any node
// lately (tombstones_per_read max over 1: its first bucket's bound is 1, so
// 1 is also a read that met none): rows are being deleted (or nulls
// written), so the sampler's writes, which count deletes, are not rows
// that stay.
func deletedFrom(t *tableView) bool {
	for _, tn := range t.nodes {
		if tn.stats.TombstonesPerRead.Max > 1 {
			return true
		}
	}
	return false
}

func twcs(t *tableView) bool {
	_, ok := twcsWindow(t.schema)
	return ok
}

// keyWrites is one key's sampled writes on one node.
type keyWrites struct {
	key, node string
	count     int64
	window    float64 // seconds
	// assured is the write rate the sample vouches for: the sampler's
	// guaranteed count (count − error) less hotKeyZ Poisson standard errors,
	// per second of the window, so a 10-second window's luck is not a rate.
	assured float64
}

// fastWriters is, per table key, the key whose sampled writes assure the
// highest rate on any node (tables with no sampled write are absent).
func (a unbucketed) fastWriters() map[string]keyWrites {
	best := map[string]keyWrites{}
	for _, at := range a.perNode() {
		for _, hp := range at.nd.HotPartitions {
			if hp.Op != "write" || hp.Window <= 0 {
				continue
			}
			sure := float64(hp.Count - hp.Error)
			rate := max(0, sure-hotKeyZ*math.Sqrt(max(0, sure))) / hp.Window
			tk := model.TableKey(hp.Keyspace, hp.Table)
			if rate > best[tk].assured {
				best[tk] = keyWrites{key: hp.Key, node: at.addr, count: hp.Count, window: hp.Window, assured: rate}
			}
		}
	}
	return best
}

// rowsRateWarning is the write rate at which a key that gains a row per
// write passes the wide partition warning within ForecastWarning.
func (a unbucketed) rowsRateWarning() float64 {
	return float64(a.th.PartitionRowsWarning) / a.th.ForecastWarning.Seconds()
}

// twcsWindow is the compaction window of a table compacted with
// TimeWindowCompactionStrategy (options compaction_window_size, default 1,
// and compaction_window_unit MINUTES, HOURS or DAYS, default DAYS:
// db/compaction/TimeWindowCompactionStrategyOptions.java, 4.0-5.0). TWCS
// groups sstables by the window of their newest write and its background
// compactions never take sstables of two windows (newestBucket; only a
// major compaction does), so a partition written over many windows keeps
// one fragment per window: max_partition_size, a per-sstable figure, stops
// rising once the first window closes while the partition keeps growing.
func twcsWindow(s *model.Table) (time.Duration, bool) {
	if s == nil || !strings.HasSuffix(s.Compaction["class"], "TimeWindowCompactionStrategy") {
		return 0, false
	}
	size := 1
	if v, err := strconv.Atoi(s.Compaction["compaction_window_size"]); err == nil && v > 0 {
		size = v
	}
	unit := map[string]time.Duration{"MINUTES": time.Minute, "HOURS": time.Hour, "DAYS": 24 * time.Hour}[strings.ToUpper(s.Compaction["compaction_window_unit"])]
	if unit == 0 {
		unit = 24 * time.Hour
	}
	return time.Duration(size) * unit, true
}

// unbucketed is the unbucketed_time_series rule's own reasoning over the index.
type unbucketed struct{ *analysis }

// KindUnbucketedTimeSeries names the unbucketed_time_series findings.
const KindUnbucketedTimeSeries = "unbucketed_time_series"

func init() {
	registerKind(9, KindFacts{Name: KindUnbucketedTimeSeries, Label: "unbucketed time series",
		Sentence:         "A time series grows in partitions whose key has no time bucket.",
		SizeIsTheProblem: true, RuleAlert: AlertAnalyzerFinding, TableWide: true,
		scope: scopeTable, problemOrder: 5, splitOrder: 1, rule: ruleUnbucketedTimeSeries})
}

// The thresholds the rule reads, each declared once, here, with why
// (thresholds.go: their check, unit and series).
func init() {
	registerThresholds([]thresholdSpec{
		// The classic "keep partitions under 10 MB" rule for time series.
		{key: "time_series_large_bytes", unit: thresholdBytes, check: mustBePositive, def: 10 * mib, readBy: []string{KindUnbucketedTimeSeries}},
	})
}
