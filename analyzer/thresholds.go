package analyzer

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/partmon/partmon/internal/format"
)

const (
	kib = 1 << 10
	mib = 1 << 20
	gib = 1 << 30
)

// Thresholds are the limits the rules compare measurements with. Every field
// is a config key under `thresholds:`; DefaultThresholds documents why each
// default is what it is.
type Thresholds struct {
	// Partition size (oversized_partition, partition_growth_forecast).
	PartitionWarningBytes  int64 `yaml:"partition_warning_bytes"`
	PartitionCriticalBytes int64 `yaml:"partition_critical_bytes"`
	// Rows in one partition (wide_partition).
	PartitionRowsWarning  int64 `yaml:"partition_rows_warning"`
	PartitionRowsCritical int64 `yaml:"partition_rows_critical"`
	// OutlierRatio: a table whose largest partition is at least this many
	// times its mean has one outlier key, not uniformly big partitions.
	OutlierRatio float64 `yaml:"outlier_ratio"`

	// Effective ownership ÷ fair share (ownership_skew).
	OwnershipSkewWarning  float64 `yaml:"ownership_skew_warning"`
	OwnershipSkewCritical float64 `yaml:"ownership_skew_critical"`
	// Node load ÷ mean load of its DC (load_skew).
	LoadSkewWarning  float64 `yaml:"load_skew_warning"`
	LoadSkewCritical float64 `yaml:"load_skew_critical"`

	// Tombstones scanned per read at p99 (tombstone_heavy), and per partition
	// for keys listed by top_partitions / large_partitions.
	TombstonesPerReadWarning  float64 `yaml:"tombstones_per_read_warning"`
	TombstonesPerReadCritical float64 `yaml:"tombstones_per_read_critical"`
	// p99 tombstones ÷ (p99 tombstones + p99 live rows) per read.
	TombstoneRatioWarning  float64 `yaml:"tombstone_ratio_warning"`
	TombstoneRatioCritical float64 `yaml:"tombstone_ratio_critical"`
	// TombstoneRatioMinPerRead: below this many tombstones per read (p99) the
	// ratio is not judged: a few tombstones cost nothing whatever the ratio.
	TombstoneRatioMinPerRead float64 `yaml:"tombstone_ratio_min_per_read"`

	// A sampled key's share of its table's sampled operations on a node (hot_partition).
	HotKeyShareWarning  float64 `yaml:"hot_key_share_warning"`
	HotKeyShareCritical float64 `yaml:"hot_key_share_critical"`
	// A node's share of a table's local reads or writes in its DC ÷ its
	// share by effective ownership (hot_token_range).
	HotRangeRatioWarning  float64 `yaml:"hot_range_ratio_warning"`
	HotRangeRatioCritical float64 `yaml:"hot_range_ratio_critical"`
	// TrafficFloorOpsPerSecond: traffic rules ignore a table whose reads (or
	// writes) in a DC, and a key whose sampled operations, are slower than this.
	TrafficFloorOpsPerSecond float64 `yaml:"traffic_floor_ops_per_second"`

	// low_cardinality_key: fewer estimated partitions than this many per node.
	LowCardinalityPartitionsPerNode float64 `yaml:"low_cardinality_partitions_per_node"`
	// LowCardinalityMinTableBytes: smaller tables (one replica, uncompressed)
	// are never judged: their imbalance costs nothing.
	LowCardinalityMinTableBytes int64 `yaml:"low_cardinality_min_table_bytes"`

	// TimeSeriesLargeBytes: an unbucketed time series whose largest partition
	// reached this size is reported even before growth is measured.
	TimeSeriesLargeBytes int64 `yaml:"time_series_large_bytes"`

	// partition_growth_forecast: warn (critical) when the largest partition
	// is forecast to cross PartitionCriticalBytes within this time.
	ForecastWarning  time.Duration `yaml:"forecast_warning"`
	ForecastCritical time.Duration `yaml:"forecast_critical"`
	// A forecast needs at least this many history points spanning this long.
	ForecastMinPoints int           `yaml:"forecast_min_points"`
	ForecastMinSpan   time.Duration `yaml:"forecast_min_span"`

	// guardrail_crossing: warn when a key (or a table's largest partition)
	// is forecast to cross a guardrail's warn level, or a fail level that
	// only logs, within GuardrailWarnLead; critical when a fail level that
	// refuses writes is forecast within GuardrailFailLead.
	GuardrailWarnLead time.Duration `yaml:"guardrail_warn_lead"`
	GuardrailFailLead time.Duration `yaml:"guardrail_fail_lead"`

	// StaleAfter: a node whose failing sources' data is older than this is a
	// stale_data warning (younger: info). Sources that succeed are current
	// by their own schedule and never judged by age.
	StaleAfter time.Duration `yaml:"stale_after"`
	// The shipped alerting rules' critical staleness (the warnings read
	// StaleAfter): PartmonCycleStale when partmon has finished no cycle for
	// longer than CycleStaleCriticalAfter, PartmonNodeDataStale when a node's
	// data is older than NodeDataStaleCriticalAfter. The analyzer does not
	// read them; they are published for the rules and dashboards.
	CycleStaleCriticalAfter    time.Duration `yaml:"cycle_stale_critical_after"`
	NodeDataStaleCriticalAfter time.Duration `yaml:"node_data_stale_critical_after"`

	// TopK bounds Report.TopPartitions: per table, the K largest, the K most
	// tombstone-heavy and the K hottest keys.
	TopK int `yaml:"top_k"`
}

