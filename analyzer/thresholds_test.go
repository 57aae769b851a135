package analyzer

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/model"
)

func TestDefaultThresholdsAreValid(t *testing.T) {
	if err := DefaultThresholds().Validate(); err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
}

func TestThresholdsValidate(t *testing.T) {
	cases := []struct {
		name   string
		change func(*Thresholds)
		want   []string // exact messages, in order
	}{
		{"warning above critical", func(th *Thresholds) { th.PartitionWarningBytes = 200 * mib },
			[]string{"partition_warning_bytes: (200 MiB, 209715200 bytes) must not be above partition_critical_bytes (100 MiB, 104857600 bytes)"}},
		{"large counts in plain decimals", func(th *Thresholds) { th.PartitionRowsWarning = 20_000_000 },
			[]string{"partition_rows_warning: (20000000) must not be above partition_rows_critical (1000000)"}},
		{"a small size in bytes", func(th *Thresholds) { th.LowCardinalityMinTableBytes = -512 },
			[]string{"low_cardinality_min_table_bytes: must be positive, got -512"}},
		{"zero size", func(th *Thresholds) { th.PartitionWarningBytes = 0 },
			[]string{"partition_warning_bytes: must be positive, got 0"}},
		{"equal levels are fine", func(th *Thresholds) { th.LoadSkewCritical = th.LoadSkewWarning }, nil},
		{"skew of 1 is fair, not a threshold", func(th *Thresholds) { th.OwnershipSkewWarning = 1 },
			[]string{"ownership_skew_warning: must be above 1, got 1"}},
		{"ratio above 1", func(th *Thresholds) { th.TombstoneRatioCritical = 1.5 },
			[]string{"tombstone_ratio_critical: must be in (0, 1], got 1.5"}},
		{"share of 1 allowed", func(th *Thresholds) { th.HotKeyShareCritical = 1 }, nil},
		{"negative floor", func(th *Thresholds) { th.TrafficFloorOpsPerSecond = -1 },
			[]string{"traffic_floor_ops_per_second: must be positive, got -1"}},
		{"forecast horizons swapped", func(th *Thresholds) { th.ForecastCritical = 30 * 24 * time.Hour },
			[]string{"forecast_critical: (720h0m0s) must not be longer than forecast_warning (168h0m0s)"}},
		{"two points cannot be robust", func(th *Thresholds) { th.ForecastMinPoints = 2 },
			[]string{"forecast_min_points: must be at least 3, got 2"}},
		{"stale never", func(th *Thresholds) { th.StaleAfter = 0 },
			[]string{"stale_after: must be positive, got 0s"}},
		{"stale critical before its warning", func(th *Thresholds) { th.StaleAfter = 3 * time.Hour },
			[]string{
				"stale_after: (3h0m0s) must not be longer than cycle_stale_critical_after (1h0m0s)",
				"stale_after: (3h0m0s) must not be longer than node_data_stale_critical_after (2h0m0s)",
			}},
		{"cycle stale critical never", func(th *Thresholds) { th.CycleStaleCriticalAfter = 0 },
			[]string{"cycle_stale_critical_after: must be positive, got 0s", "stale_after: (15m0s) must not be longer than cycle_stale_critical_after (0s)"}},
		{"top_k bounds", func(th *Thresholds) { th.TopK = 0 },
			[]string{"top_k: must be in 1..1000, got 0"}},
		{"several at once", func(th *Thresholds) {
			th.PartitionRowsWarning = -5
			th.TombstoneRatioMinPerRead = -1
		}, []string{
			"partition_rows_warning: must be positive, got -5",
			"tombstone_ratio_min_per_read: must not be negative, got -1",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			th := DefaultThresholds()
			c.change(&th)
			err := th.Validate()
			if len(c.want) == 0 {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("want %q, got nil", c.want)
			}
			if got := strings.Split(err.Error(), "\n"); strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Fatalf("messages\n got %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestHistoryLimitsValidate(t *testing.T) {
	if err := history.DefaultLimits().Validate(); err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
	l := history.DefaultLimits()
	l.MaxPoints, l.TrafficWindow = 4, 20*24*time.Hour
	want := "max_points: must be in 8..10000, got 4\ntraffic_window: (480h0m0s) must not be longer than max_age (336h0m0s)"
	if err := l.Validate(); err == nil || err.Error() != want {
		t.Fatalf("got %v, want %q", err, want)
	}
}

// thresholdSpecs is the one home of the thresholds: every config key of
// Thresholds has exactly one spec, and the spec reads that field.
func TestThresholdSpecsCoverEveryField(t *testing.T) {
	specs := map[string]thresholdSpec{}
	for _, s := range thresholdSpecs {
		if _, dup := specs[s.key]; dup {
			t.Fatalf("spec %s twice", s.key)
		}
		specs[s.key] = s
	}
	typ := reflect.TypeOf(Thresholds{})
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		key := f.Tag.Get("yaml")
		s, ok := specs[key]
		if !ok {
			t.Errorf("field %s (%s) has no thresholdSpec", f.Name, key)
			continue
		}
		delete(specs, key)
		// Changing the field must change the spec's value: it reads this field.
		th := DefaultThresholds()
		before := s.value(th)
		v := reflect.ValueOf(&th).Elem().Field(i)
		switch v.Kind() {
		case reflect.Int, reflect.Int64:
			v.SetInt(v.Int()*3 + 7)
		case reflect.Float64:
			v.SetFloat(v.Float()*3 + 7)
		default:
			t.Fatalf("field %s: unexpected kind %s", f.Name, v.Kind())
		}
		if s.value(th) == before {
			t.Errorf("spec %s does not read field %s", key, f.Name)
		}
	}
	for key := range specs {
		t.Errorf("spec %s has no field", key)
	}
}

func TestThresholdsNamed(t *testing.T) {
	named := map[string]float64{}
	for _, n := range DefaultThresholds().Named() {
		named[n.Name] = n.Value
	}
	for name, want := range map[string]float64{
		"partition_warning_bytes":                50 * mib,
		"partition_critical_bytes":               100 * mib,
		"ownership_skew_warning_ratio":           1.2,
		"forecast_critical_seconds":              86400,
		"tombstones_per_read_warning":            1000,
		"hot_key_share_warning_ratio":            0.25,
		"stale_after_seconds":                    900,
		"cycle_stale_critical_after_seconds":     3600,
		"node_data_stale_critical_after_seconds": 7200,
		"top_k":                                  10,
	} {
		if got, ok := named[name]; !ok || got != want {
			t.Errorf("%s = %v (present %v), want %v", name, got, ok, want)
		}
	}
}

// Bounds holds every limit a severity is judged by, the rules' staleness
// criticals too, and none of the other settings (a test looks literals up in
// it: a setting there would flag numbers that are no threshold).
func TestBoundsAreTheSeverityLimits(t *testing.T) {
	in := map[string]bool{}
	for _, b := range DefaultThresholds().Bounds() {
		in[b.Key] = true
	}
	for key, want := range map[string]bool{
		"partition_warning_bytes":        true,
		"forecast_critical":              true,
		"stale_after":                    true,
		"cycle_stale_critical_after":     true,
		"node_data_stale_critical_after": true,
		"forecast_min_span":              false,
		"traffic_floor_ops_per_second":   false,
		"top_k":                          false,
	} {
		if in[key] != want {
			t.Errorf("Bounds holds %s: %v, want %v", key, in[key], want)
		}
	}
}

// A table node keeps its series under the exporter's floor when one of them
// reaches a threshold a shipped rule compares it against, at warning level
// already; the thresholds table says which figure each threshold bounds.
func TestTableNodeReachesAlert(t *testing.T) {
	th := DefaultThresholds()
	quiet := TableNode{TableStats: model.TableStats{MaxPartitionBytes: mib, TombstonesPerRead: model.Distribution{P99: 10}}, ReadSkew: 1, WriteSkew: 1}
	cases := []struct {
		name   string
		th     Thresholds
		change func(*TableNode)
		want   bool
	}{
		{name: "quiet", th: th, change: func(*TableNode) {}},
		{name: "largest partition at the warning", th: th, change: func(tn *TableNode) { tn.MaxPartitionBytes = th.PartitionWarningBytes }, want: true},
		{name: "largest partition just below", th: th, change: func(tn *TableNode) { tn.MaxPartitionBytes = th.PartitionWarningBytes - 1 }},
		{name: "tombstones p99 at the warning", th: th, change: func(tn *TableNode) { tn.TombstonesPerRead.P99 = th.TombstonesPerReadWarning }, want: true},
		{name: "write skew at the warning", th: th, change: func(tn *TableNode) {
			tn.WriteSkew, tn.WriteRate = th.HotRangeRatioWarning, th.TrafficFloorOpsPerSecond
		}, want: true},
		{name: "read skew past the critical", th: th, change: func(tn *TableNode) {
			tn.ReadSkew, tn.ReadRate = th.HotRangeRatioCritical+1, th.TrafficFloorOpsPerSecond
		}, want: true},
		// A near-idle replica's skew is not what the hot-range alert compares.
		{name: "read skew past the critical, the node's reads under the traffic floor", th: th, change: func(tn *TableNode) {
			tn.ReadSkew, tn.ReadRate, tn.WriteRate = th.HotRangeRatioCritical+1, th.TrafficFloorOpsPerSecond/2, 100
		}},
		// Thresholds no rule compares a table node's series with.
		{name: "mean partition huge", th: th, change: func(tn *TableNode) { tn.MeanPartitionBytes = 1 << 40 }},
		{name: "a report without thresholds", change: func(tn *TableNode) { tn.MaxPartitionBytes = 1 << 40 }},
	}
	for _, c := range cases {
		tn := quiet
		c.change(&tn)
		if got := c.th.TableNodeReachesAlert(&tn); got != c.want {
			t.Errorf("%s: TableNodeReachesAlert = %v, want %v", c.name, got, c.want)
		}
	}
	for _, s := range thresholdSpecs {
		if s.tableNodeFigure != nil && !slices.ContainsFunc(s.readBy, func(r string) bool { return strings.HasPrefix(r, "Partmon") }) {
			t.Errorf("%s bounds a table node's series, but no shipped rule reads it", s.key)
		}
	}
}

// TestThresholdRowsInFieldOrder: wherever a row is registered, the table
// lists the rows in the order of their Thresholds fields (the docs, the
// partmon_threshold_* series and Named follow it).
func TestThresholdRowsInFieldOrder(t *testing.T) {
	if len(thresholdSpecs) != reflect.TypeOf(Thresholds{}).NumField() {
		t.Fatalf("%d rows for %d fields", len(thresholdSpecs), reflect.TypeOf(Thresholds{}).NumField())
	}
	for i, s := range thresholdSpecs {
		if fieldOf(s.key) != i {
			t.Errorf("row %d is %s, the field of index %d", i, s.key, fieldOf(s.key))
		}
	}
}
