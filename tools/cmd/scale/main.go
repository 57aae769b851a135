// Command scale measures one size of the scale run (scripts/scale.sh) and
// prints the table of all sizes:
//
//	scale measure [flags] -out N.json   the store, rules, dashboards and alert of one size
//	scale report [-max-group-share S] N.json...
//	                                    the table; exit 1 when an acceptance check fails
//
// It only reads: the store's query API and /metrics, vmalert's /metrics and
// rules, Alertmanager's alerts, and /proc for resident memory.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/partmon/partmon/dashboards"
	"github.com/partmon/partmon/tools/promexpr"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: scale measure [flags] | scale report RESULT.json...")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "measure":
		if err := measure(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "scale measure:", err)
			os.Exit(1)
		}
	case "report":
		os.Exit(report(os.Args[2:]))
	default:
		fmt.Fprintf(os.Stderr, "scale: unknown command %q\n", os.Args[1])
		os.Exit(2)
	}
}

type measureFlags struct {
	store, vmalert, alertmanager       string
	storeName                          string
	storeMetrics, storeDirs            []string // one per ingesting process
	storePIDs                          []int    // every process of the store
	plantedFile, dashboards            string
	plantedSidecars                    []string // /metrics of the planted sidecars
	agentPID, fleetPID, vmalertPID     int
	sidecars, tables, queryRounds      int
	cluster, out                       string
	mix, floor                         string // what the fleet replays (its --mix and --floor)
	window, alertTimeout, readyTimeout time.Duration
}

func measure(args []string) error {
	f := parseMeasureFlags(args)
	r := Result{Sidecars: f.sidecars, Tables: f.tables, Store: f.storeName, Mix: f.mix, Floor: f.floor}
	b, err := os.ReadFile(f.plantedFile)
	if err != nil {
		return err
	}
	var planted []Planted
	if err := json.Unmarshal(b, &planted); err != nil {
		return fmt.Errorf("%s: %w", f.plantedFile, err)
	}
	for _, p := range planted {
		r.Planted = append(r.Planted, PlantOutcome{Planted: p})
	}
	if err := waitForFleet(f); err != nil {
		return err
	}
	if err := measureIngest(f, &r); err != nil {
		return err
	}
	// The alerts first: their wait (the rules' for:, minutes) lets every
	// recording group run on a full rate window before the dashboards read
	// what it records.
	if err := waitForAlert(f, &r); err != nil {
		return err
	}
	waitForRecordings(f)
	measureQueries(f, &r)
	if err := measureGroups(f, &r); err != nil {
		return err
	}
	for _, pid := range f.storePIDs {
		r.StoreRSSBytes += rssBytes(pid)
	}
	r.AgentRSSBytes, r.FleetRSSBytes, r.VmalertRSSBytes = rssBytes(f.agentPID), rssBytes(f.fleetPID), rssBytes(f.vmalertPID)
	for _, dir := range f.storeDirs {
		r.StoreDiskBytes += dirBytes(dir)
	}
	out, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(f.out, append(out, '\n'), 0o644)
}

