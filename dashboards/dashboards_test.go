package dashboards

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/prometheus/model/labels"

	"github.com/partmon/partmon/tools/promexpr"
)

// The dashboards and their uids: links and provisioning use these, so they
// must never change.
var wantUIDs = map[string]string{
	"partmon-overview.json": "partmon-overview",
	"partmon-table.json":    "partmon-table",
}

const (
	datasourceRef = "${datasource}"
	// Stand-ins the queries are expanded with: a cluster name and a rate
	// window no query would write by hand, so finding them after expansion
	// proves the query used $cluster and $__rate_interval.
	clusterUnderTest = "cluster-under-test"
	rateWindow       = "17m"
)

var rateFuncs = []string{"rate", "irate", "increase"}

func loadDashboards(t *testing.T) []Dashboard {
	t.Helper()
	ds, err := Load(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) == 0 {
		t.Fatal("no dashboards found")
	}
	return ds
}

func TestDashboardFiles(t *testing.T) {
	ds := loadDashboards(t)
	seenUID := map[string]string{}
	var files []string
	for _, d := range ds {
		files = append(files, d.File)
		if want, ok := wantUIDs[d.File]; !ok {
			t.Errorf("%s: unexpected dashboard; add its uid to wantUIDs", d.File)
		} else if d.UID != want {
			t.Errorf("%s: uid %q, want %q (uids are stable: links and bookmarks use them)", d.File, d.UID, want)
		}
		if other, dup := seenUID[d.UID]; dup {
			t.Errorf("%s: uid %q already used by %s", d.File, d.UID, other)
		}
		seenUID[d.UID] = d.File
		if d.Editable {
			t.Errorf("%s: editable must be false (provisioned dashboards are changed in git)", d.File)
		}
		if d.Title == "" || d.Description == "" {
			t.Errorf("%s: needs a title and a description", d.File)
		}
		if !slices.Contains(d.Tags, "partmon") {
			t.Errorf("%s: needs the tag partmon (the dashboards link each other by it)", d.File)
		}
	}
	for f := range wantUIDs {
		if !slices.Contains(files, f) {
			t.Errorf("dashboard %s is missing", f)
		}
	}
}

// label_values(<selector>, <label>)
var labelValuesQuery = regexp.MustCompile(`^label_values\((.+),\s*([A-Za-z_][A-Za-z0-9_]*)\)$`)

func TestTemplateVariables(t *testing.T) {
	for _, d := range loadDashboards(t) {
		vars := map[string]Variable{}
		for _, v := range d.Templating.List {
			vars[v.Name] = v
		}
		if ds, ok := vars["datasource"]; !ok || ds.Type != "datasource" || ds.QueryText() != "prometheus" {
			t.Errorf("%s: needs a variable datasource of type datasource for prometheus, got %+v", d.File, ds)
		}
		for _, name := range []string{"cluster", "dc", "node", "keyspace", "table"} {
			v, ok := vars[name]
			if !ok {
				t.Errorf("%s: variable $%s is missing", d.File, name)
				continue
			}
			if v.Type != "query" || v.Datasource == nil || v.Datasource.UID != datasourceRef {
				t.Errorf("%s: $%s must be a query variable on %s", d.File, name, datasourceRef)
			}
			m := labelValuesQuery.FindStringSubmatch(v.QueryText())
			if m == nil {
				t.Errorf("%s: $%s query %q is not label_values(selector, label)", d.File, name, v.QueryText())
				continue
			}
			if m[2] != name {
				t.Errorf("%s: $%s lists label %s", d.File, name, m[2])
			}
			expr, err := promexpr.ExpandGrafana(m[1], map[string]string{
				"cluster": clusterUnderTest, "dc": ".*", "node": ".*", "keyspace": "ks", "table": "t"})
			if err != nil {
				t.Errorf("%s: $%s: %v", d.File, name, err)
				continue
			}
			a, err := promexpr.Analyze(expr)
			if err != nil {
				t.Errorf("%s: $%s: %v", d.File, name, err)
				continue
			}
			for _, p := range checkExpr(t, a) {
				t.Errorf("%s: $%s: %s", d.File, name, p)
			}
			if len(a.Selectors) != 1 || !exporterLabels(t)[a.Selectors[0].Metric][name] {
				t.Errorf("%s: $%s: the selector must be one metric that has the label %s", d.File, name, name)
			}
			if name == "cluster" {
				// One cluster at a time: the queries match it with =.
				if v.Multi || v.IncludeAll {
					t.Errorf("%s: $cluster must be single-valued", d.File)
				}
				continue
			}
			if m := a.Selectors[0].Matcher("cluster"); m == nil || m.Value != clusterUnderTest {
				t.Errorf("%s: $%s must list values of the selected cluster only", d.File, name)
			}
			// "All" must also match series without the label (table-level
			// series have no node): ".*" does, Grafana's default does not.
			if v.IncludeAll && v.AllValue != ".*" {
				t.Errorf("%s: $%s: allValue %q, want \".*\"", d.File, name, v.AllValue)
			}
		}
	}
}

