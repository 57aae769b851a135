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
	"github.com/partmon/partmon/internal/promexpr"
	"github.com/partmon/partmon/internal/promtest"
)

// expectedAbsent are the metrics partmon may not publish for what a query
// selects in this run, and why. A query that returns nothing must read one of
// them with selectors that really match no series; every other query must
// return data. (Other tests on the shared cluster may run repairs or load
// pm_hot meanwhile; then some of these exist, which is fine.)
var expectedAbsent = map[string]string{
	"partmon_partition_size_bytes": "top-K keys by size come from system.top_partitions, which Cassandra fills " +
		"only from repair validation and persists hourly; this test runs no repair",
	"partmon_partition_tombstones": "top-K keys by tombstones come from system.top_partitions too (see above)",
	"partmon_partition_operations_share_ratio": "hot keys come from `nodetool profileload` during live traffic; " +
		"the test enables no sampler (one JVM per table and node)",
	"partmon_table_traffic_skew_ratio": "needs >= 1 op/s of live traffic on a keyspace the nodes do not fully " +
		"replicate; only pm_hot (RF 1) is such, and this test puts no load on the fixtures",
	"partmon_finding_value": "published only for findings without a partition key (metric contract): a table " +
		"whose findings all name a key (pm_big.events once system.top_partitions lists it) has none",
	"partmon_finding_threshold": "as partmon_finding_value",
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
	for _, r := range rules {
		m, err := measurement(r.Expr)
		if err != nil {
			t.Fatal(err)
		}
		queries = append(queries, namedQuery{name: fmt.Sprintf("rule %s/%s", r.Name(), r.Labels["severity"]), expr: r.Expr, mustReturn: m})
	}

	var failures, empty []string
	logged := false
	promtest.Eventually(60*time.Second, func() bool {
		failures, empty = nil, nil
		for _, q := range queries {
			problem, absent := runQuery(e.prom, q)
			if problem != "" {
				failures = append(failures, problem)
			}
			if absent != "" {
				empty = append(empty, fmt.Sprintf("%s (no %s)", q.name, absent))
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
	t.Logf("%d queries (%d rules, %d dashboard) ran; %d empty for lack of an expected-absent metric:\n  %s",
		len(queries), len(rules), len(queries)-len(rules), len(empty), strings.Join(empty, "\n  "))

	checkRuleHealth(t, e, len(rules))
}

// namedQuery is a query to run; mustReturn is what has to return data (the
// query itself for dashboards, the rule's measurement for rules).
type namedQuery struct {
	name, expr, mustReturn string
}

// runQuery returns what is wrong with q ("" if nothing): it must run, and
// return data unless it reads an expected-absent metric that is absent for its
// selectors; that metric is returned as absent.
func runQuery(p *promtest.Prometheus, q namedQuery) (problem, absent string) {
	if _, err := p.Query(q.expr); err != nil {
		return fmt.Sprintf("%s: %v\n%s", q.name, err, q.expr), ""
	}
	n, err := p.Query(q.mustReturn)
	if err != nil {
		return fmt.Sprintf("%s: %v\n%s", q.name, err, q.mustReturn), ""
	}
	if n > 0 {
		return "", ""
	}
	a, err := promexpr.Analyze(q.mustReturn)
	if err != nil {
		return err.Error(), ""
	}
	var present []string
	for _, sel := range a.Selectors {
		if _, ok := expectedAbsent[sel.Metric]; !ok {
			continue
		}
		parts := []string{fmt.Sprintf("__name__=%q", sel.Metric)}
		for _, m := range sel.Matchers {
			parts = append(parts, m.String())
		}
		c, err := p.Query("count({" + strings.Join(parts, ", ") + "})")
		if err != nil {
			return err.Error(), ""
		}
		if c == 0 {
			return "", sel.Metric
		}
		present = append(present, sel.Metric)
	}
	if len(present) > 0 {
		return fmt.Sprintf("%s returns nothing, though what it reads of %v (expected absent) is there:\n%s", q.name, present, q.mustReturn), ""
	}
	return fmt.Sprintf("%s returns no data and reads no expected-absent metric:\n%s", q.name, q.mustReturn), ""
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
// comparisons (`x >= 52428800` becomes `x`) and with absent(x) read as x. An
// alert rule is mostly silent when all is well, but what it measures must exist.
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
		if n.Op.IsComparisonOperator() && !n.ReturnBool {
			switch {
			case n.RHS.Type() == parser.ValueTypeScalar && n.LHS.Type() == parser.ValueTypeVector:
				return n.LHS
			case n.LHS.Type() == parser.ValueTypeScalar && n.RHS.Type() == parser.ValueTypeVector:
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