// DefaultThresholds are the defaults of the design ("What the analyzer finds").
func DefaultThresholds() Thresholds {
	return Thresholds{
		// Cassandra guidance: warn at 50 MB, keep partitions under 100 MB.
		PartitionWarningBytes:  50 * mib,
		PartitionCriticalBytes: 100 * mib,
		// Guidance: under 100,000 rows (also ScyllaDB's
		// compaction_rows_count_warning_threshold); ten times that is critical.
		PartitionRowsWarning:  100_000,
		PartitionRowsCritical: 1_000_000,
		// max_partition_size is a bucket bound (~1.2× steps) and the mean an
		// estimate: only an order of magnitude says "one outlier".
		OutlierRatio: 10,
		// Uneven node load above 20 % is the guidance; 50 % means one node
		// fills (and serves) half again as much as its peers.
		OwnershipSkewWarning:  1.2,
		OwnershipSkewCritical: 1.5,
		LoadSkewWarning:       1.2,
		LoadSkewCritical:      1.5,
		// tombstone_warn_threshold is 1,000; tombstone_failure_threshold
		// (100,000) aborts reads, so critical stays ten times below it.
		TombstonesPerReadWarning:  1_000,
		TombstonesPerReadCritical: 10_000,
		// Guidance: tombstone ratio above 20 %; above half, reads scan more
		// dead than live data.
		TombstoneRatioWarning:    0.2,
		TombstoneRatioCritical:   0.5,
		TombstoneRatioMinPerRead: 100,
		// A Zipf(1) key set of 1,000 keys gives its top key 13 %: a quarter of
		// a table's operations on one key is beyond normal skew; half is a
		// key that alone dominates the replica.
		HotKeyShareWarning:  0.25,
		HotKeyShareCritical: 0.5,
		// Twice the fair share by ownership (the design's traffic skew
		// default); four times is a replica set doing the work of four.
		HotRangeRatioWarning:  2,
		HotRangeRatioCritical: 4,
		// One operation per second: below it shares are noise, and idle
		// tables never alert.
		TrafficFloorOpsPerSecond: 1,
		// With P partitions hashed over N nodes, a node's count varies by
		// about 1/√(P/N): 100 per node keeps that near 10 %, half the load
		// skew warning.
		LowCardinalityPartitionsPerNode: 100,
		LowCardinalityMinTableBytes:     1 * mib,
		// The classic "keep partitions under 10 MB" rule for time series.
		TimeSeriesLargeBytes: 10 * mib,
		// A week leaves time to change a data model; a day is an emergency.
		ForecastWarning:  7 * 24 * time.Hour,
		ForecastCritical: 24 * time.Hour,
		// Size estimates refresh every 5 minutes and max_partition_size moves
		// on flushes: an hour and six points see several refreshes.
		ForecastMinPoints: 6,
		ForecastMinSpan:   time.Hour,
		// A crossing that only logs costs a log line: three days is time to
		// split a key or raise the threshold. A refused write is an outage
		// for that key: a week, as forecast_warning, to change the model.
		GuardrailWarnLead: 72 * time.Hour,
		GuardrailFailLead: 7 * 24 * time.Hour,
		// Three missed 5-minute cycles (15 one-minute ones): past a blip.
		StaleAfter: 15 * time.Minute,
		// The shipped rules' criticals since their first version. An hour
		// without a cycle is four stale_after periods of every alert of the
		// instance blind. Two hours without a node's data is longer than a
		// restart or an upgrade takes, and a node down that long is an hour
		// from outliving Cassandra's default max_hint_window (3h).
		CycleStaleCriticalAfter:    time.Hour,
		NodeDataStaleCriticalAfter: 2 * time.Hour,
		// Cassandra keeps 10 keys per table in system.top_partitions.
		TopK: 10,
	}
}

