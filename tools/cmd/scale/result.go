package main

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"
)

// Result is one size's measurement, as `scale measure` writes it.
type Result struct {
	Sidecars int    `json:"sidecars"`
	Tables   int    `json:"tables"`
	Store    string `json:"store,omitempty"` // what stored the series (the script names it)

	HeadSeries     float64 `json:"head_series"`      // the store's head series
	PartmonSeries  float64 `json:"partmon_series"`   // series named partmon_* in the store
	SamplesPerSec  float64 `json:"samples_per_sec"`  // appended to the store's head
	StoreRSSBytes  float64 `json:"store_rss_bytes"`  // the store's resident memory, every process of it
	StoreDiskBytes float64 `json:"store_disk_bytes"` // its data directories (WAL and blocks)
	AgentRSSBytes  float64 `json:"agent_rss_bytes"`
	FleetRSSBytes  float64 `json:"fleet_rss_bytes"`

	Groups []GroupTiming `json:"groups"`

	Queries      []QueryOutcome `json:"queries"`
	QueryP50Secs float64        `json:"query_p50_seconds"`
	QueryP99Secs float64        `json:"query_p99_seconds"`

	// Planted are the fleet's planted problems, each with the active, not
	// inhibited alerts naming its node and table.
	Planted     []PlantOutcome `json:"planted"`
	OtherAlerts int            `json:"other_alerts"` // every other active alert in Alertmanager
	// OtherAlertNames counts the other alerts by name and severity.
	OtherAlertNames map[string]int `json:"other_alert_names"`
	AlertWaitSec    float64        `json:"alert_wait_seconds"` // until every alerting plant had its alert
}

// PlantOutcome is a planted problem and the alerts about it.
type PlantOutcome struct {
	Planted
	Alerts []Alert `json:"active_alerts"`
	// Muted are the alerts about it that an inhibition suppressed (the
	// rules' twins of a pushed alert).
	Muted []Alert `json:"muted_alerts,omitempty"`
}

// GroupTiming is one rule group's evaluation as vmalert measured it.
type GroupTiming struct {
	Name        string  `json:"name"`
	IntervalSec float64 `json:"interval_seconds"`
	MeanSec     float64 `json:"mean_seconds"`
	MaxSec      float64 `json:"max_seconds"`
	Iterations  float64 `json:"iterations"`
	Missed      float64 `json:"missed"` // iterations vmalert skipped because the previous one overran
	Rules       int     `json:"rules"`
	Unhealthy   int     `json:"unhealthy"` // rules whose last evaluation failed
}

// QueryOutcome is one dashboard query on the store.
type QueryOutcome struct {
	Name   string  `json:"name"`
	Series int     `json:"series"`
	Error  string  `json:"error,omitempty"`
	Secs   float64 `json:"seconds"` // the slowest of its runs
	// Table is the planted table whose $keyspace and $table gave the data.
	Table string `json:"table,omitempty"`
	// Unpublished are the families it reads that the replayed capture has
	// none of (e.g. no persisted top partitions, no growth history): an
	// empty result then says nothing about the store.
	Unpublished []string `json:"unpublished,omitempty"`
}

// SourceFamily is the family a series is made of: a recording rule's
// level:metric:operation names its metric; anything else is itself.
func SourceFamily(name string) string {
	if parts := strings.Split(name, ":"); len(parts) == 3 {
		return parts[1]
	}
	return name
}

// Planted is a problem the fleet planted (tools/cmd/fleet writes them).
type Planted struct {
	Kind      string `json:"kind"`
	Node      string `json:"node"`
	Keyspace  string `json:"keyspace"`
	Table     string `json:"table"`
	Key       string `json:"partition_key,omitempty"`
	MustAlert bool   `json:"alerts"` // must raise exactly one alert; else none
}

// names: an alert is about the planted problem when it names its table and
// its node, or no node (a sidecar's pushed alert stands for every replica).
func (p Planted) names(a Alert) bool {
	node, ok := a.Labels["node"]
	return (!ok || node == p.Node) && a.Labels["keyspace"] == p.Keyspace && a.Labels["table"] == p.Table
}

