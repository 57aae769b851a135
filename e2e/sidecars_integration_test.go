//go:build integration

package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/partmon/partmon/alertmanager"
	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/tools/promexpr"
	"github.com/partmon/partmon/tools/promtest"
	"github.com/partmon/partmon/tools/testcluster"
	"github.com/partmon/partmon/tools/testkit"
)

// perProcessMetrics are published by every partmon about itself (or its
// own configuration), so N sidecars publish them N times by design: they
// differ by the instance label. Every other partmon series speaks for the
// cluster's data and must come from exactly one sidecar.
var perProcessMetrics = map[string]string{
	"partmon_up":                                           "whether this partmon could read the cluster",
	"partmon_build_info":                                   "this binary's version",
	"partmon_last_cycle_timestamp_seconds":                 "this partmon's last analysis",
	"partmon_cycle_duration_seconds":                       "this partmon's last analysis",
	"partmon_start_time_seconds":                           "this process's start",
	"partmon_config_last_reload_successful":                "this process's configuration",
	"partmon_config_last_reload_success_timestamp_seconds": "this process's configuration",
	"partmon_alerts_pushed_total":                          "this partmon's alert pusher",
	"partmon_alertmanager_errors_total":                    "this partmon's alert pusher",
	"partmon_analyzer_rule_failures":                       "this partmon's own analysis of its snapshot",
	"partmon_findings": "this partmon's own count of findings (the dashboards count distinct " +
		"partmon_finding_value series instead, see dashboards/dashboards_test.go)",
}

// perProcessPrefixes: the collector's self-metrics (each sidecar also reads
// the cluster-wide topology and schema for itself, node="") and the
// thresholds this partmon runs with.
var perProcessPrefixes = []string{"partmon_collector_", "partmon_threshold_"}

func perProcess(metric string) bool {
	if _, ok := perProcessMetrics[metric]; ok {
		return true
	}
	for _, p := range perProcessPrefixes {
		if strings.HasPrefix(metric, p) {
			return true
		}
	}
	return false
}

// sidecar is one `partmon run --mode sidecar` next to one node.
type sidecar struct {
	node, addr string
	proc       *promtest.Process
}

// TestSidecars runs README's main way: one partmon sidecar per node of the
// real fixture cluster, scraped by one real Prometheus with the shipped
// scrape configuration (deploy/prometheus/prometheus.yml, its partmon job
// given the three sidecars as targets and shorter intervals) and the
// shipped rules (every `for:` 0s), each sidecar pushing its key-level
// alerts to one real Alertmanager. Each planted problem alerts once, in
// Prometheus and among the pushed alerts, each dashboard query returns each
// table once, every data series comes from one sidecar only, and killing
// one sidecar loses that node's series and nothing else.
func TestSidecars(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	began := time.Now()
	e := &env{root: testkit.Root(t)}
	e.artifacts = filepath.Join(e.root, "test-artifacts")
	e.opts = promtest.Options{LogDir: filepath.Join(e.artifacts, "e2e-sidecars"), KeepLogs: os.Getenv("PARTMON_E2E_KEEP_LOGS") != ""}
	var err error
	if e.truth, err = testcluster.LoadTruth(); err != nil {
		t.Fatal(err)
	}
	hosts := testcluster.Hosts()
	session := testcluster.Session(t, hosts[0])
	if err := session.Query("SELECT cluster_name FROM system.local").WithContext(ctx).Scan(&e.cluster); err != nil {
		t.Fatalf("reading cluster_name: %v", err)
	}
	bin, err := partmonBinary(ctx)
	if err != nil {
		t.Fatal(err)
	}

	cfg := filepath.Join(t.TempDir(), "partmon.yml")
	if err := os.WriteFile(cfg, []byte(schedulesConfig()), 0o600); err != nil {
		t.Fatal(err)
	}
	// A real Alertmanager that every sidecar pushes its key-level alerts to.
	e.sink = newWebhookSink()
	sinkSrv := httptest.NewServer(e.sink)
	t.Cleanup(sinkSrv.Close)
	e.am = promtest.StartAlertmanager(t, alertmanagerConfig(sinkSrv.URL), e.opts)
	var cars []*sidecar
	var targets []string
	for i, h := range hosts {
		s := &sidecar{node: h, addr: testkit.FreeAddr(t)}
		// The README's command line, one per node.
		s.proc = promtest.Start(t, fmt.Sprintf("partmon-sidecar-%d", i+1), e.opts, bin, "run", "--mode", "sidecar", "--hosts", h,
			"--web.listen-address", s.addr, "--config.file", cfg, "--alertmanager.url", e.am.URL)
		cars = append(cars, s)
		targets = append(targets, s.addr)
	}
	e.prom = promtest.StartPrometheus(t, shippedScrapeConfig(t, e, targets), e.opts)
	for _, s := range cars {
		waitReadyz(t, s.proc, "http://"+s.addr)
	}
	t.Logf("three sidecars ready %s after the start", time.Since(began).Round(100*time.Millisecond))

	t.Run("each problem alerts once", func(t *testing.T) { checkAlertsOnce(t, e) })
	t.Run("each problem is pushed to Alertmanager once", func(t *testing.T) { checkPushedOnce(t, e, cars) })
	t.Run("every data series from one sidecar", func(t *testing.T) { checkSeriesOnce(t, e) })
	t.Run("each dashboard query returns each table once", func(t *testing.T) { checkDashboardsOnce(t, e) })
	t.Run("a killed sidecar loses only its node's series", func(t *testing.T) { checkSidecarKilled(t, e, cars[len(cars)-1]) })
	t.Logf("sidecar test took %s", time.Since(began).Round(time.Second))
}

