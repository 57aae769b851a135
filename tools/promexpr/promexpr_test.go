package promexpr

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/prometheus/model/labels"
)

func TestAnalyze(t *testing.T) {
	tests := []struct {
		name      string
		expr      string
		metrics   []string
		functions []string
		groups    []string
		ranges    map[string]time.Duration // metric → range of its selector
		rangeFunc map[string]string        // metric → function its range selector feeds
	}{
		{
			name:    "plain selector",
			expr:    `partmon_up{cluster="c"}`,
			metrics: []string{"partmon_up"},
		},
		{
			name:      "rate over a range, aggregated",
			expr:      `sum by (node) (rate(partmon_table_local_reads_total{cluster="c"}[5m]))`,
			metrics:   []string{"partmon_table_local_reads_total"},
			functions: []string{"rate"},
			groups:    []string{"node"},
			ranges:    map[string]time.Duration{"partmon_table_local_reads_total": 5 * time.Minute},
			rangeFunc: map[string]string{"partmon_table_local_reads_total": "rate"},
		},
		{
			name: "vector matching with group_left and a name-only selector",
			expr: `a_metric * on (cluster, node) group_left (dc) {__name__="b_metric"} > 1`,
			// The selector written as {__name__="b_metric"} still names its metric.
			metrics: []string{"a_metric", "b_metric"},
			groups:  []string{"cluster", "dc", "node"},
		},
		{
			name:      "functions, time() and a bare range selector",
			expr:      `time() - max_over_time(x_seconds[10m]) + absent(y)`,
			metrics:   []string{"x_seconds", "y"},
			functions: []string{"absent", "max_over_time", "time"},
			ranges:    map[string]time.Duration{"x_seconds": 10 * time.Minute},
			rangeFunc: map[string]string{"x_seconds": "max_over_time"},
		},
		{
			name:    "number literal only",
			expr:    `vector(0)`,
			metrics: nil, functions: []string{"vector"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Analyze(tc.expr)
			if err != nil {
				t.Fatal(err)
			}
			if got := a.Metrics(); !slices.Equal(got, tc.metrics) {
				t.Errorf("metrics = %v, want %v", got, tc.metrics)
			}
			if !slices.Equal(a.Functions, tc.functions) {
				t.Errorf("functions = %v, want %v", a.Functions, tc.functions)
			}
			if !slices.Equal(a.GroupingLabels, tc.groups) {
				t.Errorf("grouping labels = %v, want %v", a.GroupingLabels, tc.groups)
			}
			for _, s := range a.Selectors {
				if s.Range != tc.ranges[s.Metric] {
					t.Errorf("%s: range = %v, want %v", s.Metric, s.Range, tc.ranges[s.Metric])
				}
				if s.Func != tc.rangeFunc[s.Metric] {
					t.Errorf("%s: range function = %q, want %q", s.Metric, s.Func, tc.rangeFunc[s.Metric])
				}
			}
		})
	}
}