// Alert is an active alert as Alertmanager lists it.
type Alert struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Status      struct {
		State       string   `json:"state"` // active, suppressed
		InhibitedBy []string `json:"inhibitedBy,omitempty"`
	} `json:"status"`
}

// Key is the partition key an alert carries: a rule's alert as a label,
// partmon's pushed alert as an annotation (its labels identify the problem,
// which keeps its identity when the key list changes).
func (a Alert) Key() string {
	if k := a.Labels["partition_key"]; k != "" {
		return k
	}
	return a.Annotations["partition_key"]
}

// Failures are the acceptance checks this result fails: a dashboard query
// without data (or with an error; also when the replay publishes nothing it
// reads), anything but exactly one alert carrying
// its key for each planted problem that must alert, any alert about the one
// that must not (the slow growth) or about nothing planted, a rule group
// slower than its interval, skipping iterations, or with a failing rule.
func (r Result) Failures() []string {
	var out []string
	for _, q := range r.Queries {
		switch {
		case q.Error != "":
			out = append(out, fmt.Sprintf("dashboard query %s: %s", q.Name, q.Error))
		case q.Series == 0 && len(q.Unpublished) == 0:
			out = append(out, fmt.Sprintf("dashboard query %s: no data, though the fleet publishes every family it reads", q.Name))
		case q.Series == 0:
			out = append(out, fmt.Sprintf("dashboard query %s: not exercised: no planted sidecar publishes %s", q.Name, strings.Join(q.Unpublished, ", ")))
		}
	}
	if len(r.Queries) == 0 || len(r.Unexercised()) == len(r.Queries) {
		out = append(out, "no dashboard query had data")
	}
	if len(r.Planted) == 0 {
		out = append(out, "nothing was planted")
	}
	for _, p := range r.Planted {
		want := 0
		if p.MustAlert {
			want = 1
		}
		switch {
		case len(p.Alerts) != want:
			out = append(out, fmt.Sprintf("%d alerts %v for the planted %s on %s %s.%s, want %d", len(p.Alerts), alertNames(p.Alerts), p.Kind, p.Node, p.Keyspace, p.Table, want))
		case want == 1 && p.Alerts[0].Key() != p.Key:
			out = append(out, fmt.Sprintf("the planted %s's alert %s carries partition_key %q, want %q", p.Kind, p.Alerts[0].Labels["alertname"], p.Alerts[0].Key(), p.Key))
		}
	}
	if r.OtherAlerts > 0 {
		out = append(out, fmt.Sprintf("%d alerts about nothing planted: %v", r.OtherAlerts, r.OtherAlertNames))
	}
	if len(r.Groups) == 0 {
		out = append(out, "no rule group was evaluated")
	}
	for _, g := range r.Groups {
		switch {
		case g.Iterations == 0:
			out = append(out, fmt.Sprintf("rule group %s: never evaluated", g.Name))
		case g.MaxSec > g.IntervalSec:
			out = append(out, fmt.Sprintf("rule group %s: evaluation took %.2f s, longer than its %.0f s interval", g.Name, g.MaxSec, g.IntervalSec))
		case g.Missed > 0:
			out = append(out, fmt.Sprintf("rule group %s: %.0f iterations missed", g.Name, g.Missed))
		}
		if g.Unhealthy > 0 {
			out = append(out, fmt.Sprintf("rule group %s: %d rules failed their last evaluation", g.Name, g.Unhealthy))
		}
	}
	return out
}

func alertNames(as []Alert) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Labels["alertname"]+"/"+a.Labels["severity"])
	}
	return out
}

// Unexercised are the empty queries over families the replay does not publish.
func (r Result) Unexercised() []QueryOutcome {
	var out []QueryOutcome
	for _, q := range r.Queries {
		if q.Series == 0 && q.Error == "" && len(q.Unpublished) > 0 {
			out = append(out, q)
		}
	}
	return out
}

