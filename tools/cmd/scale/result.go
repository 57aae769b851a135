package main

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Result is one size's measurement, as `scale measure` writes it.
type Result struct {
	Sidecars int    `json:"sidecars"`
	Tables   int    `json:"tables"`
	Store    string `json:"store,omitempty"` // what stored the series (the script names it)
	// Mix and Floor are what the fleet replayed: its --mix (busy,
	// realistic) and --floor (default, off).
	Mix   string `json:"mix,omitempty"`
	Floor string `json:"floor,omitempty"`

	HeadSeries     float64 `json:"head_series"`      // the store's head series
	PartmonSeries  float64 `json:"partmon_series"`   // series named partmon_* in the store
	SamplesPerSec  float64 `json:"samples_per_sec"`  // appended to the store's head
	StoreRSSBytes  float64 `json:"store_rss_bytes"`  // the store's resident memory, every process of it
	StoreDiskBytes float64 `json:"store_disk_bytes"` // its data directories (WAL and blocks)
	AgentRSSBytes  float64 `json:"agent_rss_bytes"`
	FleetRSSBytes  float64 `json:"fleet_rss_bytes"`
	// VmalertRSSBytes is the ruler's resident memory (0 when not measured).
	VmalertRSSBytes float64 `json:"vmalert_rss_bytes"`

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
// slower than its interval, or than maxGroupShare of it when that is
// above 0, skipping iterations, or with a failing rule.
func (r Result) Failures(maxGroupShare float64) []string {
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
		case maxGroupShare > 0 && g.Share() > maxGroupShare:
			out = append(out, fmt.Sprintf("rule group %s: evaluation took %.2f s, %.0f %% of its %.0f s interval, over the budget of %.0f %%",
				g.Name, g.MaxSec, 100*g.Share(), g.IntervalSec, 100*maxGroupShare))
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

// Share is the group's slowest iteration as a share of its interval.
func (g GroupTiming) Share() float64 {
	if g.IntervalSec <= 0 {
		return 0
	}
	return g.MaxSec / g.IntervalSec
}

// GroupBudget is the largest share of its interval a rule group's slowest
// iteration may take, by fleet size: "0.25" for every size, "100:0.25,0.60"
// for up to 100 sidecars and then the rest, "" or 0 for none (a flag.Value).
type GroupBudget struct {
	steps []budgetStep // by increasing size
	rest  float64      // past the last step
}

type budgetStep struct {
	upTo  int
	share float64
}

// Set parses a budget: comma-separated N:share entries, by increasing N,
// and optionally a last bare share for the sizes past them.
func (b *GroupBudget) Set(v string) error {
	*b = GroupBudget{}
	v = strings.TrimSpace(v)
	if v == "" {
		return nil
	}
	parts := strings.Split(v, ",")
	for i, p := range parts {
		n, share, stepped := strings.Cut(strings.TrimSpace(p), ":")
		if !stepped {
			share = n
		}
		x, err := strconv.ParseFloat(share, 64)
		if err != nil || x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%q: share %q is not a number ≥ 0", v, share)
		}
		if !stepped {
			if i != len(parts)-1 {
				return fmt.Errorf("%q: a bare share is the rest's and comes last", v)
			}
			b.rest = x
			continue
		}
		upTo, err := strconv.Atoi(n)
		if err != nil || upTo < 1 || (len(b.steps) > 0 && upTo <= b.steps[len(b.steps)-1].upTo) {
			return fmt.Errorf("%q: %q wants sidecars N ≥ 1, increasing", v, p)
		}
		b.steps = append(b.steps, budgetStep{upTo, x})
	}
	return nil
}

func (b *GroupBudget) String() string {
	var out []string
	for _, s := range b.steps {
		out = append(out, fmt.Sprintf("%d:%g", s.upTo, s.share))
	}
	if b.rest > 0 || len(out) == 0 {
		out = append(out, fmt.Sprint(b.rest))
	}
	return strings.Join(out, ",")
}

// For is the budget of a fleet of sidecars; 0 is none.
func (b GroupBudget) For(sidecars int) float64 {
	for _, s := range b.steps {
		if sidecars <= s.upTo {
			return s.share
		}
	}
	return b.rest
}

// label names a result in the report: its size, and its mix and floor
// when recorded.
func (r Result) label() string {
	l := fmt.Sprintf("%d×%d", r.Sidecars, r.Tables)
	if r.Mix != "" || r.Floor != "" {
		l += fmt.Sprintf(" %s/%s", cmp.Or(r.Mix, "?"), cmp.Or(r.Floor, "?"))
	}
	return l
}

// PrintTable writes the results as the table make scale prints (per size:
// the store's partmon_* series per sidecar, samples/s, store and ruler
// memory, store memory per series; then each rule group's slowest
// iteration as a share of its interval), then each failure, and says
// whether all passed. budget is the rule groups' share of their interval.
func PrintTable(w io.Writer, rs []Result, budget GroupBudget) bool {
	fmt.Fprintf(w, "%-30s %14s %10s %10s %10s %11s %10s %10s %9s %9s %8s\n",
		"sidecars×tables mix/floor", "series/sidecar", "samples/s", "store RSS", "B/series", "vmalert RSS", "agent RSS", "query p50", "p99", "disk", "alerts")
	for _, r := range rs {
		perSidecar, perSeries, ruler := "-", "-", "-"
		if r.VmalertRSSBytes > 0 {
			ruler = mib(r.VmalertRSSBytes)
		}
		if r.Sidecars > 0 {
			perSidecar = fmt.Sprintf("%.0f", r.PartmonSeries/float64(r.Sidecars))
		}
		if r.HeadSeries > 0 {
			perSeries = fmt.Sprintf("%.0f", r.StoreRSSBytes/r.HeadSeries)
		}
		fmt.Fprintf(w, "%-30s %14s %10.0f %10s %10s %11s %10s %8.0fms %7.0fms %9s %8s\n",
			r.label(), perSidecar, r.SamplesPerSec, mib(r.StoreRSSBytes), perSeries, ruler, mib(r.AgentRSSBytes),
			r.QueryP50Secs*1000, r.QueryP99Secs*1000, mib(r.StoreDiskBytes), fmt.Sprintf("%d+%d", r.plantedAlerts(), r.OtherAlerts))
	}
	printGroupShares(w, rs, budget)
	fmt.Fprintln(w)
	for _, r := range rs {
		fmt.Fprintf(w, "  %s: mix %s, floor %s, %.0f partmon_* series in the store (%.0f in its head), fleet %s\n",
			r.label(), cmp.Or(r.Mix, "not recorded"), cmp.Or(r.Floor, "not recorded"), r.PartmonSeries, r.HeadSeries, mib(r.FleetRSSBytes))
		if r.Store != "" {
			fmt.Fprintf(w, "  %s store: %s\n", r.label(), r.Store)
		}
		for _, g := range r.Groups {
			fmt.Fprintf(w, "  %s rule group %-22s interval %3.0fs  mean %.3fs  max %.3fs  (%0.f runs)\n",
				r.label(), g.Name, g.IntervalSec, g.MeanSec, g.MaxSec, g.Iterations)
		}
	}
	for _, r := range rs {
		for _, q := range r.Unexercised() {
			fmt.Fprintf(w, "  %s not exercised (the replayed capture publishes no %s): %s\n",
				r.label(), strings.Join(q.Unpublished, ", "), q.Name)
		}
		fmt.Fprintf(w, "  %s dashboard queries with data: %d of %d\n",
			r.label(), len(r.Queries)-len(r.Unexercised()), len(r.Queries))
		for _, p := range r.Planted {
			fmt.Fprintf(w, "  %s planted %s on %s %s.%s key %q: alerts %v, muted by it %v\n",
				r.label(), p.Kind, p.Node, p.Keyspace, p.Table, p.Key, alertNames(p.Alerts), alertNames(p.Muted))
		}
	}
	ok := true
	for _, r := range rs {
		for _, f := range r.Failures(budget.For(r.Sidecars)) {
			ok = false
			fmt.Fprintf(w, "FAIL %s: %s\n", r.label(), f)
		}
	}
	return ok
}

// printGroupShares prints each rule group's slowest iteration ÷ its
// interval, per group and size, beside the size's budget.
func printGroupShares(w io.Writer, rs []Result, budget GroupBudget) {
	var names []string
	seen := map[string]bool{}
	for _, r := range rs {
		for _, g := range r.Groups {
			if !seen[g.Name] {
				seen[g.Name] = true
				names = append(names, g.Name)
			}
		}
	}
	sort.Strings(names)
	fmt.Fprintf(w, "\nrule groups, slowest iteration ÷ interval:\n%-30s %8s", "sidecars×tables mix/floor", "budget")
	for _, n := range names {
		fmt.Fprintf(w, " %*s", max(len(n), 8), n)
	}
	fmt.Fprintln(w)
	for _, r := range rs {
		b := "-"
		if x := budget.For(r.Sidecars); x > 0 {
			b = fmt.Sprintf("%.0f%%", 100*x)
		}
		fmt.Fprintf(w, "%-30s %8s", r.label(), b)
		for _, n := range names {
			cell := "-"
			for _, g := range r.Groups {
				if g.Name == n {
					cell = fmt.Sprintf("%.0f%% of %.0fs", 100*g.Share(), g.IntervalSec)
				}
			}
			fmt.Fprintf(w, " %*s", max(len(n), 8), cell)
		}
		fmt.Fprintln(w)
	}
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