// parseMeasureFlags reads measure's flags (it exits on a bad one).
func parseMeasureFlags(args []string) measureFlags {
	var f measureFlags
	fs := flag.NewFlagSet("measure", flag.ExitOnError)
	fs.StringVar(&f.store, "store", "", "the store's query URL")
	fs.StringVar(&f.storeName, "store-name", "", "what the store is, for the table")
	// Repeated, one per process: a store may be several.
	fs.Func("store-metrics", "/metrics URL of an ingesting process of the store, once per process (default: the query URL's)", func(v string) error {
		f.storeMetrics = append(f.storeMetrics, v)
		return nil
	})
	fs.Func("store-dir", "a data directory of the store, once per directory", func(v string) error {
		f.storeDirs = append(f.storeDirs, v)
		return nil
	})
	fs.Func("store-pid", "a process id of the store (ingester or querier), once per process", func(v string) error {
		n, err := strconv.Atoi(v)
		f.storePIDs = append(f.storePIDs, n)
		return err
	})
	fs.StringVar(&f.vmalert, "vmalert", "", "vmalert's URL")
	fs.StringVar(&f.alertmanager, "alertmanager", "", "Alertmanager's URL")
	fs.StringVar(&f.plantedFile, "planted", "", "the fleet's planted-problem file")
	fs.StringVar(&f.dashboards, "dashboards", "dashboards", "directory of the dashboards whose queries run")
	fs.Func("sidecar", "/metrics of a planted sidecar, once per sidecar: the families the replay publishes", func(v string) error {
		f.plantedSidecars = append(f.plantedSidecars, v)
		return nil
	})
	fs.IntVar(&f.agentPID, "agent-pid", 0, "")
	fs.IntVar(&f.fleetPID, "fleet-pid", 0, "")
	fs.IntVar(&f.vmalertPID, "vmalert-pid", 0, "vmalert's process id (the ruler's memory)")
	fs.StringVar(&f.mix, "mix", "", "the fleet's --mix, for the table")
	fs.StringVar(&f.floor, "floor", "", "the fleet's --floor, for the table")
	fs.IntVar(&f.sidecars, "sidecars", 0, "sidecars the fleet serves")
	fs.IntVar(&f.tables, "tables", 0, "tables per sidecar")
	fs.IntVar(&f.queryRounds, "query-rounds", 5, "runs of every dashboard query")
	fs.StringVar(&f.cluster, "cluster", "", "$cluster of the dashboards")
	fs.StringVar(&f.out, "out", "", "write the result here")
	fs.DurationVar(&f.window, "window", 2*time.Minute, "span over which samples/s is measured")
	fs.DurationVar(&f.alertTimeout, "alert-timeout", 6*time.Minute, "wait at most this long for the planted problems' alerts")
	fs.DurationVar(&f.readyTimeout, "ready-timeout", 5*time.Minute, "wait at most this long for every sidecar in the store")
	_ = fs.Parse(args)
	if len(f.storeMetrics) == 0 {
		f.storeMetrics = []string{f.store + "/metrics"}
	}
	return f
}

// waitForFleet waits until the store has every sidecar's partmon_up.
func waitForFleet(f measureFlags) error {
	deadline := time.Now().Add(f.readyTimeout)
	for {
		_, n, _, err := promQuery(f.store, `count(partmon_up == 1)`)
		if err == nil && int(n) >= f.sidecars {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("after %v the store has partmon_up of %.0f sidecars, want %d (%v)", f.readyTimeout, n, f.sidecars, err)
		}
		time.Sleep(5 * time.Second)
	}
}

// measureIngest reads the store's head series and its appended samples
// over the window.
func measureIngest(f measureFlags, r *Result) error {
	const appended, head = "prometheus_tsdb_head_samples_appended_total", "prometheus_tsdb_head_series"
	before, err := scrapeSum(f.storeMetrics, appended)
	if err != nil {
		return err
	}
	start := time.Now()
	time.Sleep(f.window)
	after, err := scrapeSum(f.storeMetrics, appended, head)
	if err != nil {
		return err
	}
	r.SamplesPerSec = (after[appended] - before[appended]) / time.Since(start).Seconds()
	r.HeadSeries = after[head]
	_, r.PartmonSeries, _, err = promQuery(f.store, `count({__name__=~"partmon_.+"})`)
	return err
}