// Units of threshold values: they name the series' base unit (bytes,
// seconds, ratio) or, empty, a plain count.
const (
	thresholdBytes   = "bytes"
	thresholdSeconds = "seconds"
	thresholdRatio   = "ratio"
	thresholdCount   = ""
)

// A check is what a threshold's value must satisfy.
type check int

const (
	mustBePositive check = iota
	mustBeAboveOne       // a skew or ratio of 1 is fair, not a limit
	mustBeFraction       // (0, 1]
	mustNotBeNegative
	mustBeThreeOrMore // a robust fit needs three points
	mustBeTopK        // 1..1000
)

// thresholdSpec is one threshold: its config key, unit, check and value.
// thresholdSpecs is the one list of them: validation, the exported
// partmon_threshold_* series and the docs test all read it.
type thresholdSpec struct {
	key   string
	unit  string
	check check
	value func(Thresholds) float64
}

func seconds(d time.Duration) float64 { return d.Seconds() }

var thresholdSpecs = []thresholdSpec{
	{"partition_warning_bytes", thresholdBytes, mustBePositive, func(t Thresholds) float64 { return float64(t.PartitionWarningBytes) }},
	{"partition_critical_bytes", thresholdBytes, mustBePositive, func(t Thresholds) float64 { return float64(t.PartitionCriticalBytes) }},
	{"partition_rows_warning", thresholdCount, mustBePositive, func(t Thresholds) float64 { return float64(t.PartitionRowsWarning) }},
	{"partition_rows_critical", thresholdCount, mustBePositive, func(t Thresholds) float64 { return float64(t.PartitionRowsCritical) }},
	{"outlier_ratio", thresholdRatio, mustBeAboveOne, func(t Thresholds) float64 { return t.OutlierRatio }},
	{"ownership_skew_warning", thresholdRatio, mustBeAboveOne, func(t Thresholds) float64 { return t.OwnershipSkewWarning }},
	{"ownership_skew_critical", thresholdRatio, mustBeAboveOne, func(t Thresholds) float64 { return t.OwnershipSkewCritical }},
	{"load_skew_warning", thresholdRatio, mustBeAboveOne, func(t Thresholds) float64 { return t.LoadSkewWarning }},
	{"load_skew_critical", thresholdRatio, mustBeAboveOne, func(t Thresholds) float64 { return t.LoadSkewCritical }},
	{"tombstones_per_read_warning", thresholdCount, mustBePositive, func(t Thresholds) float64 { return t.TombstonesPerReadWarning }},
	{"tombstones_per_read_critical", thresholdCount, mustBePositive, func(t Thresholds) float64 { return t.TombstonesPerReadCritical }},
	{"tombstone_ratio_warning", thresholdRatio, mustBeFraction, func(t Thresholds) float64 { return t.TombstoneRatioWarning }},
	{"tombstone_ratio_critical", thresholdRatio, mustBeFraction, func(t Thresholds) float64 { return t.TombstoneRatioCritical }},
	{"tombstone_ratio_min_per_read", thresholdCount, mustNotBeNegative, func(t Thresholds) float64 { return t.TombstoneRatioMinPerRead }},
	{"hot_key_share_warning", thresholdRatio, mustBeFraction, func(t Thresholds) float64 { return t.HotKeyShareWarning }},
	{"hot_key_share_critical", thresholdRatio, mustBeFraction, func(t Thresholds) float64 { return t.HotKeyShareCritical }},
	{"hot_range_ratio_warning", thresholdRatio, mustBeAboveOne, func(t Thresholds) float64 { return t.HotRangeRatioWarning }},
	{"hot_range_ratio_critical", thresholdRatio, mustBeAboveOne, func(t Thresholds) float64 { return t.HotRangeRatioCritical }},
	{"traffic_floor_ops_per_second", thresholdCount, mustBePositive, func(t Thresholds) float64 { return t.TrafficFloorOpsPerSecond }},
	{"low_cardinality_partitions_per_node", thresholdCount, mustBePositive, func(t Thresholds) float64 { return t.LowCardinalityPartitionsPerNode }},
	{"low_cardinality_min_table_bytes", thresholdBytes, mustBePositive, func(t Thresholds) float64 { return float64(t.LowCardinalityMinTableBytes) }},
	{"time_series_large_bytes", thresholdBytes, mustBePositive, func(t Thresholds) float64 { return float64(t.TimeSeriesLargeBytes) }},
	{"forecast_warning", thresholdSeconds, mustBePositive, func(t Thresholds) float64 { return seconds(t.ForecastWarning) }},
	{"forecast_critical", thresholdSeconds, mustBePositive, func(t Thresholds) float64 { return seconds(t.ForecastCritical) }},
	{"forecast_min_points", thresholdCount, mustBeThreeOrMore, func(t Thresholds) float64 { return float64(t.ForecastMinPoints) }},
	{"forecast_min_span", thresholdSeconds, mustBePositive, func(t Thresholds) float64 { return seconds(t.ForecastMinSpan) }},
	{"guardrail_warn_lead", thresholdSeconds, mustBePositive, func(t Thresholds) float64 { return seconds(t.GuardrailWarnLead) }},
	{"guardrail_fail_lead", thresholdSeconds, mustBePositive, func(t Thresholds) float64 { return seconds(t.GuardrailFailLead) }},
	{"stale_after", thresholdSeconds, mustBePositive, func(t Thresholds) float64 { return seconds(t.StaleAfter) }},
	{"cycle_stale_critical_after", thresholdSeconds, mustBePositive, func(t Thresholds) float64 { return seconds(t.CycleStaleCriticalAfter) }},
	{"node_data_stale_critical_after", thresholdSeconds, mustBePositive, func(t Thresholds) float64 { return seconds(t.NodeDataStaleCriticalAfter) }},
	{"top_k", thresholdCount, mustBeTopK, func(t Thresholds) float64 { return float64(t.TopK) }},
}

