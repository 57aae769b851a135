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

// checkExpr is metriccontract.Check for tests: one message per problem.
func checkExpr(t *testing.T, a promexpr.Analysis, extra ...string) []string {
	t.Helper()
	problems, err := metriccontract.Check(a, extra...)
	if err != nil {
		t.Fatal(err)
	}
	return problems
}
