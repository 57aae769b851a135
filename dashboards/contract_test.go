package dashboards

import (
	"testing"

	"github.com/partmon/partmon/tools/metriccontract"
	"github.com/partmon/partmon/tools/promexpr"
	"github.com/partmon/partmon/tools/testkit"
)

// rulesFile holds the alerting rules; the dashboards' queries and the rules
// run on the same real Prometheus (prometheus_integration_test.go).
func rulesFile(t *testing.T) string {
	return testkit.Path(t, "deploy", "prometheus", "partmon-alerts.yml")
}

// exporterLabels is metriccontract.Labels for tests.
func exporterLabels(t *testing.T) map[string]map[string]bool {
	t.Helper()
	l, err := metriccontract.Labels()
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// metricNames is the exporter's declared metric list as a set.
func metricNames() map[string]bool { return metriccontract.Names() }

// recordedNames are the series partmon-recording.yml records: a panel may
// read one where partmon publishes nothing itself (the traffic skew of
// sidecars, computed in the store).
func recordedNames(t *testing.T) []string {
	t.Helper()
	rules, err := promexpr.LoadRules(testkit.Path(t, "deploy", "prometheus", "partmon-recording.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rules {
		out = append(out, r.Record)
	}
	return out
}

// checkExpr is metriccontract.Check for tests, the recorded series known
// too: one message per problem.
func checkExpr(t *testing.T, a promexpr.Analysis, extra ...string) []string {
	t.Helper()
	problems, err := metriccontract.Check(a, append(extra, recordedNames(t)...)...)
	if err != nil {
		t.Fatal(err)
	}
	return problems
}
