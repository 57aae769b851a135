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
			got := r.Failures(0)
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

// A group budget fails a group whose slowest iteration takes more than
// that share of its interval, and only then.
func TestFailuresGroupBudget(t *testing.T) {
	for _, tc := range []struct {
		name   string
		maxSec float64 // partmon-self's slowest iteration, of its 30 s
		missed float64
		budget float64
		want   string // substring of the one failure; "" none
	}{
		{"within the budget", 0.2, 0, 0.25, ""},
		{"over the budget", 9, 0, 0.25, "rule group partmon-self: evaluation took 9.00 s, 30 % of its 30 s interval, over the budget of 25 %"},
		{"at the budget", 7.5, 0, 0.25, ""},
		{"slow, no budget", 29, 0, 0, ""},
		{"slower than the interval, under a budget", 31, 0, 0.25, "longer than its 30 s interval"},
		{"a larger budget", 17, 0, 0.6, ""},
		{"missed iterations within the budget", 1, 2, 0.25, "2 iterations missed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := passing()
			r.Groups[0].MaxSec, r.Groups[0].Missed = tc.maxSec, tc.missed
			got := r.Failures(tc.budget)
			if (tc.want == "" && len(got) > 0) || (tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want))) {
				t.Errorf("failures %q, want %q", got, tc.want)
			}
		})
	}
}

func TestGroupBudget(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want map[int]float64 // sidecars → budget
		err  bool
	}{
		{"", map[int]float64{10: 0, 1000: 0}, false},
		{"0", map[int]float64{10: 0}, false},
		{"0.25", map[int]float64{1: 0.25, 10: 0.25, 300: 0.25}, false},
		{"100:0.25,0.60", map[int]float64{10: 0.25, 100: 0.25, 101: 0.6, 300: 0.6}, false},
		{"10:0.2,100:0.3", map[int]float64{10: 0.2, 11: 0.3, 100: 0.3, 300: 0}, false},
		{"0.6,100:0.25", nil, true},   // the rest comes last
		{"100:0.2,10:0.3", nil, true}, // sizes increase
		{"100:x", nil, true},
		{"-0.1", nil, true},
	} {
		var b GroupBudget
		err := b.Set(tc.in)
		if (err != nil) != tc.err {
			t.Errorf("Set(%q): %v, want an error %v", tc.in, err, tc.err)
			continue
		}
		for n, want := range tc.want {
			if got := b.For(n); got != want {
				t.Errorf("%q: budget at %d sidecars %g, want %g", tc.in, n, got, want)
			}
		}
	}
}

// The table prints, per size, the series per sidecar, store and ruler
// memory, bytes per series, the mix and floor, and each group's share.
func TestPrintTableColumns(t *testing.T) {
	r := passing()
	r.Mix, r.Floor = "realistic", "default"
	r.PartmonSeries, r.HeadSeries = 20000, 25000
	r.StoreRSSBytes, r.VmalertRSSBytes = 100<<20, 50<<20
	r.Groups = append(r.Groups, GroupTiming{Name: "partmon-table-rollups", IntervalSec: 60, MaxSec: 15, Iterations: 4})
	var out bytes.Buffer
	var b GroupBudget
	_ = b.Set("0.2")
	if PrintTable(&out, []Result{r}, b) {
		t.Errorf("a group at 25 %% of its interval passed a 20 %% budget:\n%s", out.String())
	}
	for _, want := range []string{
		"10×1000 realistic/default", // the label
		" 2000 ",                    // partmon series per sidecar
		"100.0MiB", "4194 ",         // store RSS and bytes per head series
		"50.0MiB",                 // vmalert
		"25% of 60s", "1% of 30s", // groups' shares
		"20%", // the budget
		"mix realistic, floor default",
		"FAIL 10×1000 realistic/default: rule group partmon-table-rollups: evaluation took 15.00 s, 25 % of its 60 s interval, over the budget of 20 %",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, out.String())
		}
	}
}

func TestPrintTableFailsOnAnyFailure(t *testing.T) {
	good, bad := passing(), passing()
	bad.Sidecars = 100
	bad.Planted[0].Alerts = nil
	var out bytes.Buffer
	if !PrintTable(&out, []Result{good}, GroupBudget{}) {
		t.Errorf("a passing result reported as failing:\n%s", out.String())
	}
	out.Reset()
	if PrintTable(&out, []Result{good, bad}, GroupBudget{}) {
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