// measureQueries runs every dashboard query against the store with the
// $keyspace and $table of each planted table in turn, as a user picks the
// table whose problem a panel is about, until one gives data; then
// queryRounds times in all. It keeps the slowest run of each query and the
// p50/p99 of all runs.
func measureQueries(f measureFlags, r *Result) {
	qs, err := dashboards.Queries(f.dashboards)
	if err != nil {
		r.Queries = append(r.Queries, QueryOutcome{Name: "loading dashboards", Error: err.Error()})
		return
	}
	published := map[string]*dto.MetricFamily{}
	for _, u := range f.plantedSidecars {
		fams, err := scrape(u)
		if err != nil {
			r.Queries = append(r.Queries, QueryOutcome{Name: "reading a planted sidecar", Error: err.Error()})
			return
		}
		for name, fam := range fams {
			if published[name] == nil || len(published[name].Metric) == 0 {
				published[name] = fam
			}
		}
	}
	var all []float64
	for _, q := range qs {
		o := QueryOutcome{Name: shortName(q.String())}
		var expr string
		for i, p := range r.Planted {
			vars := map[string]string{"cluster": f.cluster, "dc": ".*", "node": ".*", "keyspace": p.Keyspace, "table": p.Table, "__rate_interval": "2m"}
			e, err := q.Expand(vars)
			if err != nil {
				o.Error = err.Error()
				break
			}
			if i == 0 {
				expr = e
			}
			n, _, took, err := promQuery(f.store, e)
			all = append(all, took.Seconds())
			o.Secs = max(o.Secs, took.Seconds())
			if err != nil {
				o.Error = err.Error()
				break
			}
			if n > 0 {
				o.Series, o.Table, expr = n, p.Keyspace+"."+p.Table, e
				break
			}
		}
		for i := 1; i < f.queryRounds && o.Error == "" && expr != ""; i++ {
			_, _, took, err := promQuery(f.store, expr)
			if err != nil {
				o.Error = err.Error()
				break
			}
			all = append(all, took.Seconds())
			o.Secs = max(o.Secs, took.Seconds())
		}
		if o.Series == 0 && o.Error == "" {
			o.Unpublished = unpublished(expr, published)
		}
		r.Queries = append(r.Queries, o)
	}
	r.QueryP50Secs, r.QueryP99Secs = Percentile(all, 50), Percentile(all, 99)
}

// settle is how long waitForAlert goes on looking once the first alert came.
const settle = time.Minute

// waitForAlert waits until every planted problem that must alert has its
// alerts in Alertmanager (everyPlantAlerted), then keeps, per planted
// problem, the alerts naming its node and table, active and muted, and
// counts the other active ones.
func waitForAlert(f measureFlags, r *Result) error {
	start := time.Now()
	for {
		alerts, err := activeAlerts(f.alertmanager)
		if err != nil {
			return err
		}
		r.OtherAlerts, r.OtherAlertNames = 0, map[string]int{}
		for i := range r.Planted {
			r.Planted[i].Alerts, r.Planted[i].Muted = nil, nil
		}
		for _, a := range alerts {
			about := false
			for i := range r.Planted {
				if !r.Planted[i].names(a) {
					continue
				}
				about = true
				if a.Status.State == "suppressed" {
					r.Planted[i].Muted = append(r.Planted[i].Muted, a)
				} else {
					r.Planted[i].Alerts = append(r.Planted[i].Alerts, a)
				}
			}
			if !about && a.Status.State != "suppressed" {
				r.OtherAlerts++
				r.OtherAlertNames[a.Labels["alertname"]+"/"+a.Labels["severity"]]++
			}
		}
		if r.AlertWaitSec == 0 && r.everyPlantAlerted() {
			r.AlertWaitSec = since(start)
			// Two more evaluations, for any second alert about the same thing.
			start = time.Now().Add(settle - f.alertTimeout)
		}
		if time.Since(start) > f.alertTimeout {
			return nil
		}
		time.Sleep(5 * time.Second)
	}
}

// waitForRecordings waits, at most alertTimeout, until every recording
// rule's last evaluation recorded something: a group that runs every few
// minutes (the sidecar skew) may not have had a full rate window yet when
// the alerts came, and the dashboards read what it records.
func waitForRecordings(f measureFlags) {
	deadline := time.Now().Add(f.alertTimeout)
	for {
		groups, err := vmalertGroups(f.vmalert)
		missing := unrecorded(groups)
		if err == nil && len(missing) == 0 {
			return
		}
		if time.Now().After(deadline) {
			fmt.Fprintf(os.Stderr, "scale measure: after %v these recording rules still record nothing: %v (%v)\n", f.alertTimeout, missing, err)
			return
		}
		time.Sleep(5 * time.Second)
	}
}

