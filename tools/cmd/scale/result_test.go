package main

import (
	"bytes"
	"strings"
	"testing"
)

// passing is a result every acceptance check passes: one planted problem
// that must alert (and does, once, with its key) and the slow growth that
// must not.
func passing() Result {
	hot := Planted{Kind: "hot_partition", Node: "127.0.1.6", Keyspace: "pm_hot", Table: "kv", Key: "hot", MustAlert: true}
	growth := Planted{Kind: "partition_growth_forecast", Node: "127.0.1.7", Keyspace: "pm_clean", Table: "users_t00000"}
	return Result{
		Sidecars: 10, Tables: 1000, HeadSeries: 82000,
		Planted: []PlantOutcome{
			{Planted: hot, Alerts: []Alert{{Labels: map[string]string{"alertname": "PartmonHotPartition", "severity": "critical", "keyspace": hot.Keyspace, "table": hot.Table},
				Annotations: map[string]string{"partition_key": hot.Key}}}},
			{Planted: growth},
		},
		Queries: []QueryOutcome{{Name: "a", Series: 3}, {Name: "b", Series: 1}},
		Groups:  []GroupTiming{{Name: "partmon-self", IntervalSec: 30, MaxSec: 0.2, Iterations: 8}},
	}
}

func TestFailures(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*Result)
		want   []string // substrings of the failures, in order; none: it passes
	}{
		{"passing", func(*Result) {}, nil},
		{"an empty query over published families", func(r *Result) { r.Queries[1].Series = 0 }, []string{"query b: no data"}},
		{"an empty query over a family the replay lacks", func(r *Result) {
			r.Queries[1].Series, r.Queries[1].Unpublished = 0, []string{"partmon_partition_size_bytes"}
		}, []string{"query b: not exercised: no planted sidecar publishes partmon_partition_size_bytes"}},
		{"every query empty for want of families", func(r *Result) {
			for i := range r.Queries {
				r.Queries[i].Series, r.Queries[i].Unpublished = 0, []string{"partmon_x"}
			}
		}, []string{"query a: not exercised", "query b: not exercised", "no dashboard query had data"}},
		{"a query error", func(r *Result) { r.Queries[0].Error = "timeout" }, []string{"query a: timeout"}},
		{"no alert", func(r *Result) { r.Planted[0].Alerts = nil }, []string{"0 alerts [] for the planted hot_partition"}},
		{"two alerts", func(r *Result) {
			r.Planted[0].Alerts = append(r.Planted[0].Alerts, Alert{Labels: map[string]string{"alertname": "PartmonHotPartition", "severity": "critical"}})
		}, []string{"2 alerts [PartmonHotPartition/critical PartmonHotPartition/critical] for the planted hot_partition"}},
		{"the alert without the key", func(r *Result) { r.Planted[0].Alerts[0].Annotations = nil }, []string{`carries partition_key "", want "hot"`}},
		{"a rule's alert with the key as a label", func(r *Result) {
			r.Planted[0].Alerts[0] = Alert{Labels: map[string]string{"alertname": "PartmonHotPartition", "partition_key": "hot"}}
		}, nil},
		{"an alert about the growth that must stay silent", func(r *Result) {
			r.Planted[1].Alerts = []Alert{{Labels: map[string]string{"alertname": "PartmonPartitionGrowthForecast", "severity": "warning"}}}
		}, []string{"1 alerts [PartmonPartitionGrowthForecast/warning] for the planted partition_growth_forecast on 127.0.1.7 pm_clean.users_t00000, want 0"}},
		{"an alert about nothing planted", func(r *Result) {
			r.OtherAlerts, r.OtherAlertNames = 2, map[string]int{"PartmonCollectorFailing/warning": 2}
		}, []string{"2 alerts about nothing planted: map[PartmonCollectorFailing/warning:2]"}},
		{"nothing planted", func(r *Result) { r.Planted = nil }, []string{"nothing was planted"}},
		{"a group slower than its interval", func(r *Result) { r.Groups[0].MaxSec = 31 }, []string{"longer than its 30 s interval"}},
		{"a group that missed iterations", func(r *Result) { r.Groups[0].Missed = 2 }, []string{"2 iterations missed"}},
		{"a group never evaluated", func(r *Result) { r.Groups[0].Iterations = 0 }, []string{"never evaluated"}},
		{"a failing rule", func(r *Result) { r.Groups[0].Unhealthy = 1 }, []string{"1 rules failed"}},
		{"no group", func(r *Result) { r.Groups = nil }, []string{"no rule group"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := passing()
			tc.change(&r)
			got := r.Failures()
			if len(got) != len(tc.want) {
				t.Fatalf("failures %q, want %d like %q", got, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("failure %d = %q, want it to say %q", i, got[i], w)
				}
			}
		})
	}
}

