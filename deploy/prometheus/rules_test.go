// Package prometheus holds the tests of partmon's Prometheus files: the
// alerting rules (partmon-alerts.yml), their promtool tests and their runbooks.
package prometheus

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"

	"github.com/partmon/partmon/alertmanager"
	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/tools/metriccontract"
	"github.com/partmon/partmon/tools/promexpr"
	"github.com/partmon/partmon/tools/testkit"
)

const (
	rulesFile     = "partmon-alerts.yml"
	rulesTestFile = "partmon-alerts_test.yml"
	runbookBase   = "https://github.com/partmon/partmon/blob/main/docs/runbooks/"
)

// runbookDir holds one runbook per alert.
func runbookDir(t *testing.T) string { return testkit.Path(t, "docs", "runbooks") }

func loadAlerts(t *testing.T) []promexpr.Rule {
	t.Helper()
	rules, err := promexpr.LoadRules(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	var alerts []promexpr.Rule
	for _, r := range rules {
		if r.Alert != "" {
			alerts = append(alerts, r)
		}
	}
	if len(alerts) == 0 {
		t.Fatal("no alerting rules found")
	}
	return alerts
}

func TestAlertRuleConventions(t *testing.T) {
	// Alerts may read what the shipped recording rules record, and nothing else besides partmon's and up.
	known := []string{"up"}
	recorded, err := promexpr.LoadRules(recordingFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recorded {
		known = append(known, r.Record)
	}
	for _, r := range loadAlerts(t) {
		where := r.Alert + " (" + r.Labels["severity"] + ")"
		if !slices.Contains([]string{"warning", "critical"}, r.Labels["severity"]) {
			t.Errorf("%s: severity label must be warning or critical", where)
		}
		d, err := model.ParseDuration(r.For)
		if err != nil || time.Duration(d) < time.Minute {
			t.Errorf("%s: for %q must be at least 1m (one bad cycle is not an incident)", where, r.For)
		}
		for _, a := range []string{"summary", "description", "runbook_url"} {
			if strings.TrimSpace(r.Annotations[a]) == "" {
				t.Errorf("%s: annotation %s is missing", where, a)
			}
		}
		if want := runbookBase + r.Alert + ".md"; r.Annotations["runbook_url"] != want {
			t.Errorf("%s: runbook_url %q, want %q", where, r.Annotations["runbook_url"], want)
		}
		a, err := promexpr.Analyze(r.Expr)
		if err != nil {
			t.Errorf("%s: %v", where, err)
			continue
		}
		problems, err := metriccontract.Check(a, known...)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Errorf("%s: %s", where, p)
		}
		for _, s := range a.Selectors {
			if s.Metric == "up" && s.Matcher("job") == nil {
				t.Errorf("%s: up must be selected by job", where)
			}
		}
		// Annotations may only use labels the alert can carry.
		for _, l := range templateLabels(r.Annotations) {
			if !alertCanCarry(t, a, r, l) {
				t.Errorf("%s: annotations use $labels.%s, which the expression does not keep", where, l)
			}
		}
	}
}

var labelRef = regexp.MustCompile(`\$labels\.([A-Za-z_][A-Za-z0-9_]*)`)

func templateLabels(annotations map[string]string) []string {
	var out []string
	for _, v := range annotations {
		for _, m := range labelRef.FindAllStringSubmatch(v, -1) {
			out = append(out, m[1])
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// alertCanCarry says whether label l can be on the alert: a rule label, or
// with an aggregation, one of the labels it keeps; without one, a label of
// the metrics read or of the scrape target.
func alertCanCarry(t *testing.T, a promexpr.Analysis, r promexpr.Rule, l string) bool {
	if _, ok := r.Labels[l]; ok {
		return true
	}
	if strings.Contains(r.Expr, " by (") {
		return slices.Contains(a.GroupingLabels, l)
	}
	if slices.Contains(metriccontract.TargetLabels, l) {
		return true
	}
	golden, err := metriccontract.Labels()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range a.Selectors {
		if golden[s.Metric][l] {
			return true
		}
	}
	return false
}

// promtool's unit-test file, the parts read here.
type ruleTests struct {
	RuleFiles []string `yaml:"rule_files"`
	Tests     []struct {
		Name          string `yaml:"name"`
		AlertRuleTest []struct {
			EvalTime  string `yaml:"eval_time"`
			Alertname string `yaml:"alertname"`
			ExpAlerts []struct {
				ExpLabels      map[string]string `yaml:"exp_labels"`
				ExpAnnotations map[string]string `yaml:"exp_annotations"`
			} `yaml:"exp_alerts"`
		} `yaml:"alert_rule_test"`
	} `yaml:"tests"`
}

func TestEveryAlertIsTestedFiringAndNotFiring(t *testing.T) {
	data, err := os.ReadFile(rulesTestFile)
	if err != nil {
		t.Fatal(err)
	}
	var rt ruleTests
	if err := yaml.Unmarshal(data, &rt); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(rt.RuleFiles, filepath.Base(rulesFile)) {
		t.Errorf("%s does not load %s", rulesTestFile, filepath.Base(rulesFile))
	}
	firing := map[string]bool{}    // alertname/severity seen in exp_alerts
	silent := map[string]bool{}    // alertname with an empty exp_alerts
	annotated := map[string]bool{} // alertname/severity whose annotations are checked
	for _, tc := range rt.Tests {
		for _, at := range tc.AlertRuleTest {
			if len(at.ExpAlerts) == 0 {
				silent[at.Alertname] = true
			}
			for _, e := range at.ExpAlerts {
				key := at.Alertname + "/" + e.ExpLabels["severity"]
				firing[key] = true
				if e.ExpAnnotations["summary"] != "" && e.ExpAnnotations["description"] != "" && e.ExpAnnotations["runbook_url"] != "" {
					annotated[key] = true
				}
			}
		}
	}
	for _, r := range loadAlerts(t) {
		key := r.Alert + "/" + r.Labels["severity"]
		if !firing[key] {
			t.Errorf("%s: no promtool test expects it to fire", key)
		}
		if !annotated[key] {
			t.Errorf("%s: no promtool test checks its summary, description and runbook_url", key)
		}
		if !silent[r.Alert] {
			t.Errorf("%s: no promtool test expects it not to fire", r.Alert)
		}
	}
}

func TestRunbooks(t *testing.T) {
	alerts := map[string]bool{}
	for _, r := range loadAlerts(t) {
		alerts[r.Alert] = true
	}
	for name := range alerts {
		data, err := os.ReadFile(filepath.Join(runbookDir(t), name+".md"))
		if err != nil {
			t.Errorf("runbook for %s: %v", name, err)
			continue
		}
		text := string(data)
		if !strings.HasPrefix(text, "# "+name) {
			t.Errorf("runbook %s.md must start with the heading \"# %s\"", name, name)
		}
		for _, section := range []string{"## Meaning", "## How partmon measures it", "## What to check", "## What to change", "## When to silence"} {
			if !strings.Contains(text, section) {
				t.Errorf("runbook %s.md has no section %q", name, section)
			}
		}
	}
	// No stale runbooks for alerts that no longer exist.
	files, err := filepath.Glob(filepath.Join(runbookDir(t), "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".md")
		if name != "README" && !alerts[name] {
			t.Errorf("runbook %s has no alert", filepath.Base(f))
		}
	}
	// partmon's pushed alerts link to PartmonAnalyzerFinding.md#<kind>.
	data, err := os.ReadFile(filepath.Join(runbookDir(t), "PartmonAnalyzerFinding.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range kindsWithoutRunbookSection(data) {
		t.Errorf("PartmonAnalyzerFinding.md has no section \"### %s\" for pushed alerts to link to", k)
	}
}

// kindsWithoutRunbookSection lists the kinds a runbook has no "### kind" section for.
func kindsWithoutRunbookSection(runbook []byte) []string {
	var out []string
	for _, k := range analyzer.Kinds() {
		if !regexp.MustCompile(`(?m)^### ` + k + `$`).Match(runbook) {
			out = append(out, k)
		}
	}
	return out
}

// TestOneNamePerProblem: a rule alert about a problem partmon also pushes
// has the pushed alert's name (one name per problem in Alertmanager, the
// runbooks and the page) and pushed="true", so the shipped inhibitions tell
// them apart by the pushed alert's finding_id and let it mute the rule's;
// a rule alert carrying finding_id would be taken for a pushed one.
func TestOneNamePerProblem(t *testing.T) {
	pushed := map[string]bool{}
	for _, k := range alertmanager.DefaultAlertKinds {
		pushed[alertmanager.AlertName(k)] = true
	}
	named := 0
	for _, r := range loadAlerts(t) {
		if pushed[r.Alert] {
			named++
			if r.Labels["pushed"] != "true" {
				t.Errorf("rule alert %s (%s) has a pushed alert's name but no pushed=\"true\" label", r.Alert, r.Labels["severity"])
			}
		}
		if strings.Contains(r.Expr, "finding_id") || r.Labels["finding_id"] != "" {
			t.Errorf("rule alert %s carries finding_id, the mark of partmon's pushed alerts", r.Alert)
		}
	}
	if named == 0 {
		t.Error("no rule alert shares its name with a pushed alert")
	}
	if k, _ := analyzer.KindOf(analyzer.KindOversizedPartition); k.RuleAlert != alertmanager.AlertName(k.Name) {
		t.Errorf("the oversized-partition rule alert %s is not named as its pushed alert %s", k.RuleAlert, alertmanager.AlertName(k.Name))
	}
}

// TestRunbooksNameTheThresholdsTheirRulesRead: a runbook says what its
// alert compares with: each partmon_threshold_* series its rules read is
// named in it, so no runbook sends its reader to edit a number the rule
// does not hold.
func TestRunbooksNameTheThresholdsTheirRulesRead(t *testing.T) {
	threshold := regexp.MustCompile(`partmon_threshold_[a-z_]+`)
	for _, r := range loadAlerts(t) {
		data, err := os.ReadFile(filepath.Join(runbookDir(t), r.Alert+".md"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range threshold.FindAllString(r.Expr, -1) {
			if !strings.Contains(string(data), name) {
				t.Errorf("%s.md does not name %s, which its rule compares with", r.Alert, name)
			}
		}
	}
}