// everyPlantAlerted: each planted problem that must alert has its active
// alert and the rules' alert about it too, muted or not: a pushed alert
// comes at once, the rules' after their `for:`, and only then does the
// count of active alerts say whether the inhibitions hold.
func (r *Result) everyPlantAlerted() bool {
	for _, p := range r.Planted {
		if p.MustAlert && (len(p.Alerts) == 0 || len(p.Alerts)+len(p.Muted) < 2) {
			return false
		}
	}
	return len(r.Planted) > 0
}

// measureGroups reads each rule group's iteration times from vmalert's
// own summary and each rule's health from its API.
func measureGroups(f measureFlags, r *Result) error {
	groups, err := vmalertGroups(f.vmalert)
	if err != nil {
		return err
	}
	m, err := scrape(f.vmalert + "/metrics")
	if err != nil {
		return err
	}
	for _, g := range groups {
		sel := map[string]string{"group": g.Name}
		t := GroupTiming{Name: g.Name, IntervalSec: g.Interval, Rules: len(g.Rules),
			Iterations: value(m, "vmalert_iteration_total", sel), Missed: value(m, "vmalert_iteration_missed_total", sel)}
		// VictoriaMetrics writes its summaries without TYPE lines: the
		// quantiles, _sum and _count come as untyped families.
		const d = "vmalert_iteration_duration_seconds"
		if c := value(m, d+"_count", sel); c > 0 {
			t.MeanSec = value(m, d+"_sum", sel) / c
		}
		if fam := m[d]; fam != nil {
			for _, s := range fam.Metric {
				if hasLabels(s, sel) && s.Untyped != nil {
					t.MaxSec = max(t.MaxSec, s.Untyped.GetValue()) // the largest quantile: the slowest recent iteration
				}
			}
		}
		for _, rule := range g.Rules {
			if rule.Health != "ok" || rule.LastError != "" {
				t.Unhealthy++
			}
		}
		r.Groups = append(r.Groups, t)
	}
	return nil
}

// unpublished names the partmon families an expression reads that the
// replayed sidecar does not publish at all (a recorded series counts as its
// source family): a query over them has nothing to show in this replay.
func unpublished(expr string, published map[string]*dto.MetricFamily) []string {
	names, err := promexpr.MetricNames(expr)
	if err != nil {
		return nil
	}
	var out []string
	for _, n := range names {
		if src := SourceFamily(n); strings.HasPrefix(src, "partmon_") && !publishes(published, src) {
			out = append(out, src)
		}
	}
	return out
}

func publishes(published map[string]*dto.MetricFamily, family string) bool {
	for _, name := range []string{family, strings.TrimSuffix(family, "_total")} {
		if f := published[name]; f != nil && len(f.Metric) > 0 {
			return true
		}
	}
	return false
}

func report(args []string) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	var budget GroupBudget
	fs.Var(&budget, "max-group-share", "fail when a rule group's slowest iteration takes more than this share of its interval: "+
		"one share (0.25) or shares by size, N:share for sizes up to N sidecars then one for the rest (100:0.25,0.60); 0 or empty is off")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var rs []Result
	for _, f := range fs.Args() {
		b, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, "scale report:", err)
			return 1
		}
		var r Result
		if err := json.Unmarshal(b, &r); err != nil {
			fmt.Fprintf(os.Stderr, "scale report: %s: %v\n", f, err)
			return 1
		}
		rs = append(rs, r)
	}
	if len(rs) == 0 {
		fmt.Fprintln(os.Stderr, "scale report: no result to report")
		return 1
	}
	if !PrintTable(os.Stdout, rs, budget) {
		return 1
	}
	fmt.Println(strings.Repeat("-", 40))
	fmt.Println("scale: every acceptance check passed")
	return 0
}
