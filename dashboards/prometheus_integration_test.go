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
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/internal/promexpr"
)

type promServer struct {
	base string
}

type apiResponse struct {
	Status    string          `json:"status"`
	Error     string          `json:"error"`
	ErrorType string          `json:"errorType"`
	Data      json.RawMessage `json:"data"`
}

func (p promServer) get(t *testing.T, path string, params url.Values) (apiResponse, error) {
	t.Helper()
	resp, err := http.Get(p.base + path + "?" + params.Encode())
	if err != nil {
		return apiResponse{}, err
	}
	defer resp.Body.Close()
	var r apiResponse
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return apiResponse{}, fmt.Errorf("decoding %s: %w", path, err)
	}
	if r.Status != "success" {
		return r, fmt.Errorf("%s: %s: %s", r.ErrorType, path, r.Error)
	}
	return r, nil
}

// query runs an instant query and returns the number of series or samples it gave.
func (p promServer) query(t *testing.T, expr string) (int, error) {
	t.Helper()
	r, err := p.get(t, "/api/v1/query", url.Values{"query": {expr}})
	if err != nil {
		return 0, err
	}
	var data struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(r.Data, &data); err != nil {
		return 0, err
	}
	if data.ResultType == "scalar" {
		return 1, nil
	}
	var series []json.RawMessage
	if err := json.Unmarshal(data.Result, &series); err != nil {
		return 0, err
	}
	return len(series), nil
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startPrometheus runs Prometheus scraping the golden exposition with the
// alerting rules loaded, and waits until it has a few scrapes.
func startPrometheus(t *testing.T, cluster string, exposition []byte) promServer {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Fatal("prometheus is not on PATH (Debian package prometheus; .ci/run installs it)")
	}
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = w.Write(exposition)
	}))
	t.Cleanup(target.Close)

	dir := t.TempDir()
	rules, err := filepath.Abs(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
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
	cfgPath := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfgPath, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	listen := freePort(t)
	var logs bytes.Buffer
	cmd := exec.Command(bin, "--config.file="+cfgPath, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+listen, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("prometheus log:\n%s", logs.String())
		}
	})

	p := promServer{base: "http://" + listen}
	deadline := time.Now().Add(60 * time.Second)
	for {
		// Three scrapes: enough for rate() over the 1m window used below.
		if n, err := p.query(t, `count_over_time(partmon_up[1m]) >= 3`); err == nil && n == 1 {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("Prometheus at %s did not collect three scrapes of the golden exposition in 60s", p.base)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func TestQueriesOnRealPrometheus(t *testing.T) {
	exposition, err := os.ReadFile(filepath.Join("..", "exporter", "testdata", "cluster.prom"))
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
			n, err := p.query(t, expr)
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
				if c, err := p.query(t, "count({"+strings.Join(parts, ", ")+"})"); err != nil || c == 0 {
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
				r, err := p.get(t, "/api/v1/label/"+m[2]+"/values", url.Values{"match[]": {sel}})
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
		rules, err := RuleExpressions(rulesFile)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rules {
			if _, err := p.query(t, r.Expr); err != nil {
				t.Errorf("%s: %v", r.Name(), err)
			}
		}
		// Prometheus evaluates the loaded rules itself every second: each
		// must have been evaluated without error (e.g. no many-to-many match).
		deadline := time.Now().Add(30 * time.Second)
		for {
			health, err := ruleHealth(t, p)
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
func ruleHealth(t *testing.T, p promServer) (map[string]string, error) {
	r, err := p.get(t, "/api/v1/rules", nil)
	if err != nil {
		return nil, err
	}
	var data struct {
		Groups []struct {
			Name  string `json:"name"`
			Rules []struct {
				Name      string            `json:"name"`
				Health    string            `json:"health"`
				LastError string            `json:"lastError"`
				Labels    map[string]string `json:"labels"`
			} `json:"rules"`
		} `json:"groups"`
	}
	if err := json.Unmarshal(r.Data, &data); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, g := range data.Groups {
		for _, rule := range g.Rules {
			h := rule.Health
			if rule.LastError != "" {
				h += ": " + rule.LastError
			}
			out[g.Name+"/"+rule.Name+"/"+rule.Labels["severity"]] = h
		}
	}
	return out, nil
}