func TestPrintTableFailsOnAnyFailure(t *testing.T) {
	good, bad := passing(), passing()
	bad.Sidecars = 100
	bad.Planted[0].Alerts = nil
	var out bytes.Buffer
	if !PrintTable(&out, []Result{good}) {
		t.Errorf("a passing result reported as failing:\n%s", out.String())
	}
	out.Reset()
	if PrintTable(&out, []Result{good, bad}) {
		t.Errorf("a failing result reported as passing:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "FAIL 100×1000: 0 alerts") || strings.Contains(out.String(), "FAIL 10×1000") {
		t.Errorf("the table names the wrong failures:\n%s", out.String())
	}
}

func TestPercentile(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3, 6, 7, 8, 9, 10}
	for _, tc := range []struct{ p, want float64 }{{50, 5}, {99, 10}, {100, 10}, {1, 1}, {0, 1}} {
		if got := Percentile(xs, tc.p); got != tc.want {
			t.Errorf("p%g = %g, want %g", tc.p, got, tc.want)
		}
	}
	if Percentile(nil, 50) != 0 {
		t.Errorf("p50 of nothing is not 0")
	}
}

func TestSourceFamily(t *testing.T) {
	for in, want := range map[string]string{
		"table:partmon_table_disk_usage_bytes:sum": "partmon_table_disk_usage_bytes",
		"partmon_up":                      "partmon_up",
		"node:partmon_tables:count":       "partmon_tables",
		"partmon_table_local_reads_total": "partmon_table_local_reads_total",
	} {
		if got := SourceFamily(in); got != want {
			t.Errorf("SourceFamily(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPlantedNames(t *testing.T) {
	p := Planted{Node: "127.0.1.6", Keyspace: "pm_hot", Table: "kv"}
	for _, tc := range []struct {
		alert map[string]string
		want  bool
	}{
		{map[string]string{"node": "127.0.1.6", "keyspace": "pm_hot", "table": "kv"}, true},
		{map[string]string{"keyspace": "pm_hot", "table": "kv"}, true}, // a sidecar's pushed alert names no node
		{map[string]string{"node": "127.0.1.7", "keyspace": "pm_hot", "table": "kv"}, false},
		{map[string]string{"node": "127.0.1.6", "keyspace": "pm_hot", "table": "other"}, false},
		{map[string]string{"alertname": "PartmonAbsent"}, false},
	} {
		if got := p.names(Alert{Labels: tc.alert}); got != tc.want {
			t.Errorf("names(%v) = %v, want %v", tc.alert, got, tc.want)
		}
	}
}

func TestEveryPlantAlerted(t *testing.T) {
	r := passing()
	if r.everyPlantAlerted() {
		t.Errorf("the pushed alert alone counts: the rules' twin has not come yet")
	}
	r.Planted[0].Muted = []Alert{{Labels: map[string]string{"alertname": "PartmonHotPartition"}}}
	if !r.everyPlantAlerted() {
		t.Errorf("the pushed alert and its muted twin do not count")
	}
	r.Planted[0].Alerts = nil
	if r.everyPlantAlerted() {
		t.Errorf("a muted alert alone counts")
	}
}
