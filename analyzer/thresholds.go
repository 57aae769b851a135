package analyzer

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/partmon/partmon/internal/configerr"
	"github.com/partmon/partmon/internal/format"
)

const (
	kib = 1 << 10
	mib = 1 << 20
	gib = 1 << 30
)

// Thresholds are the limits the rules compare measurements with. Every field
// is a config key under `thresholds:` and has one row in thresholdSpecs,
// which holds its unit, check, default (with why) and readers.
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
	// LoadSkewMinMeanBytes: in a DC whose mean node load is below this, a
	// load skew is at most info (its advice kept): the load is too small to matter.
	LoadSkewMinMeanBytes int64 `yaml:"load_skew_min_mean_bytes"`

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

// DefaultThresholds are the defaults of the design ("What the analyzer
// finds"), each written once, in its row of thresholdSpecs with why.
func DefaultThresholds() Thresholds {
	var t Thresholds
	v := reflect.ValueOf(&t).Elem()
	for _, s := range thresholdSpecs {
		f := v.Field(fieldOf(s.key))
		switch f.Interface().(type) {
		case time.Duration:
			f.SetInt(int64(s.def * float64(time.Second)))
		case float64:
			f.SetFloat(s.def)
		default:
			f.SetInt(int64(s.def))
		}
	}
	return t
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

// thresholdSpec is one threshold, declared once: its config key (the yaml
// tag of its Thresholds field), unit, check, default, what reads it, whether
// a severity is judged against it and which key it must not exceed.
// Validation, the defaults, the exported partmon_threshold_* series, Bounds
// and the docs and rules tests all read thresholdSpecs.
type thresholdSpec struct {
	key   string
	unit  string
	check check
	def   float64 // in the base unit: bytes, seconds, a ratio or a count
	// readBy names the kinds whose rules read it and the shipped alerts
	// that compare against its series (deploy/prometheus/partmon-alerts.yml).
	readBy []string
	// bound: a severity is judged against it (Bounds).
	bound bool
	// notAbove are the keys this one must not exceed (a warning below its critical).
	notAbove []string
	// tableNodeFigure is the figure of a table node's series that a shipped
	// rule compares against it (nil: none does); the exporter's table floor
	// never hides a table node that reaches one (TableNodeReachesAlert).
	tableNodeFigure func(Thresholds, *TableNode) float64
}

// The figures of a table node's series that shipped rules compare against
// thresholds (tableNodeFigure) are beside the rules: maxPartitionFigure
// (partmon_table_max_partition_size_bytes), tombstonesP99Figure
// (partmon_table_tombstones_per_read_p99), trafficSkewFigure
// (partmon_table_traffic_skew_ratio).

// Durations of the defaults, in seconds.
const (
	minuteS = 60
	hourS   = 60 * minuteS
	dayS    = 24 * hourS
)

// thresholdSpecs is the one table of thresholds: each rule file registers
// the rows of the thresholds its rule reads (registerThresholds), the
// shared ones below; rows are listed in the order of their Thresholds fields.
var thresholdSpecs []thresholdSpec

// registerThresholds puts a rule's threshold rows into the table at their
// fields' places. A key without a field, or one registered twice, is a
// programming error.
func registerThresholds(specs []thresholdSpec) {
	for _, s := range specs {
		at := fieldOf(s.key)
		i := sort.Search(len(thresholdSpecs), func(i int) bool { return fieldOf(thresholdSpecs[i].key) >= at })
		if i < len(thresholdSpecs) && thresholdSpecs[i].key == s.key {
			panic("threshold " + s.key + " registered twice")
		}
		thresholdSpecs = slices.Insert(thresholdSpecs, i, s)
	}
}

// The thresholds no one rule owns.
func init() {
	registerThresholds([]thresholdSpec{
		// One operation per second: below it shares are noise, and idle
		// tables never alert.
		{key: "traffic_floor_ops_per_second", unit: thresholdCount, check: mustBePositive, def: 1,
			readBy: []string{KindHotTokenRange, KindHotPartition, KindSecondaryIndexHighCard}},
		// Cassandra keeps 10 keys per table in system.top_partitions.
		{key: "top_k", unit: thresholdCount, check: mustBeTopK, def: 10},
	})
}

// fields maps each config key to the index of its Thresholds field.
var fields = func() map[string]int {
	out := map[string]int{}
	typ := reflect.TypeOf(Thresholds{})
	for i := 0; i < typ.NumField(); i++ {
		out[typ.Field(i).Tag.Get("yaml")] = i
	}
	return out
}()

func fieldOf(key string) int {
	i, ok := fields[key]
	if !ok {
		panic("thresholds: no field for " + key)
	}
	return i
}

// value is the threshold's value in t, in its base unit.
func (s thresholdSpec) value(t Thresholds) float64 {
	switch v := reflect.ValueOf(t).Field(fieldOf(s.key)).Interface().(type) {
	case time.Duration:
		return v.Seconds()
	case float64:
		return v
	case int64:
		return float64(v)
	case int:
		return float64(v)
	}
	panic("thresholds: unexpected type of " + s.key)
}

// orderedPairs are (lower, higher) keys: the first must not exceed the second.
func orderedPairs() [][2]string {
	var out [][2]string
	for _, s := range thresholdSpecs {
		for _, hi := range s.notAbove {
			out = append(out, [2]string{s.key, hi})
		}
	}
	return out
}

// NamedThreshold is one threshold as partmon publishes it.
type NamedThreshold struct {
	Key   string  // config key under thresholds:
	Name  string  // the key with its base unit appended where the key lacks it
	Value float64 // in the base unit (durations in seconds)
	// ReadBy names the kinds whose rules read it and the shipped alerts
	// that compare against its series.
	ReadBy []string
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
		out[i] = NamedThreshold{Key: s.key, Name: name, Value: s.value(t), ReadBy: s.readBy}
	}
	return out
}

// TableNodeReachesAlert says whether one of tn's series reaches a threshold
// a shipped alert rule compares it against; a threshold of 0 (a report
// built without thresholds) is reached by nothing.
func (t Thresholds) TableNodeReachesAlert(tn *TableNode) bool {
	for _, s := range thresholdSpecs {
		if s.tableNodeFigure == nil {
			continue
		}
		if v := s.value(t); v > 0 && s.tableNodeFigure(t, tn) >= v {
			return true
		}
	}
	return false
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
			errs = append(errs, configerr.Field(s.key, "%s", msg))
		}
	}
	for _, p := range orderedPairs() {
		lo, hi := values[p[0]], values[p[1]]
		if lo <= hi {
			continue
		}
		spec := specOf(p[0])
		if spec.unit == thresholdSeconds {
			errs = append(errs, configerr.Field(p[0], "(%s) must not be longer than %s (%s)", spec.show(lo), p[1], spec.show(hi)))
			continue
		}
		errs = append(errs, configerr.Field(p[0], "(%s) must not be above %s (%s)", spec.show(lo), p[1], spec.show(hi)))
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
// warning and critical, stale_after and the staleness criticals: the rows
// marked bound), as Named writes them: what dashboards, pages and rules must
// read from the configuration or its series rather than write as numbers
// of their own.
func (t Thresholds) Bounds() []NamedThreshold {
	var out []NamedThreshold
	for i, n := range t.Named() {
		if thresholdSpecs[i].bound {
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