// orderedPairs are (lower, higher) keys: the first must not exceed the second.
var orderedPairs = [][2]string{
	{"partition_warning_bytes", "partition_critical_bytes"},
	{"partition_rows_warning", "partition_rows_critical"},
	{"ownership_skew_warning", "ownership_skew_critical"},
	{"load_skew_warning", "load_skew_critical"},
	{"tombstones_per_read_warning", "tombstones_per_read_critical"},
	{"tombstone_ratio_warning", "tombstone_ratio_critical"},
	{"hot_key_share_warning", "hot_key_share_critical"},
	{"hot_range_ratio_warning", "hot_range_ratio_critical"},
	// A critical forecast is the nearer horizon.
	{"forecast_critical", "forecast_warning"},
	// The stale warnings (stale_after) come before the criticals.
	{"stale_after", "cycle_stale_critical_after"},
	{"stale_after", "node_data_stale_critical_after"},
}

// NamedThreshold is one threshold as partmon publishes it.
type NamedThreshold struct {
	Key   string  // config key under thresholds:
	Name  string  // the key with its base unit appended where the key lacks it
	Value float64 // in the base unit (durations in seconds)
}

// Named lists every threshold in a fixed order, for the partmon_threshold_*
// series that alerting rules compare against.
func (t Thresholds) Named() []NamedThreshold {
	out := make([]NamedThreshold, len(thresholdSpecs))
	for i, s := range thresholdSpecs {
		name := s.key
		if s.unit != thresholdCount && !strings.HasSuffix(name, "_"+s.unit) {
			name += "_" + s.unit
		}
		out[i] = NamedThreshold{Key: s.key, Name: name, Value: s.value(t)}
	}
	return out
}

