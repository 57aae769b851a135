package prometheus

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
	"go.yaml.in/yaml/v3"

	"github.com/partmon/partmon/alertmanager"
	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/tools/promexpr"
	"github.com/partmon/partmon/tools/reporttest"
	"github.com/partmon/partmon/tools/testkit"
)

// The shipped rules and inhibitions select findings by the labels the
// exporter derives from the kinds table (KindFacts.SeriesLabels), never by
// kind: this file holds them to it.

func alertmanagerFile(t *testing.T) string {
	return testkit.Path(t, "deploy", "alertmanager", "alertmanager.yml")
}

// TestAlertFilesNameNoKind: a kind's name typed into the rules or the
// inhibitions would have to be typed again for the next kind.
func TestAlertFilesNameNoKind(t *testing.T) {
	for _, file := range []string{rulesFile, alertmanagerFile(t)} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range analyzer.Kinds() {
			if regexp.MustCompile(`\b` + k + `\b`).Match(data) {
				t.Errorf("%s names the kind %s: select by the finding series' alert, measured or pushed label", filepath.Base(file), k)
			}
		}
	}
}

// TestFindingSelectorsFollowTheKindsTable: every rule reading finding
// series selects its own alert's (so a kind's RuleAlert is the rule that
// alerts on it) and no kind; every RuleAlert of the table is such a rule.
func TestFindingSelectorsFollowTheKindsTable(t *testing.T) {
	reading := map[string]bool{}
	for _, r := range loadAlerts(t) {
		a, err := promexpr.Analyze(r.Expr)
		if err != nil {
			t.Fatalf("%s: %v", r.Alert, err)
		}
		for _, s := range a.Selectors {
			if s.Metric != "partmon_finding_value" && s.Metric != "partmon_finding_threshold" {
				continue
			}
			if s.Matcher("kind") != nil {
				t.Errorf("%s selects findings by kind", r.Alert)
			}
			m := s.Matcher("alert")
			if m == nil || m.Type != labels.MatchEqual || m.Value != r.Alert {
				t.Errorf("%s selects findings without alert=%q", r.Alert, r.Alert)
			}
			reading[r.Alert] = true
		}
	}
	for _, name := range analyzer.Kinds() {
		k, _ := analyzer.KindOf(name)
		if k.RuleAlert != "" && !reading[k.RuleAlert] {
			t.Errorf("kind %s: its RuleAlert %s reads no finding series in %s", name, k.RuleAlert, rulesFile)
		}
	}
}

// TestRuleTestSeriesCarryTheirKindsLabels: the promtool tests feed finding
// series labelled as the exporter labels them, so they test what is served.
func TestRuleTestSeriesCarryTheirKindsLabels(t *testing.T) {
	data, err := os.ReadFile(rulesTestFile)
	if err != nil {
		t.Fatal(err)
	}
	series := regexp.MustCompile(`'(partmon_finding_(?:value|threshold)\{[^}]*\})'`).FindAllStringSubmatch(string(data), -1)
	if len(series) == 0 {
		t.Fatalf("%s feeds no finding series", rulesTestFile)
	}
	for _, s := range series {
		ms, err := parser.NewParser(parser.Options{}).ParseMetricSelector(s[1])
		if err != nil {
			t.Fatalf("%s: %v", s[1], err)
		}
		got := map[string]string{}
		for _, m := range ms {
			got[m.Name] = m.Value
		}
		k, ok := analyzer.KindOf(got["kind"])
		if !ok {
			t.Errorf("%s: no such kind", s[1])
			continue
		}
		alert, measured, pushed := k.SeriesLabels()
		if got["alert"] != alert || got["measured"] != measured || got["pushed"] != pushed {
			t.Errorf("%s: want alert=%q measured=%q pushed=%q, as the exporter labels kind %s", s[1], alert, measured, pushed, k.Name)
		}
	}
}

// TestANewKindFollowsItsRow adds a kind in one row of the kinds table and
// follows it: the exporter publishes its counts and labels its finding
// series from the row, the shipped rule alerts on those series (promtool),
// partmon's pushed alert for it mutes the rule's alert (the shipped
// inhibitions), and the runbook check asks for its section.
func TestANewKindFollowsItsRow(t *testing.T) {
	promtool := testkit.NeedTool(t, "apt-get install prometheus", "promtool")
	const fake = "fake_table_design"
	remove := analyzer.AddKind(analyzer.KindFacts{Name: fake, Label: "fake", Sentence: "A fake problem.",
		RuleAlert: analyzer.AlertAnalyzerFinding, TableWide: true, PushedWithoutKey: true})
	defer remove()

	series := exportedFindingSeries(t, fake)
	alert := firedAlert(t, promtool, series)
	want := map[string]string{"alertname": analyzer.AlertAnalyzerFinding, "severity": "critical",
		"cluster": "demo", "keyspace": "shop", "table": "orders", "kind": fake, "pushed": "true"}
	if !mapsEqual(alert, want) {
		t.Fatalf("promtool's alert for the new kind: %v, want %v", alert, want)
	}
	pushedAlert := map[string]string{"alertname": alertmanager.AlertName(fake), "severity": "critical", "cluster": "demo",
		"dc": "dc1", "keyspace": "shop", "table": "orders", "finding_id": "f1"}
	if !inhibited(t, pushedAlert, alert) {
		t.Errorf("the pushed alert %v does not mute the rule's %v", pushedAlert, alert)
	}
	if got := kindsWithoutRunbookSection([]byte("### oversized_partition\n")); !slices.Contains(got, fake) {
		t.Errorf("the runbook check does not ask for a section on the new kind: %q", got)
	}
}