// Percentile is the p-th percentile (0-100) of xs, nearest rank; 0 for none.
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	return s[min(max(rank, 1), len(s))-1]
}

// PrintTable writes the results as the table make scale prints, then each
// failure, and says whether all passed.
func PrintTable(w io.Writer, rs []Result) bool {
	fmt.Fprintf(w, "%-18s %10s %10s %9s %9s %12s %10s %10s %9s %9s %s\n",
		"sidecars×tables", "series", "samples/s", "store RSS", "disk", "RSS/M series", "disk/M", "query p50", "p99", "alerts", "slowest rule group")
	ok := true
	for _, r := range rs {
		slowest := GroupTiming{}
		for _, g := range r.Groups {
			if g.MaxSec >= slowest.MaxSec {
				slowest = g
			}
		}
		perM := func(b float64) string {
			if r.HeadSeries == 0 {
				return "-"
			}
			return mib(b / r.HeadSeries * 1e6)
		}
		fmt.Fprintf(w, "%-18s %10.0f %10.0f %9s %9s %12s %10s %9.0fms %8.0fms %9s %s %.2fs/%.0fs\n",
			fmt.Sprintf("%d×%d", r.Sidecars, r.Tables), r.HeadSeries, r.SamplesPerSec, mib(r.StoreRSSBytes), mib(r.StoreDiskBytes),
			perM(r.StoreRSSBytes), perM(r.StoreDiskBytes), r.QueryP50Secs*1000, r.QueryP99Secs*1000,
			fmt.Sprintf("%d+%d", r.plantedAlerts(), r.OtherAlerts), slowest.Name, slowest.MaxSec, slowest.IntervalSec)
	}
	for _, r := range rs {
		if r.Store != "" {
			fmt.Fprintf(w, "  %d×%d store: %s\n", r.Sidecars, r.Tables, r.Store)
		}
		for _, g := range r.Groups {
			fmt.Fprintf(w, "  %d×%d rule group %-22s interval %3.0fs  mean %.3fs  max %.3fs  (%0.f runs)\n",
				r.Sidecars, r.Tables, g.Name, g.IntervalSec, g.MeanSec, g.MaxSec, g.Iterations)
		}
	}
	for _, r := range rs {
		for _, q := range r.Unexercised() {
			fmt.Fprintf(w, "  %d×%d not exercised (the replayed capture publishes no %s): %s\n",
				r.Sidecars, r.Tables, strings.Join(q.Unpublished, ", "), q.Name)
		}
		fmt.Fprintf(w, "  %d×%d dashboard queries with data: %d of %d\n",
			r.Sidecars, r.Tables, len(r.Queries)-len(r.Unexercised()), len(r.Queries))
		for _, p := range r.Planted {
			fmt.Fprintf(w, "  %d×%d planted %s on %s %s.%s key %q: alerts %v, muted by it %v\n",
				r.Sidecars, r.Tables, p.Kind, p.Node, p.Keyspace, p.Table, p.Key, alertNames(p.Alerts), alertNames(p.Muted))
		}
	}
	for _, r := range rs {
		for _, f := range r.Failures() {
			ok = false
			fmt.Fprintf(w, "FAIL %d×%d: %s\n", r.Sidecars, r.Tables, f)
		}
	}
	return ok
}

// plantedAlerts counts the alerts about planted problems.
func (r Result) plantedAlerts() int {
	n := 0
	for _, p := range r.Planted {
		n += len(p.Alerts)
	}
	return n
}

func mib(b float64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.2fGiB", b/(1<<30))
	}
	return fmt.Sprintf("%.1fMiB", b/(1<<20))
}

// since is the seconds since t, for the report.
func since(t time.Time) float64 { return math.Round(time.Since(t).Seconds()*10) / 10 }

// shortName trims a query's description for the report.
func shortName(s string) string { return strings.Join(strings.Fields(s), " ") }
