package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"

	"github.com/partmon/partmon/tools/promtest"
	"github.com/partmon/partmon/tools/testkit"
)

// downAlerts are the shipped alerts that must fire when partmon cannot
// reach its database from its first second on.
var downAlerts = []string{"PartmonCycleStale", "PartmonDown"}

// downSeries are the families those alerts read.
var downSeries = []string{"partmon_up", "partmon_last_cycle_timestamp_seconds",
	"partmon_threshold_stale_after_seconds", "partmon_threshold_cycle_stale_critical_after_seconds"}

// TestDownAlertsFireOnRealScrape starts the built partmon against an
// address nothing listens on (127.0.0.199), scrapes its real /metrics and
// gives those series, held for two hours, to promtool with the shipped
// PartmonCycleStale and PartmonDown rules (their annotations left out, as
// they would have to be rendered): both severities of PartmonCycleStale
// and PartmonDown fire.
func TestDownAlertsFireOnRealScrape(t *testing.T) {
	promtool := promtest.LookPath(t, "the Debian package prometheus provides it", "promtool")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin, err := testkit.BuildPartmon(ctx, t.TempDir(), "partmon", false)
	if err != nil {
		t.Fatal(err)
	}
	listen := closedLoopback(t, "127.0.0.190")
	promtest.Start(t, "partmon", promtest.Options{}, bin, "run", "--hosts", "127.0.0.199", "--mode", "cluster",
		"--web.listen-address", listen, "--log.level", "warn")
	var families map[string]*dto
	promtest.WaitFor(t, time.Minute, "partmon_up on /metrics", func() bool {
		families = scrape(t, "http://"+listen+"/metrics")
		return families["partmon_up"] != nil && families["partmon_last_cycle_timestamp_seconds"] != nil
	})
	for _, name := range downSeries {
		if families[name] == nil {
			t.Fatalf("/metrics lacks %s while the database is unreachable", name)
		}
	}
	dir := t.TempDir()
	writeDownRules(t, filepath.Join(dir, "rules.yml"))
	writeDownTest(t, filepath.Join(dir, "test.yml"), families)
	out, err := exec.CommandContext(ctx, promtool, "test", "rules", filepath.Join(dir, "test.yml")).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool test rules: %v\n%s", err, out)
	}
}

type dto = struct {
	labels []map[string]string
	values []float64
}

// scrape reads the families of downSeries from a text exposition.
func scrape(t *testing.T, url string) map[string]*dto {
	resp, err := http.Get(url)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := parser.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	out := map[string]*dto{}
	for name, mf := range mfs {
		if !slices.Contains(downSeries, name) {
			continue
		}
		d := &dto{}
		for _, m := range mf.GetMetric() {
			l := map[string]string{}
			for _, lp := range m.GetLabel() {
				l[lp.GetName()] = lp.GetValue()
			}
			d.labels = append(d.labels, l)
			d.values = append(d.values, m.GetGauge().GetValue())
		}
		out[name] = d
	}
	return out
}

// writeDownRules writes the shipped downAlerts without annotations.
func writeDownRules(t *testing.T, path string) {
	var file struct {
		Groups []struct {
			Name  string           `yaml:"name"`
			Rules []map[string]any `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal([]byte(readShipped(t, "deploy/prometheus/partmon-alerts.yml")), &file); err != nil {
		t.Fatal(err)
	}
	var rules []map[string]any
	for _, g := range file.Groups {
		for _, r := range g.Rules {
			if name, _ := r["alert"].(string); slices.Contains(downAlerts, name) {
				delete(r, "annotations")
				rules = append(rules, r)
			}
		}
	}
	if len(rules) != 3 {
		t.Fatalf("%d rules named %v in partmon-alerts.yml, want 3 (two PartmonCycleStale, one PartmonDown)", len(rules), downAlerts)
	}
	writeYAML(t, path, map[string]any{"groups": []any{map[string]any{"name": "down", "rules": rules}}})
}

// writeDownTest holds every scraped series for two hours, scraped as
// job="partmon", instance="p:9808", and expects downAlerts at the end.
func writeDownTest(t *testing.T, path string, families map[string]*dto) {
	var series []any
	for _, name := range downSeries {
		for i, l := range families[name].labels {
			parts := []string{`job="partmon"`, `instance="p:9808"`}
			for k, v := range l {
				parts = append(parts, fmt.Sprintf("%s=%q", k, v))
			}
			series = append(series, map[string]any{
				"series": fmt.Sprintf("%s{%s}", name, strings.Join(parts, ",")),
				"values": fmt.Sprintf("%g+0x130", families[name].values[i]),
			})
		}
	}
	target := map[string]any{"job": "partmon", "instance": "p:9808"}
	with := func(sev string) map[string]any {
		l := map[string]any{"severity": sev}
		for k, v := range target {
			l[k] = v
		}
		return map[string]any{"exp_labels": l}
	}
	test := map[string]any{
		"rule_files":          []string{"rules.yml"},
		"evaluation_interval": "1m",
		"tests": []any{map[string]any{
			"interval":     "1m",
			"input_series": series,
			"alert_rule_test": []any{
				map[string]any{"eval_time": "2h", "alertname": "PartmonCycleStale", "exp_alerts": []any{with("warning"), with("critical")}},
				map[string]any{"eval_time": "2h", "alertname": "PartmonDown", "exp_alerts": []any{with("warning")}},
			},
		}},
	}
	writeYAML(t, path, test)
}

func writeYAML(t *testing.T, path string, v any) {
	data, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
