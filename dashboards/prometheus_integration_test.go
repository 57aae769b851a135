//go:build integration

package dashboards

// Runs every dashboard query, template variable and alerting rule on a real
// Prometheus (Debian's, the oldest we support) that scrapes the exporter's
// golden exposition of a real report (exporter/testdata/cluster.prom), the
// way the example scrape config scrapes partmon.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/tools/promexpr"
	"github.com/partmon/partmon/tools/promtest"
	"github.com/partmon/partmon/tools/testkit"
)

// startPrometheus runs Prometheus scraping the golden exposition with the
// alerting rules loaded, and waits until it has a few scrapes.
func startPrometheus(t *testing.T, cluster string, exposition []byte) *promtest.Prometheus {
	t.Helper()
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = w.Write(exposition)
	}))
	t.Cleanup(target.Close)

	rules := everySecond(t, rulesFile(t))
	config := fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: [%q]
scrape_configs:
  - job_name: partmon
    honor_labels: true
    static_configs:
      - targets: [%q]
        labels: {cluster: %q}
`, rules, strings.TrimPrefix(target.URL, "http://"), cluster)
	p := promtest.StartPrometheus(t, config, promtest.Options{})
	// Three scrapes: enough for rate() over the 1m window used below.
	promtest.WaitFor(t, 60*time.Second, "three scrapes of the golden exposition", func() bool {
		n, err := p.Query(`count_over_time(partmon_up[1m]) >= 3`)
		return err == nil && n == 1
	})
	return p
}

func TestQueriesOnRealPrometheus(t *testing.T) {
	exposition, err := os.ReadFile(testkit.Path(t, "exporter", "testdata", "cluster.prom"))
	if err != nil {
		t.Fatal(err)
	}
	// The golden report's cluster, keyspace and table, read from its series.
	const cluster, keyspace, table = "demo", "shop", "orders"
	for _, want := range []string{`cluster="` + cluster + `"`, `keyspace="` + keyspace + `"`, `table="` + table + `"`} {
		if !bytes.Contains(exposition, []byte(want)) {
			t.Fatalf("cluster.prom has no %s: update this test with the golden file", want)
		}
	}
	p := startPrometheus(t, cluster, exposition)
	vars := map[string]string{"cluster": cluster, "dc": ".*", "node": ".*", "keyspace": keyspace, "table": table,
		"__rate_interval": "1m"}

	t.Run("dashboard queries", func(t *testing.T) {
		qs, err := Queries(".")
		if err != nil {
			t.Fatal(err)
		}
		empty := 0
		for _, q := range qs {
			expr, err := q.Expand(vars)
			if err != nil {
				t.Fatal(err)
			}
			n, err := p.Query(expr)
			if err != nil {
				t.Errorf("%s: %v", q, err)
				continue
			}
			if n > 0 {
				continue
			}
			empty++
			// Empty is only right when one of the series the query reads is
			// not in the scrape: then say which.
			a, err := promexpr.Analyze(expr)
			if err != nil {
				t.Fatal(err)
			}
			allPresent := true
			for _, s := range a.Selectors {
				parts := []string{fmt.Sprintf("__name__=%q", s.Metric)}
				for _, m := range s.Matchers {
					parts = append(parts, m.String())
				}
				if c, err := p.Query("count({" + strings.Join(parts, ", ") + "})"); err != nil || c == 0 {
					allPresent = false
				}
			}
			if allPresent {
				t.Errorf("%s: every series it reads is there, yet it returns nothing:\n%s", q, expr)
			}
		}
		t.Logf("%d dashboard queries ran, %d empty because the golden report has no such series", len(qs), empty)
	})

	t.Run("template variables", func(t *testing.T) {
		for _, d := range loadDashboards(t) {
			for _, v := range d.Templating.List {
				m := labelValuesQuery.FindStringSubmatch(v.QueryText())
				if m == nil {
					continue
				}
				sel, err := promexpr.ExpandGrafana(m[1], vars)
				if err != nil {
					t.Fatal(err)
				}
				r, err := p.Get("/api/v1/label/"+m[2]+"/values", url.Values{"match[]": {sel}})
				if err != nil {
					t.Errorf("%s: $%s: %v", d.File, v.Name, err)
					continue
				}
				var values []string
				if err := json.Unmarshal(r.Data, &values); err != nil || len(values) == 0 {
					t.Errorf("%s: $%s lists no values from %s", d.File, v.Name, sel)
				}
			}
		}
	})

	t.Run("alerting rules", func(t *testing.T) {
		rules, err := RuleExpressions(rulesFile(t))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rules {
			if _, err := p.Query(r.Expr); err != nil {
				t.Errorf("%s: %v", r.Name(), err)
			}
		}
		// Prometheus evaluates the loaded rules itself every second: each
		// must have been evaluated without error (e.g. no many-to-many match).
		deadline := time.Now().Add(30 * time.Second)
		for {
			health, err := ruleHealth(p)
			if err != nil {
				t.Fatal(err)
			}
			bad := 0
			for name, h := range health {
				if h != "ok" {
					bad++
					if time.Now().After(deadline) {
						t.Errorf("rule %s: health %s", name, h)
					}
				}
			}
			if len(health) != len(rules) {
				t.Fatalf("Prometheus loaded %d rules, the file has %d", len(health), len(rules))
			}
			if bad == 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(time.Second)
		}
	})
}

// ruleHealth maps "group/alert/severity" to the health Prometheus reports.
func ruleHealth(p *promtest.Prometheus) (map[string]string, error) {
	rules, err := p.Rules()
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, rule := range rules {
		h := rule.Health
		if rule.LastError != "" {
			h += ": " + rule.LastError
		}
		out[rule.Group+"/"+rule.Name+"/"+rule.Labels["severity"]] = h
	}
	return out, nil
}

// groupInterval is a rule group's own evaluation interval in a rules file.
var groupInterval = regexp.MustCompile(`(?m)^(\s+)interval: \S+$`)

// everySecond is a copy of a rules file whose groups all run every second,
// as the global evaluation_interval here: a group of its own interval (2m)
// would be evaluated first after up to that long, past this test's wait.
func everySecond(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !groupInterval.Match(b) {
		t.Fatalf("%s: no group sets its own interval; drop everySecond", path)
	}
	out := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(out, groupInterval.ReplaceAll(b, []byte("${1}interval: 1s")), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}