func TestPanels(t *testing.T) {
	for _, d := range loadDashboards(t) {
		ids := map[int]bool{}
		for _, p := range d.AllPanels() {
			where := d.File + " panel " + p.Title
			if ids[p.ID] {
				t.Errorf("%s: duplicate panel id %d", where, p.ID)
			}
			ids[p.ID] = true
			if p.Type == "row" {
				if p.Title == "" {
					t.Errorf("%s: row without title", d.File)
				}
				continue
			}
			if p.Title == "" || p.Description == "" {
				t.Errorf("%s (id %d): needs a title and a description", where, p.ID)
			}
			if p.Datasource == nil || p.Datasource.UID != datasourceRef {
				t.Errorf("%s: datasource must be %s", where, datasourceRef)
			}
			if p.FieldConfig.Defaults.Unit == "" {
				t.Errorf("%s: no unit", where)
			}
			if len(p.Targets) == 0 {
				t.Errorf("%s: no queries", where)
			}
			refs := map[string]bool{}
			for _, tg := range p.Targets {
				if tg.Datasource != nil && tg.Datasource.UID != datasourceRef {
					t.Errorf("%s query %s: datasource must be %s", where, tg.RefID, datasourceRef)
				}
				if tg.RefID == "" || refs[tg.RefID] {
					t.Errorf("%s: query refId %q empty or repeated", where, tg.RefID)
				}
				refs[tg.RefID] = true
			}
		}
	}
}

func TestQueries(t *testing.T) {
	qs, err := Queries(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) < 20 {
		t.Fatalf("only %d queries found; the dashboards were not read", len(qs))
	}
	wantWindow, _ := time.ParseDuration(rateWindow)
	vars := map[string]string{
		"cluster": clusterUnderTest, "dc": ".*", "node": ".*", "keyspace": "ks", "table": "t",
		"__rate_interval": rateWindow,
	}
	for _, q := range qs {
		expr, err := q.Expand(vars)
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		a, err := promexpr.Analyze(expr)
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		if len(a.Selectors) == 0 {
			t.Errorf("%s: selects no series", q)
		}
		for _, p := range checkExpr(t, a) {
			t.Errorf("%s: %s", q, p)
		}
		for _, s := range a.Selectors {
			if m := s.Matcher("cluster"); m == nil || m.Type != labels.MatchEqual || m.Value != clusterUnderTest {
				t.Errorf("%s: %s must be filtered by cluster=\"$cluster\"", q, s.Metric)
			}
			isCounter := strings.HasSuffix(s.Metric, "_total")
			if isCounter && !slices.Contains(rateFuncs, s.Func) {
				t.Errorf("%s: counter %s must be read through rate, irate or increase", q, s.Metric)
			}
			if slices.Contains(rateFuncs, s.Func) && !isCounter {
				t.Errorf("%s: %s(%s) on a metric that is not a counter", q, s.Func, s.Metric)
			}
			if s.Range != 0 && s.Range != wantWindow {
				t.Errorf("%s: range of %s is not $__rate_interval", q, s.Metric)
			}
		}
	}
}

// Metrics no dashboard needs to show, and why.
var notOnDashboards = map[string]string{
	"partmon_findings": "every sidecar counts the table-level findings, so it cannot be summed; " +
		"the overview counts distinct partmon_finding_value series instead",
	"partmon_start_time_seconds":                           "PartmonDown's count of a blind start; a panel would show a constant",
	"partmon_config_last_reload_successful":                "read on /metrics after a SIGHUP, as Prometheus' own; the log names the refused key",
	"partmon_config_last_reload_success_timestamp_seconds": "read on /metrics after a SIGHUP, as Prometheus' own",
}

// expandedQueries are every dashboard query with its variables expanded to
// stand-ins, keyed by the expanded text.
func expandedQueries(t *testing.T) map[string]Query {
	t.Helper()
	qs, err := Queries(".")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Query{}
	for _, q := range qs {
		expr, err := q.Expand(map[string]string{"cluster": "c", "dc": ".*", "node": ".*", "keyspace": "k", "table": "t"})
		if err != nil {
			t.Fatal(err)
		}
		out[expr] = q
	}
	return out
}

func TestEveryMetricIsShown(t *testing.T) {
	used := map[string]bool{}
	for expr := range expandedQueries(t) {
		names, err := promexpr.MetricNames(expr)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			used[n] = true
		}
	}
	for name := range metricNames() {
		_, exempt := notOnDashboards[name]
		// One family per threshold: the rules compare with each, a panel
		// reads those it judges by, so a dashboard may show one or none.
		threshold := strings.HasPrefix(name, "partmon_threshold_")
		switch {
		case !used[name] && !exempt && !threshold:
			t.Errorf("no dashboard shows %s", name)
		case used[name] && exempt:
			t.Errorf("%s is on a dashboard but listed in notOnDashboards", name)
		}
	}
}