func TestAnalyzeMatchers(t *testing.T) {
	a, err := Analyze(`partmon_node_stale{cluster="c1", dc=~"dc.*", node!=""}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Selectors) != 1 {
		t.Fatalf("got %d selectors, want 1", len(a.Selectors))
	}
	s := a.Selectors[0]
	if m := s.Matcher("cluster"); m == nil || m.Type != labels.MatchEqual || m.Value != "c1" {
		t.Errorf("cluster matcher = %v", m)
	}
	if m := s.Matcher("dc"); m == nil || m.Type != labels.MatchRegexp {
		t.Errorf("dc matcher = %v", m)
	}
	if m := s.Matcher("__name__"); m != nil {
		t.Errorf("the metric name must not be listed as a matcher, got %v", m)
	}
	if m := s.Matcher("rack"); m != nil {
		t.Errorf("rack matcher = %v, want none", m)
	}
}

func TestAnalyzeRejectsBadPromQL(t *testing.T) {
	for _, expr := range []string{`sum(`, `rate(x[5m]`, `x{cluster=}`, `foo bar`, ``} {
		if _, err := Analyze(expr); err == nil {
			t.Errorf("Analyze(%q) succeeded, want an error", expr)
		}
	}
}

func TestExpandGrafana(t *testing.T) {
	vars := map[string]string{"cluster": "c1", "node": ".*"}
	tests := []struct {
		in, want string
		missing  []string
	}{
		{in: `x{cluster="$cluster"}`, want: `x{cluster="c1"}`},
		{in: `x{cluster="${cluster}", node=~"${node:regex}"}`, want: `x{cluster="c1", node=~".*"}`},
		{in: `x{cluster="[[cluster]]"}`, want: `x{cluster="c1"}`},
		{in: `rate(x[$__rate_interval])`, want: `rate(x[2m])`},
		{in: `x{cluster="$cluster", dc=~"$dc", table="$table"}`, missing: []string{"dc", "table"}},
		{in: `x`, want: `x`},
	}
	for _, tc := range tests {
		got, err := ExpandGrafana(tc.in, vars)
		if tc.missing != nil {
			if err == nil {
				t.Errorf("ExpandGrafana(%q) = %q, want an error naming %v", tc.in, got, tc.missing)
				continue
			}
			for _, m := range tc.missing {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not name %s", err, m)
				}
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ExpandGrafana(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	// A caller's value wins over the built-in stand-in.
	if got, _ := ExpandGrafana(`[$__rate_interval]`, map[string]string{"__rate_interval": "5m"}); got != `[5m]` {
		t.Errorf("override of __rate_interval: got %q", got)
	}
}

func TestGrafanaVariables(t *testing.T) {
	got := GrafanaVariables(`rate(x{cluster="$cluster", node=~"${node:regex}", t="[[table]]"}[$__rate_interval]) + $cluster_x`)
	want := []string{"__rate_interval", "cluster", "cluster_x", "node", "table"}
	if !slices.Equal(got, want) {
		t.Errorf("GrafanaVariables = %v, want %v", got, want)
	}
}

func TestLoadRules(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.yml", `
groups:
  - name: g1
    rules:
      - record: job:x:sum
        expr: sum(x)
      - alert: XHigh
        expr: x > 1
        for: 5m
        labels: {severity: warning}
        annotations: {summary: "x is {{ $value }}"}
  - name: g2
    rules:
      - alert: YLow
        expr: y < 1
`)
	rules, err := LoadRules(good)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rules {
		got = append(got, r.Group+"/"+r.Name()+"/"+r.For)
	}
	if want := []string{"g1/job:x:sum/", "g1/XHigh/5m", "g2/YLow/"}; !slices.Equal(got, want) {
		t.Errorf("rules = %v, want %v", got, want)
	}
	if rules[1].Labels["severity"] != "warning" || rules[1].Annotations["summary"] != "x is {{ $value }}" {
		t.Errorf("labels/annotations not read: %+v", rules[1])
	}

	bad := map[string]string{
		"unknown key":         "groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: x\n        fro: 5m\n",
		"neither kind":        "groups:\n  - name: g\n    rules:\n      - expr: x\n",
		"both kinds":          "groups:\n  - name: g\n    rules:\n      - alert: A\n        record: b\n        expr: x\n",
		"not yaml":            "groups: [\n",
		"rules not a list":    "groups:\n  - name: g\n    rules: 3\n",
		"missing file":        "",
		"top level not a map": "- 1\n",
	}
	for name, body := range bad {
		path := filepath.Join(dir, "absent.yml")
		if body != "" {
			path = write(strings.ReplaceAll(name, " ", "_")+".yml", body)
		}
		if _, err := LoadRules(path); err == nil {
			t.Errorf("%s: LoadRules succeeded, want an error", name)
		}
	}
}

func TestComparedNumbers(t *testing.T) {
	for _, c := range []struct {
		expr string
		want []float64
	}{
		{`x > 2 * 3600`, []float64{7200}},
		{`(x >= bool 1e3) + (y < bool (900))`, []float64{1000, 900}},
		{`x >= bool on () group_left () max(y)`, nil},
		{`topk(10, x) * 2`, nil},
	} {
		got, err := ComparedNumbers(c.expr)
		if err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: compared numbers %v, want %v", c.expr, got, c.want)
		}
	}
}
