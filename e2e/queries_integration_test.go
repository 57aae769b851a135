//go:build integration

package e2e

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/prometheus/promql/parser"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/dashboards"
	"github.com/partmon/partmon/tools/promexpr"
	"github.com/partmon/partmon/tools/promtest"
)

// expectedAbsent are the metrics partmon may not publish for what a query
// selects in this run, and why. (Other tests on the shared cluster may run
// repairs or load pm_hot meanwhile; then some of these exist, which is fine.)
var expectedAbsent = map[string]string{
	"partmon_partition_tombstones": "keys by tombstones come from system.top_partitions (filled only by a repair, " +
		"which this test runs none of) and from the tombstone warnings Cassandra logged (pm_tomb's key); " +
		"the table dashboard's pm_big.events has none",
	"partmon_partition_operations_share_ratio": "hot keys come from `nodetool profileload` during live traffic; " +
		"the test enables no sampler (one JVM per table and node)",
	"partmon_table_traffic_skew_ratio": "needs >= 1 op/s of live traffic on a keyspace the nodes do not fully " +
		"replicate; only pm_hot (RF 1) is such, and this test puts no load on the fixtures",
	"node_table:partmon_table_traffic_skew_ratio:rate5m": "the store's skew of sidecars " +
		"(partmon-recording.yml): this Prometheus loads no recording rules, and the one partmon it " +
		"scrapes is in cluster mode, which publishes partmon_table_traffic_skew_ratio itself",
	"partmon_finding_value": "published only for findings without a partition key (metric contract): a table " +
		"whose findings all name a key (pm_big.events once system.top_partitions lists it) has none",
	"partmon_finding_threshold": "as partmon_finding_value",
	"partmon_guardrail_threshold_ratio": "published only for a set level: the fixture cluster leaves " +
		"data_disk_usage_percentage unset (partmon_guardrail_set says 0)",
}

// expectedEmpty are the queries that may return nothing in this run, each
// with its own reason. Such a query must read at least one expected-absent
// metric that really has no series for its selectors, and every other metric
// it reads must have series; every other query must return data.
var expectedEmpty = map[string]string{
	`partmon-overview.json panel "Traffic skew, top 10 (hot token ranges)" (id 23) query A`: "no traffic skew ratio: " +
		"this run puts no live load on pm_hot, the only keyspace the nodes do not fully replicate",
	`partmon-overview.json panel "Hot keys" (id 24) query A`:             "no hot keys: the run enables no nodetool profileload sampler",
	`partmon-overview.json panel "Hot keys" (id 24) query B`:             "no hot keys to grade: the run enables no nodetool profileload sampler",
	`partmon-overview.json panel "Guardrail thresholds" (id 40) query C`: "no disk-share guardrail: the fixture cluster leaves data_disk_usage_percentage unset (partmon_guardrail_set says 0)",
	`partmon-table.json panel "Traffic skew per node" (id 16) query A`: "the table dashboard shows pm_big.events, " +
		"RF 3 on 3 nodes: every node holds every range, so no node can take more than its share",
	`partmon-table.json panel "Top-K partition keys" (id 19) query B`: "pm_big.events has no deletes: " +
		"system.top_partitions lists no tombstone-heavy key of it",
	`partmon-table.json panel "Top-K partition keys" (id 19) query C`: "no hot keys: the run enables no nodetool profileload sampler",
	`partmon-table.json panel "Top-K partition keys" (id 19) query E`: "no hot keys to grade: the run enables no nodetool profileload sampler",
	"rule PartmonHotTokenRange/warning":                               "no traffic skew ratio: no live load on pm_hot (see the overview's traffic skew panel)",
	"rule PartmonHotTokenRange/critical":                              "no traffic skew ratio: no live load on pm_hot (see the overview's traffic skew panel)",
	"rule PartmonHotPartition/warning":                                "no hot keys: no nodetool profileload sampler in this run",
	"rule PartmonHotPartition/critical":                               "no hot keys: no nodetool profileload sampler in this run",
}

// selfHealthAlerts must not fire while partmon, its scrape and its cycles are healthy.
var selfHealthAlerts = []string{"PartmonDown", "PartmonTargetDown", "PartmonAbsent", "PartmonCycleStale"}