// exportedFindingSeries is the exporter's partmon_finding_value series of
// one critical finding of kind, as promtool input series; it also checks
// that partmon_findings counts the kind.
func exportedFindingSeries(t *testing.T, kind string) string {
	t.Helper()
	r := reporttest.Cluster()
	r.Findings = []finding.Finding{{ID: "f1", Kind: kind, Severity: finding.SeverityCritical, Cluster: "demo",
		Keyspace: "shop", Table: "orders", Value: 3, Threshold: 2, Unit: finding.UnitRatio}}
	latest := &publish.Latest{}
	e := exporter.New(latest, exporter.Options{Mode: publish.ModeCluster})
	latest.Publish(r)
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(e)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	counted := false
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			l := map[string]string{}
			for _, lp := range m.GetLabel() {
				l[lp.GetName()] = lp.GetValue()
			}
			if l["kind"] != kind {
				continue
			}
			switch mf.GetName() {
			case "partmon_findings":
				counted = counted || (l["severity"] == "critical" && m.GetGauge().GetValue() == 1)
			case "partmon_finding_value":
				var pairs []string
				for _, lp := range m.GetLabel() {
					pairs = append(pairs, fmt.Sprintf("%s=%q", lp.GetName(), lp.GetValue()))
				}
				out = append(out, fmt.Sprintf("partmon_finding_value{%s,job=\"partmon\",instance=\"a\"}", strings.Join(pairs, ",")))
			}
		}
	}
	if !counted {
		t.Errorf("partmon_findings{kind=%q,severity=\"critical\"} is not 1", kind)
	}
	if len(out) != 1 {
		t.Fatalf("finding series of the new kind: %q, want one", out)
	}
	return out[0]
}

// firedAlert runs the shipped PartmonAnalyzerFinding rules (without their
// annotations, which promtool would compare) over series held for an hour
// and returns the one alert they raise.
func firedAlert(t *testing.T, promtool, series string) map[string]string {
	t.Helper()
	var file struct {
		Groups []struct {
			Name  string           `yaml:"name"`
			Rules []map[string]any `yaml:"rules"`
		} `yaml:"groups"`
	}
	data, err := os.ReadFile(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	var rules []map[string]any
	for _, g := range file.Groups {
		for _, r := range g.Rules {
			if r["alert"] == analyzer.AlertAnalyzerFinding {
				delete(r, "annotations")
				rules = append(rules, r)
			}
		}
	}
	want := map[string]string{"severity": "critical", "cluster": "demo", "keyspace": "shop", "table": "orders",
		"kind": "fake_table_design", "pushed": "true"}
	test := map[string]any{
		"rule_files": []string{"rules.yml"},
		"tests": []any{map[string]any{
			"interval":     "1m",
			"input_series": []any{map[string]any{"series": series, "values": "3x60"}},
			"alert_rule_test": []any{map[string]any{"eval_time": "30m", "alertname": analyzer.AlertAnalyzerFinding,
				"exp_alerts": []any{map[string]any{"exp_labels": want}}}},
		}},
	}
	dir := t.TempDir()
	for name, v := range map[string]any{"rules.yml": map[string]any{"groups": []any{map[string]any{"name": "findings", "rules": rules}}}, "test.yml": test} {
		out, err := yaml.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(promtool, "test", "rules", "test.yml")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool test rules with the series %s: %v\n%s", series, err, out)
	}
	want["alertname"] = analyzer.AlertAnalyzerFinding
	return want
}

// inhibited says whether an inhibit rule of the shipped alertmanager.yml
// lets source mute target.
func inhibited(t *testing.T, source, target map[string]string) bool {
	t.Helper()
	data, err := os.ReadFile(alertmanagerFile(t))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		InhibitRules []struct {
			SourceMatchers []string `yaml:"source_matchers"`
			TargetMatchers []string `yaml:"target_matchers"`
			Equal          []string `yaml:"equal"`
		} `yaml:"inhibit_rules"`
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	for _, ir := range cfg.InhibitRules {
		if !matchAll(t, ir.SourceMatchers, source) || !matchAll(t, ir.TargetMatchers, target) {
			continue
		}
		same := true
		for _, l := range ir.Equal {
			same = same && source[l] == target[l]
		}
		if same {
			return true
		}
	}
	return false
}

// matchAll applies Alertmanager matchers (the PromQL matcher syntax) to an
// alert's labels; an absent label is the empty value, as in Alertmanager.
func matchAll(t *testing.T, matchers []string, alert map[string]string) bool {
	t.Helper()
	for _, s := range matchers {
		ms, err := parser.NewParser(parser.Options{}).ParseMetricSelector("{" + s + "}")
		if err != nil {
			t.Fatalf("matcher %s: %v", s, err)
		}
		for _, m := range ms {
			if !m.Matches(alert[m.Name]) {
				return false
			}
		}
	}
	return true
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