// shippedScrapeConfig is deploy/prometheus/prometheus.yml with the test's
// targets, rules and intervals: its partmon job (honor_labels and all) is
// kept, its static targets become the sidecars with the cluster label, its
// rule file the copy without `for:`, and alerting is dropped (the rule
// alerts are checked in Prometheus; the test's Alertmanager receives the
// sidecars' pushes only).
func shippedScrapeConfig(t *testing.T, e *env, targets []string) string {
	t.Helper()
	shipped := filepath.Join(e.root, "deploy", "prometheus", "prometheus.yml")
	data, err := os.ReadFile(shipped)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatalf("parsing %s: %v", shipped, err)
	}
	global, _ := cfg["global"].(map[string]any)
	if global == nil {
		t.Fatalf("%s has no global section", shipped)
	}
	global["scrape_interval"], global["scrape_timeout"], global["evaluation_interval"] = promInterval, promInterval, promInterval
	cfg["rule_files"] = []string{rulesWithoutFor(t, filepath.Join(e.root, "deploy", "prometheus", "partmon-alerts.yml"))}
	delete(cfg, "alerting")
	jobs, _ := cfg["scrape_configs"].([]any)
	found := false
	for _, j := range jobs {
		job, _ := j.(map[string]any)
		if job["job_name"] != "partmon" {
			continue
		}
		found = true
		if job["honor_labels"] != true {
			t.Fatalf("%s: the partmon job lost honor_labels: true", shipped)
		}
		job["static_configs"] = []any{map[string]any{"targets": targets, "labels": map[string]any{"cluster": e.cluster}}}
	}
	if !found {
		t.Fatalf("%s has no job partmon", shipped)
	}
	out, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func waitReadyz(t *testing.T, p *promtest.Process, base string) {
	t.Helper()
	client := &http.Client{Timeout: 5 * time.Second}
	promtest.WaitFor(t, 120*time.Second, p.Name+" /readyz/cycle", func() bool {
		if exited, err := p.Exited(); exited {
			t.Fatalf("%s exited: %v\n%s", p.Name, err, p.Output())
		}
		resp, err := client.Get(base + "/readyz/cycle")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}

// withoutInstance is a series' identity once the scrape target is left out.
func withoutInstance(labels map[string]string) string {
	var parts []string
	for k, v := range labels {
		if k != "instance" {
			parts = append(parts, k+"="+v)
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// checkAlertsOnce: the planted oversized partition fires
// PartmonOversizedPartition once for each of its replicas, no firing alert is
// a copy of another from a second sidecar, and partmon's self-health alerts
// are quiet.
func checkAlertsOnce(t *testing.T, e *env) {
	var want []map[string]string
	for _, p := range problems(t, e.truth, analyzer.KindOversizedPartition) {
		for _, node := range p.Nodes {
			want = append(want, map[string]string{"alertname": "PartmonOversizedPartition", "severity": "critical",
				"cluster": e.cluster, "keyspace": p.Keyspace, "table": p.Table, "node": node})
		}
	}
	var firing []promtest.FiringAlert
	ok := promtest.Eventually(120*time.Second, func() bool {
		alerts, err := e.prom.Alerts()
		if err != nil {
			return false
		}
		firing = slices.DeleteFunc(alerts, func(a promtest.FiringAlert) bool { return a.State != "firing" })
		for _, w := range want {
			if countAlerts(firing, w) == 0 {
				return false
			}
		}
		return true
	})
	for _, w := range want {
		if n := countAlerts(firing, w); n != 1 {
			t.Errorf("%d firing alerts %v, want 1 (ok %v)", n, w, ok)
		}
	}
	seen := map[string]int{}
	for _, a := range firing {
		seen[withoutInstance(a.Labels)]++
	}
	for id, n := range seen {
		if n > 1 {
			t.Errorf("alert {%s} fires %d times, once per sidecar: one problem, one alert", id, n)
		}
	}
	t.Logf("%d firing alerts, each once; %d PartmonOversizedPartition for the planted partition's replicas", len(firing), len(want))

	// Self-health: every sidecar's partmon_up is there, and the alerts that
	// say partmon is down or absent clear (PartmonAbsent fires before the
	// first scrape, `for:` being 0s here).
	hosts := testcluster.Hosts()
	promtest.WaitFor(t, 60*time.Second, "partmon_up from every sidecar", func() bool {
		n, err := e.prom.Query(fmt.Sprintf(`partmon_up{job="partmon", cluster=%q} == 1`, e.cluster))
		return err == nil && n == len(hosts)
	})
	var noisy []string
	quiet := promtest.Eventually(60*time.Second, func() bool {
		alerts, err := e.prom.Alerts()
		if err != nil {
			return false
		}
		noisy = nil
		for _, a := range alerts {
			if slices.Contains(selfHealthAlerts, a.Labels["alertname"]) {
				noisy = append(noisy, fmt.Sprintf("%v (%s)", a.Labels, a.State))
			}
		}
		return len(noisy) == 0
	})
	if !quiet {
		t.Errorf("self-health alerts fire with three healthy sidecars: %s", strings.Join(noisy, "; "))
	}
}

// checkPushedOnce: a planted problem on several replicas (RF 3) is seen
// by each of their sidecars, yet reaches Alertmanager as one alert, as in
// cluster mode: one problem, one alert. It waits until every sidecar that
// sees the problem has pushed, then for a settled Alertmanager.
func checkPushedOnce(t *testing.T, e *env, cars []*sidecar) {
	var required []map[string]string
	for _, kind := range []string{analyzer.KindOversizedPartition, analyzer.KindTombstoneHeavy} {
		for _, p := range problems(t, e.truth, kind) {
			if len(p.Nodes) > 1 {
				required = append(required, map[string]string{"alertname": alertmanager.AlertName(kind), "finding_id": "*",
					"cluster": e.cluster, "keyspace": p.Keyspace, "table": p.Table})
			}
		}
	}
	if len(required) == 0 {
		t.Fatal("truth.json plants no problem on several replicas")
	}
	promtest.WaitFor(t, 120*time.Second, "every sidecar to push an alert", func() bool {
		for _, c := range cars {
			if n, err := pushedBy(c); err != nil || n == 0 {
				return false
			}
		}
		return true
	})
	var counts map[string]int
	settled := promtest.Eventually(60*time.Second, func() bool {
		alerts, err := e.am.Alerts()
		if err != nil {
			return false
		}
		counts = map[string]int{}
		for _, r := range required {
			for _, a := range matching(alerts, r) {
				if a.Status.State == "active" {
					counts[fmt.Sprint(r)]++
				}
			}
		}
		for _, r := range required {
			if counts[fmt.Sprint(r)] == 0 {
				return false
			}
		}
		return true
	})
	alerts, err := e.am.Alerts()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range required {
		got := matching(alerts, r)
		if len(got) != 1 {
			t.Errorf("%d alerts %v in Alertmanager from %d sidecars, want 1 (settled %v): %s", len(got), r, len(cars), settled, describe(got))
		}
	}
	t.Logf("%d problems on several replicas, pushed by %d sidecars: alerts per problem %v", len(required), len(cars), counts)
}

// pushedBy is a sidecar's partmon_alerts_pushed_total.
func pushedBy(c *sidecar) (float64, error) {
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get("http://" + c.addr + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, "partmon_alerts_pushed_total "); ok {
			return strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	return 0, fmt.Errorf("%s publishes no partmon_alerts_pushed_total", c.addr)
}

func countAlerts(alerts []promtest.FiringAlert, want map[string]string) int {
	n := 0
	for _, a := range alerts {
		if hasLabels(a.Labels, want) {
			n++
		}
	}
	return n
}

// dataSeries are the cluster's partmon series that speak for its data, by
// identity without the instance label, with the instances that publish each.
func dataSeries(t *testing.T, e *env) map[string][]promtest.Sample {
	t.Helper()
	samples, err := e.prom.QueryVector(fmt.Sprintf(`{__name__=~"partmon_.+", cluster=%q}`, e.cluster))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]promtest.Sample{}
	for _, s := range samples {
		if !perProcess(s.Metric["__name__"]) {
			id := withoutInstance(s.Metric)
			out[id] = append(out[id], s)
		}
	}
	return out
}

// checkSeriesOnce: no data series is published by two sidecars. A
// table-level series without a node label that every sidecar publishes
// (growth, forecast) fails here.
func checkSeriesOnce(t *testing.T, e *env) {
	series := dataSeries(t, e)
	if len(series) == 0 {
		t.Fatal("no partmon data series in Prometheus")
	}
	byNode := map[string]int{}
	for id, ss := range series {
		byNode[ss[0].Metric["node"]]++
		if len(ss) > 1 {
			var from []string
			for _, s := range ss {
				from = append(from, s.Metric["instance"])
			}
			t.Errorf("series {%s} is published by %d sidecars (%s)", id, len(ss), strings.Join(from, ", "))
		}
	}
	for _, h := range testcluster.Hosts() {
		if byNode[h] == 0 {
			t.Errorf("no data series for node %s: its sidecar publishes nothing", h)
		}
	}
	t.Logf("%d data series: %v by node (\"\": table- and cluster-level)", len(series), byNode)
}

// checkDashboardsOnce runs every dashboard query: none may return two
// series that differ only by the sidecar that published them.
func checkDashboardsOnce(t *testing.T, e *env) {
	queries, err := dashboardQueries(t, e)
	if err != nil {
		t.Fatal(err)
	}
	if len(queries) == 0 {
		t.Fatal("no dashboard queries")
	}
	withData, perProcessPanels := 0, 0
	for _, q := range queries {
		if readsOnlyPerProcess(t, q.expr) {
			perProcessPanels++ // one row per partmon by design (cycle duration, versions)
			continue
		}
		samples, err := e.prom.QueryVector(q.expr)
		if err != nil {
			if strings.Contains(err.Error(), "not a vector") {
				continue // scalar panels have no series to repeat
			}
			t.Errorf("%s: %v", q.name, err)
			continue
		}
		if len(samples) > 0 {
			withData++
		}
		seen := map[string]int{}
		for _, s := range samples {
			seen[withoutInstance(s.Metric)]++
		}
		for id, n := range seen {
			if n > 1 {
				t.Errorf("%s returns {%s} %d times, once per sidecar:\n%s", q.name, id, n, q.expr)
			}
		}
	}
	if withData == 0 {
		t.Error("no dashboard query returns data")
	}
	t.Logf("%d dashboard queries, %d with data, none repeating a series; %d read only per-process metrics (one series per partmon)",
		len(queries), withData, perProcessPanels)
}

// readsOnlyPerProcess: every metric the query reads is one of perProcess.
func readsOnlyPerProcess(t *testing.T, expr string) bool {
	names, err := promexpr.MetricNames(expr)
	if err != nil {
		t.Fatalf("%v\n%s", err, expr)
	}
	for _, n := range names {
		if !perProcess(n) {
			return false
		}
	}
	return len(names) > 0
}

// presence is what must survive a sidecar's death: each metric for each
// node, and each table-level metric for each table.
func presence(series map[string][]promtest.Sample) map[string]bool {
	out := map[string]bool{}
	for _, ss := range series {
		m := ss[0].Metric
		out[m["__name__"]+" node="+m["node"]+" table="+m["keyspace"]+"."+m["table"]] = true
	}
	return out
}

// checkSidecarKilled kills the sidecar of the last node (SIGKILL): once
// Prometheus has failed to scrape it, that node's series are gone and every
// other node's series, and every table-level one, are still there.
func checkSidecarKilled(t *testing.T, e *env, victim *sidecar) {
	before := presence(dataSeries(t, e))
	victim.proc.Stop()
	promtest.WaitFor(t, 30*time.Second, "Prometheus to see the killed sidecar down", func() bool {
		s, err := e.prom.QueryVector(fmt.Sprintf(`up{job="partmon", instance=%q} == 0`, victim.addr))
		return err == nil && len(s) == 1
	})
	var lost, kept []string
	promtest.WaitFor(t, 30*time.Second, "the killed sidecar's series to go stale", func() bool {
		s, err := e.prom.QueryVector(fmt.Sprintf(`{__name__=~"partmon_.+", instance=%q}`, victim.addr))
		return err == nil && len(s) == 0
	})
	after := presence(dataSeries(t, e))
	for k := range before {
		ownNode := strings.Contains(k, " node="+victim.node+" ")
		switch {
		case ownNode && after[k]:
			kept = append(kept, k)
		case !ownNode && !after[k]:
			lost = append(lost, k)
		}
	}
	sort.Strings(lost)
	sort.Strings(kept)
	for _, k := range lost {
		t.Errorf("killing the sidecar of %s lost %s", victim.node, k)
	}
	for _, k := range kept {
		t.Errorf("%s is still published after its node's sidecar was killed", k)
	}
	t.Logf("after killing the sidecar of %s: %d metric/node/table combinations before, %d after", victim.node, len(before), len(after))
}