// checkQueries runs every alerting rule and every dashboard query on the real
// Prometheus scraping the real partmon, polling until data has arrived.
func checkQueries(t *testing.T, e *env) {
	rules, err := dashboards.RuleExpressions(filepath.Join(e.root, "deploy", "prometheus", "partmon-alerts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	queries, err := dashboardQueries(t, e)
	if err != nil {
		t.Fatal(err)
	}
	nDashboard := len(queries)
	for _, r := range rules {
		m, err := measurement(r.Expr)
		if err != nil {
			t.Fatal(err)
		}
		queries = append(queries, namedQuery{name: fmt.Sprintf("rule %s/%s", r.Name(), r.Labels["severity"]), expr: r.Expr, mustReturn: m})
	}
	if len(rules) == 0 || nDashboard == 0 {
		t.Fatalf("%d rules and %d dashboard queries to run: the files were not read", len(rules), nDashboard)
	}
	names := map[string]bool{}
	for _, q := range queries {
		if names[q.name] {
			t.Errorf("two queries are named %q: expected-empty reasons could not tell them apart", q.name)
		}
		names[q.name] = true
	}
	for name := range expectedEmpty {
		if !names[name] {
			t.Errorf("expectedEmpty names %q, which is no query any more: remove or rename it", name)
		}
	}

	var failures, empty []string
	var withData map[bool]int // dashboard query → how many returned data
	logged := false
	promtest.Eventually(60*time.Second, func() bool {
		failures, empty, withData = nil, nil, map[bool]int{}
		for i, q := range queries {
			problem, isEmpty := runQuery(e.prom, q)
			if problem != "" {
				failures = append(failures, problem)
			}
			if isEmpty {
				empty = append(empty, fmt.Sprintf("%s: %s", q.name, expectedEmpty[q.name]))
			} else {
				withData[i < nDashboard]++
			}
		}
		if len(failures) > 0 && !logged {
			logged = true
			t.Logf("%d queries not ready at first, e.g. %s", len(failures), strings.SplitN(failures[0], "\n", 2)[0])
		}
		return len(failures) == 0
	})
	for _, f := range failures {
		t.Error(f)
	}
	if withData[true] == 0 || withData[false] == 0 {
		t.Errorf("%d of %d dashboard queries and %d of %d rules returned data: the run checked nothing",
			withData[true], nDashboard, withData[false], len(rules))
	}
	t.Logf("%d queries (%d rules, %d dashboard) ran, %d returned data; %d empty, each for its reason:\n  %s",
		len(queries), len(rules), nDashboard, len(queries)-len(empty), len(empty), strings.Join(empty, "\n  "))

	checkRuleHealth(t, e, len(rules))
}

// namedQuery is a query to run; mustReturn is what has to return data (the
// query itself for dashboards, the rule's measurement for rules).
type namedQuery struct {
	name, expr, mustReturn string
}

// runQuery returns what is wrong with q ("" if nothing) and whether it came
// back empty. It must run and return data, unless it has an expected-empty
// reason; then every metric it reads must have series for its selectors
// except expected-absent ones, and one of those must really have none.
func runQuery(p *promtest.Prometheus, q namedQuery) (problem string, empty bool) {
	if _, err := p.Query(q.expr); err != nil {
		return fmt.Sprintf("%s: %v\n%s", q.name, err, q.expr), false
	}
	n, err := p.Query(q.mustReturn)
	if err != nil {
		return fmt.Sprintf("%s: %v\n%s", q.name, err, q.mustReturn), false
	}
	if n > 0 {
		return "", false
	}
	if _, ok := expectedEmpty[q.name]; !ok {
		return fmt.Sprintf("%s returns no data and has no expected-empty reason:\n%s", q.name, q.mustReturn), true
	}
	a, err := promexpr.Analyze(q.mustReturn)
	if err != nil {
		return err.Error(), true
	}
	var missing, absent []string
	for _, sel := range a.Selectors {
		parts := []string{fmt.Sprintf("__name__=%q", sel.Metric)}
		for _, m := range sel.Matchers {
			parts = append(parts, m.String())
		}
		selector := "{" + strings.Join(parts, ", ") + "}"
		c, err := p.Query("count(" + selector + ")")
		if err != nil {
			return err.Error(), true
		}
		_, mayBeAbsent := expectedAbsent[sel.Metric]
		switch {
		case c == 0 && mayBeAbsent:
			absent = append(absent, selector)
		case c == 0:
			missing = append(missing, selector)
		}
	}
	if len(missing) > 0 {
		return fmt.Sprintf("%s reads %s, which has no series and is not expected absent:\n%s", q.name, strings.Join(missing, ", "), q.mustReturn), true
	}
	if len(absent) == 0 {
		return fmt.Sprintf("%s returns nothing though every metric it reads has series; its reason (%s) no longer explains it:\n%s",
			q.name, expectedEmpty[q.name], q.mustReturn), true
	}
	return "", true
}

// dashboardQueries expands every dashboard query for the real cluster:
// $cluster is its name, multi-value variables are "All" (.*), and the table
// dashboard's single $keyspace/$table is the planted oversized partition's table.
func dashboardQueries(t *testing.T, e *env) ([]namedQuery, error) {
	dir := filepath.Join(e.root, "dashboards")
	ds, err := dashboards.Load(dir)
	if err != nil {
		return nil, err
	}
	qs, err := dashboards.Queries(dir)
	if err != nil {
		return nil, err
	}
	big := problems(t, e.truth, analyzer.KindOversizedPartition)[0]
	single := map[string]string{"keyspace": big.Keyspace, "table": big.Table}
	varsByFile := map[string]map[string]string{}
	for _, d := range ds {
		vars := map[string]string{"cluster": e.cluster}
		for _, v := range d.Templating.List {
			if v.Type != "query" || v.Name == "cluster" {
				continue
			}
			switch {
			case v.IncludeAll || v.Multi:
				vars[v.Name] = ".*"
			case single[v.Name] != "":
				vars[v.Name] = single[v.Name]
			default:
				return nil, fmt.Errorf("%s: no value for single-value variable $%s; add one to this test", d.File, v.Name)
			}
		}
		varsByFile[d.File] = vars
	}
	var out []namedQuery
	for _, q := range qs {
		expr, err := q.Expand(varsByFile[q.File])
		if err != nil {
			return nil, err
		}
		out = append(out, namedQuery{name: q.String(), expr: expr, mustReturn: expr})
	}
	return out, nil
}

// measurement is what a rule watches: its expression without the threshold
// comparisons (`x >= 52428800` and `x >= on (cluster) group_left ()
// max by (cluster) (partmon_threshold_...)` become `x`) and with absent(x)
// read as x. An alert rule is mostly silent when all is well, but what it
// measures must exist.
func measurement(expr string) (string, error) {
	root, err := promexpr.Parse(expr)
	if err != nil {
		return "", err
	}
	return withoutThresholds(root).String(), nil
}

func withoutThresholds(e parser.Expr) parser.Expr {
	switch n := e.(type) {
	case *parser.BinaryExpr:
		n.LHS, n.RHS = withoutThresholds(n.LHS), withoutThresholds(n.RHS)
		if n.Op == parser.LUNLESS {
			// A guard (unless partmon is down, unless a cycle finished):
			// what is measured is its left side; with the guard's own
			// comparison stripped it would take every series away.
			return n.LHS
		}
		if n.Op.IsComparisonOperator() && !n.ReturnBool {
			switch {
			case isThreshold(n.RHS) && n.LHS.Type() == parser.ValueTypeVector:
				return n.LHS
			case isThreshold(n.LHS) && n.RHS.Type() == parser.ValueTypeVector:
				return n.RHS
			}
		}
		return n
	case *parser.ParenExpr:
		n.Expr = withoutThresholds(n.Expr)
		return n
	case *parser.AggregateExpr:
		n.Expr = withoutThresholds(n.Expr)
		return n
	case *parser.Call:
		if n.Func.Name == "absent" && len(n.Args) == 1 {
			return withoutThresholds(n.Args[0])
		}
		for i, a := range n.Args {
			n.Args[i] = withoutThresholds(a)
		}
		return n
	case *parser.UnaryExpr:
		n.Expr = withoutThresholds(n.Expr)
		return n
	}
	return e
}

// isThreshold: a scalar, or an expression that reads only partmon's
// threshold gauges (partmon_threshold_*).
func isThreshold(e parser.Expr) bool {
	if e.Type() == parser.ValueTypeScalar {
		return true
	}
	var names []string
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		if vs, ok := n.(*parser.VectorSelector); ok {
			names = append(names, vs.Name)
		}
		return nil
	})
	for _, name := range names {
		if !strings.HasPrefix(name, "partmon_threshold_") {
			return false
		}
	}
	return len(names) > 0
}

// checkRuleHealth: Prometheus evaluated every rule of the copy without error,
// and partmon's self-health alerts are quiet.
func checkRuleHealth(t *testing.T, e *env, want int) {
	rules, err := e.prom.Rules()
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) != want {
		t.Errorf("Prometheus loaded %d rules, the file has %d", len(rules), want)
	}
	for _, r := range rules {
		if r.Health != "ok" {
			t.Errorf("rule %s/%s/%s: health %s %s", r.Group, r.Name, r.Labels["severity"], r.Health, r.LastError)
		}
	}
	alerts, err := e.prom.Alerts()
	if err != nil {
		t.Fatal(err)
	}
	var firing []string
	for _, a := range alerts {
		if slices.Contains(selfHealthAlerts, a.Labels["alertname"]) {
			t.Errorf("self-health alert %s fires: %v", a.Labels["alertname"], a.Labels)
		}
		firing = append(firing, a.Labels["alertname"]+"/"+a.Labels["severity"])
	}
	slices.Sort(firing)
	t.Logf("firing in Prometheus: %s", strings.Join(slices.Compact(firing), ", "))
}
