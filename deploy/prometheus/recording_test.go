package prometheus

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/partmon/partmon/tools/metriccontract"
	"github.com/partmon/partmon/tools/promexpr"
	"github.com/partmon/partmon/tools/testkit"
)

const (
	recordingFile     = "partmon-recording.yml"
	recordingTestFile = "partmon-recording_test.yml"
)

// The roll-ups read only partmon's metrics and labels, and their names say
// what they keep (level:metric:operation, the level one of their labels).
func TestRecordingRulesReadTheContract(t *testing.T) {
	rules, err := promexpr.LoadRules(recordingFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) == 0 {
		t.Fatal("no recording rules")
	}
	var recorded []string // a roll-up may read another's series
	for _, r := range rules {
		recorded = append(recorded, r.Record)
	}
	levels := metriccontract.RecordingLevels
	for _, r := range rules {
		if r.Record == "" || r.Alert != "" {
			t.Errorf("%s: %s holds recording rules only", r.Name(), recordingFile)
			continue
		}
		parts := strings.Split(r.Record, ":")
		if len(parts) != 3 || levels[parts[0]] == nil || !strings.HasPrefix(parts[1], "partmon_") {
			t.Errorf("%s: want level:partmon_metric:operation with a level of metriccontract.RecordingLevels", r.Record)
			continue
		}
		a, err := promexpr.Analyze(r.Expr)
		if err != nil {
			t.Errorf("%s: %v", r.Record, err)
			continue
		}
		problems, err := metriccontract.Check(a, recorded...)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Errorf("%s: %s", r.Record, p)
		}
		// The outermost aggregation keeps exactly the level's labels.
		if !slices.Equal(sortedCopy(levels[parts[0]]), sortedCopy(outerGrouping(r.Expr))) {
			t.Errorf("%s: outer aggregation keeps %v, want %v", r.Record, outerGrouping(r.Expr), levels[parts[0]])
		}
	}
}

// outerGrouping is the label list of the expression's first "by (...)".
func outerGrouping(expr string) []string {
	_, rest, ok := strings.Cut(expr, " by (")
	if !ok {
		return nil
	}
	list, _, _ := strings.Cut(rest, ")")
	var out []string
	for _, l := range strings.Split(list, ",") {
		out = append(out, strings.TrimSpace(l))
	}
	return out
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// Every roll-up has a promtool test of its value.
func TestEveryRecordingRuleIsTested(t *testing.T) {
	data, err := os.ReadFile(recordingTestFile)
	if err != nil {
		t.Fatal(err)
	}
	var rt struct {
		RuleFiles []string `yaml:"rule_files"`
		Tests     []struct {
			PromQL []struct {
				Expr       string `yaml:"expr"`
				ExpSamples []any  `yaml:"exp_samples"`
			} `yaml:"promql_expr_test"`
		} `yaml:"tests"`
	}
	if err := yaml.Unmarshal(data, &rt); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(rt.RuleFiles, recordingFile) {
		t.Errorf("%s does not load %s", recordingTestFile, recordingFile)
	}
	tested := map[string]bool{}
	for _, tc := range rt.Tests {
		for _, p := range tc.PromQL {
			if len(p.ExpSamples) > 0 {
				tested[strings.TrimSpace(p.Expr)] = true
			}
		}
	}
	rules, err := promexpr.LoadRules(recordingFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		if !tested[r.Record] {
			t.Errorf("%s: no promql_expr_test in %s checks its value", r.Record, recordingTestFile)
		}
	}
}

// promtool checks the file and runs its unit tests.
func TestPromtoolRecordingRules(t *testing.T) {
	promtool := testkit.NeedTool(t, "apt-get install prometheus", "promtool")
	for _, args := range [][]string{{"check", "rules", recordingFile}, {"test", "rules", recordingTestFile}} {
		out, err := exec.Command(promtool, args...).CombinedOutput()
		if err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}