// Validate checks each threshold and returns every problem, joined; each
// message starts with the config key it is about.
func (t Thresholds) Validate() error {
	var errs []error
	values := make(map[string]float64, len(thresholdSpecs))
	for _, s := range thresholdSpecs {
		v := s.value(t)
		values[s.key] = v
		if msg := s.check.problem(v, s.show(v)); msg != "" {
			errs = append(errs, fmt.Errorf("%s %s", s.key, msg))
		}
	}
	for _, p := range orderedPairs {
		lo, hi := values[p[0]], values[p[1]]
		if lo <= hi {
			continue
		}
		spec := specOf(p[0])
		if spec.unit == thresholdSeconds {
			errs = append(errs, fmt.Errorf("%s (%s) must not be longer than %s (%s)", p[0], spec.show(lo), p[1], spec.show(hi)))
			continue
		}
		errs = append(errs, fmt.Errorf("%s (%s) must not be above %s (%s)", p[0], spec.show(lo), p[1], spec.show(hi)))
	}
	return errors.Join(errs...)
}

func specOf(key string) thresholdSpec {
	for _, s := range thresholdSpecs {
		if s.key == key {
			return s
		}
	}
	panic("no threshold " + key)
}

// show writes a value as the config file's reader thinks of it: a duration
// as a duration ("0s"), a size in binary units with its byte count
// ("200 MiB, 209715200 bytes"), anything else in plain decimals, never in
// exponent notation.
func (s thresholdSpec) show(v float64) string {
	plain := strconv.FormatFloat(v, 'f', -1, 64)
	switch s.unit {
	case thresholdSeconds:
		return time.Duration(v * float64(time.Second)).String()
	case thresholdBytes:
		if math.Abs(v) >= 1024 {
			return format.Bytes(v) + ", " + plain + " bytes"
		}
	}
	return plain
}

// problem says what is wrong with v, or "" when it passes; got is v as
// the message shows it.
func (c check) problem(v float64, got string) string {
	switch c {
	case mustBePositive:
		if !(v > 0) {
			return "must be positive, got " + got
		}
	case mustBeAboveOne:
		if !(v > 1) {
			return "must be above 1, got " + got
		}
	case mustBeFraction:
		if !(v > 0 && v <= 1) {
			return "must be in (0, 1], got " + got
		}
	case mustNotBeNegative:
		if v < 0 {
			return "must not be negative, got " + got
		}
	case mustBeThreeOrMore:
		if v < 3 {
			return "must be at least 3, got " + got
		}
	case mustBeTopK:
		if v < 1 || v > 1000 {
			return "must be in 1..1000, got " + got
		}
	}
	return ""
}

// Bounds lists the thresholds a severity is judged against (each kind's
// warning and critical, stale_after and the staleness criticals), as Named
// writes them: what dashboards, pages and rules must read from the
// configuration or its series rather than write as numbers of their own.
func (t Thresholds) Bounds() []NamedThreshold {
	var out []NamedThreshold
	for _, n := range t.Named() {
		if strings.Contains(n.Key, "_warning") || strings.Contains(n.Key, "_critical") || n.Key == "stale_after" {
			out = append(out, n)
		}
	}
	return out
}

// BoundsByValue maps each of Bounds' values to its threshold, 0 and 1 left
// out (a yes or a no, never only a threshold): a test looks numbers up in it
// to catch a threshold written as a literal.
func (t Thresholds) BoundsByValue() map[float64]NamedThreshold {
	out := map[float64]NamedThreshold{}
	for _, b := range t.Bounds() {
		if b.Value != 0 && b.Value != 1 {
			out[b.Value] = b
		}
	}
	return out
}
