package deploy

// The shipped alerting rules run by promtool on a real partmon's /metrics:
// partmon is started, scraped once, and every partmon_* series it served is
// held for promtool as job="partmon", instance="p:9808", with every Unix
// time shifted so that promtool's time 0 is the second partmon started.

import (
	"context"
	"fmt"
	"io"
	"math"
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

// scraped is one series of a partmon's /metrics.
type scraped struct {
	name   string
	labels map[string]string
	value  float64
}

// startPartmon runs the built partmon with args and waits until get says
// its /metrics is what the test needs; it returns the listen address.
func startPartmon(t *testing.T, args ...string) string {
	t.Helper()
	addr := testkit.FreeAddr(t)
	promtest.Start(t, "partmon", promtest.Options{}, buildPartmon(t),
		append([]string{"run", "--web.listen-address", addr, "--state.file", filepath.Join(t.TempDir(), "state.json")}, args...)...)
	return addr
}

// scrapeMetrics reads every partmon_* series of url's exposition.
func scrapeMetrics(url string) ([]scraped, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := parser.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", url, err)
	}
	var out []scraped
	for name, mf := range mfs {
		if !strings.HasPrefix(name, "partmon_") {
			continue
		}
		for _, m := range mf.GetMetric() {
			l := map[string]string{}
			for _, lp := range m.GetLabel() {
				if lp.GetValue() != "" {
					l[lp.GetName()] = lp.GetValue()
				}
			}
			out = append(out, scraped{name: name, labels: l, value: m.GetGauge().GetValue()})
		}
	}
	slices.SortFunc(out, func(a, b scraped) int { return strings.Compare(a.name, b.name) })
	return out, nil
}

func seriesValue(series []scraped, name string) (float64, bool) {
	for _, s := range series {
		if s.name == name {
			return s.value, true
		}
	}
	return 0, false
}

// promtoolAlerts runs the shipped alerting and recording rules on series,
// held flat for evalAt plus a minute, and expects exactly want at evalAt
// (alertname → its alerts' labels and annotations; every other alert of
// the file, or of only when given: none). A failure shows promtool's own diff.
func promtoolAlerts(t *testing.T, series []scraped, evalAt time.Duration, want map[string][]map[string]any, only ...string) {
	t.Helper()
	promtool := testkit.NeedTool(t, "apt-get install prometheus", "promtool")
	start, ok := seriesValue(series, "partmon_start_time_seconds")
	if !ok {
		t.Fatal("/metrics has no partmon_start_time_seconds")
	}
	epoch := math.Ceil(start)
	steps := int(evalAt/time.Minute) + 1
	var input []any
	for _, s := range series {
		v := s.value
		if strings.HasSuffix(s.name, "_timestamp_seconds") || s.name == "partmon_start_time_seconds" {
			v -= epoch
		}
		parts := []string{`job="partmon"`, `instance="p:9808"`}
		for k, lv := range s.labels {
			parts = append(parts, fmt.Sprintf("%s=%q", k, lv))
		}
		slices.Sort(parts)
		input = append(input, map[string]any{"series": fmt.Sprintf("%s{%s}", s.name, strings.Join(parts, ",")),
			"values": fmt.Sprintf("%v+0x%d", v, steps)})
	}
	var tests []any
	names := shippedAlertNames(t)
	if len(only) > 0 {
		names = only
	}
	for _, name := range names {
		exp := want[name]
		if exp == nil {
			exp = []map[string]any{}
		}
		tests = append(tests, map[string]any{"eval_time": evalAt.String(), "alertname": name, "exp_alerts": exp})
	}
	dir := t.TempDir()
	for _, f := range []string{"partmon-alerts.yml", "partmon-recording.yml"} {
		data, err := os.ReadFile(filepath.Join(repoRoot, "deploy", "prometheus", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	test := map[string]any{
		"rule_files":          []string{"partmon-alerts.yml", "partmon-recording.yml"},
		"evaluation_interval": "1m",
		"tests":               []any{map[string]any{"interval": "1m", "input_series": input, "alert_rule_test": tests}},
	}
	data, err := yaml.Marshal(test)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "test.yml"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, promtool, "test", "rules", filepath.Join(dir, "test.yml")).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool test rules on the scraped series: %v\n%s", err, out)
	}
}

// shippedAlertNames are the alert names of partmon-alerts.yml, each once.
func shippedAlertNames(t *testing.T) []string {
	t.Helper()
	var file struct {
		Groups []struct {
			Rules []struct {
				Alert string `yaml:"alert"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	readYAML(t, filepath.Join("deploy", "prometheus", "partmon-alerts.yml"), &file)
	var names []string
	for _, g := range file.Groups {
		for _, r := range g.Rules {
			if r.Alert != "" && !slices.Contains(names, r.Alert) {
				names = append(names, r.Alert)
			}
		}
	}
	return names
}

// TestRulesOnAPartmonThatReachesNothing: partmon started with nothing
// listening at its host. Its /metrics, held two hours, fires one alert:
// PartmonDown, critical, saying since when partmon started (not a
// PartmonCycleStale counted from 1970).
func TestRulesOnAPartmonThatReachesNothing(t *testing.T) {
	addr := startPartmon(t, "--mode=cluster", "--hosts=127.0.0.1:1", "--log.level=warn")
	var series []scraped
	promtest.WaitFor(t, time.Minute, "a failed cycle on /metrics", func() bool {
		s, err := scrapeMetrics("http://" + addr + "/metrics")
		series = s
		_, failed := seriesValue(s, "partmon_collector_success")
		return err == nil && failed
	})
	promtoolAlerts(t, series, 2*time.Hour, map[string][]map[string]any{
		"PartmonDown": {{
			"exp_labels": map[string]any{"severity": "critical", "job": "partmon", "instance": "p:9808"},
			"exp_annotations": map[string]any{
				"summary": "partmon p:9808 has not reached its cluster since it started 2h 0m 0s ago",
				"description": "partmon at p:9808 started 2h 0m 0s ago and none of its collection cycles has reached the database " +
					"(every partmon_collector_success is 0; its log's \"source failed\" lines say why): no partition alert can fire for what it watches.",
				"runbook_url": runbookURL("PartmonDown"),
			},
		}},
	})
}

func runbookURL(alert string) string {
	return "https://github.com/partmon/partmon/blob/main/docs/runbooks/" + alert + ".md"
}
