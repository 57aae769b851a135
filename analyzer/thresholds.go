package analyzer

import (
	"errors"
	"fmt"
	"time"
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

	// StaleAfter: a node whose failing sources' data is older than this is a
	// stale_data warning (younger: info). Sources that succeed are current
	// by their own schedule and never judged by age.
	StaleAfter time.Duration `yaml:"stale_after"`

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
		// Three missed 5-minute cycles (15 one-minute ones): past a blip.
		StaleAfter: 15 * time.Minute,
		// Cassandra keeps 10 keys per table in system.top_partitions.
		TopK: 10,
	}
}

// Validate checks each threshold and returns every problem, joined; each
// message starts with the config key it is about.
func (t Thresholds) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	positiveInt := func(key string, v int64) {
		if v <= 0 {
			bad("%s must be positive, got %d", key, v)
		}
	}
	positive := func(key string, v float64) {
		if !(v > 0) {
			bad("%s must be positive, got %g", key, v)
		}
	}
	atLeastOne := func(key string, v float64) {
		if !(v > 1) {
			bad("%s must be above 1, got %g", key, v)
		}
	}
	fraction := func(key string, v float64) {
		if !(v > 0 && v <= 1) {
			bad("%s must be in (0, 1], got %g", key, v)
		}
	}
	ordered := func(warnKey string, warn float64, critKey string, crit float64) {
		if warn > crit {
			bad("%s (%g) must not be above %s (%g)", warnKey, warn, critKey, crit)
		}
	}
	positiveDuration := func(key string, d time.Duration) {
		if d <= 0 {
			bad("%s must be positive, got %s", key, d)
		}
	}

	positiveInt("partition_warning_bytes", t.PartitionWarningBytes)
	positiveInt("partition_critical_bytes", t.PartitionCriticalBytes)
	ordered("partition_warning_bytes", float64(t.PartitionWarningBytes), "partition_critical_bytes", float64(t.PartitionCriticalBytes))
	positiveInt("partition_rows_warning", t.PartitionRowsWarning)
	positiveInt("partition_rows_critical", t.PartitionRowsCritical)
	ordered("partition_rows_warning", float64(t.PartitionRowsWarning), "partition_rows_critical", float64(t.PartitionRowsCritical))
	atLeastOne("outlier_ratio", t.OutlierRatio)

	atLeastOne("ownership_skew_warning", t.OwnershipSkewWarning)
	atLeastOne("ownership_skew_critical", t.OwnershipSkewCritical)
	ordered("ownership_skew_warning", t.OwnershipSkewWarning, "ownership_skew_critical", t.OwnershipSkewCritical)
	atLeastOne("load_skew_warning", t.LoadSkewWarning)
	atLeastOne("load_skew_critical", t.LoadSkewCritical)
	ordered("load_skew_warning", t.LoadSkewWarning, "load_skew_critical", t.LoadSkewCritical)

	positive("tombstones_per_read_warning", t.TombstonesPerReadWarning)
	positive("tombstones_per_read_critical", t.TombstonesPerReadCritical)
	ordered("tombstones_per_read_warning", t.TombstonesPerReadWarning, "tombstones_per_read_critical", t.TombstonesPerReadCritical)
	fraction("tombstone_ratio_warning", t.TombstoneRatioWarning)
	fraction("tombstone_ratio_critical", t.TombstoneRatioCritical)
	ordered("tombstone_ratio_warning", t.TombstoneRatioWarning, "tombstone_ratio_critical", t.TombstoneRatioCritical)
	if t.TombstoneRatioMinPerRead < 0 {
		bad("tombstone_ratio_min_per_read must not be negative, got %g", t.TombstoneRatioMinPerRead)
	}

	fraction("hot_key_share_warning", t.HotKeyShareWarning)
	fraction("hot_key_share_critical", t.HotKeyShareCritical)
	ordered("hot_key_share_warning", t.HotKeyShareWarning, "hot_key_share_critical", t.HotKeyShareCritical)
	atLeastOne("hot_range_ratio_warning", t.HotRangeRatioWarning)
	atLeastOne("hot_range_ratio_critical", t.HotRangeRatioCritical)
	ordered("hot_range_ratio_warning", t.HotRangeRatioWarning, "hot_range_ratio_critical", t.HotRangeRatioCritical)
	positive("traffic_floor_ops_per_second", t.TrafficFloorOpsPerSecond)

	positive("low_cardinality_partitions_per_node", t.LowCardinalityPartitionsPerNode)
	positiveInt("low_cardinality_min_table_bytes", t.LowCardinalityMinTableBytes)
	positiveInt("time_series_large_bytes", t.TimeSeriesLargeBytes)

	positiveDuration("forecast_warning", t.ForecastWarning)
	positiveDuration("forecast_critical", t.ForecastCritical)
	if t.ForecastCritical > t.ForecastWarning {
		bad("forecast_critical (%s) must not be longer than forecast_warning (%s)", t.ForecastCritical, t.ForecastWarning)
	}
	if t.ForecastMinPoints < 3 {
		bad("forecast_min_points must be at least 3, got %d", t.ForecastMinPoints)
	}
	positiveDuration("forecast_min_span", t.ForecastMinSpan)
	positiveDuration("stale_after", t.StaleAfter)
	if t.TopK < 1 || t.TopK > 1000 {
		bad("top_k must be in 1..1000, got %d", t.TopK)
	}
	return errors.Join(errs...)
}
