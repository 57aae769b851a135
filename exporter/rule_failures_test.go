package exporter

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/tools/reporttest"
)

// A report whose rule failed publishes 1 for that rule and 0 for every
// other rule and step, beside its findings.
func TestRuleFailuresSelfMetric(t *testing.T) {
	r := reporttest.Cluster()
	r.RuleFailures = []analyzer.RuleFailure{
		{Rule: analyzer.KindWidePartition, Tables: []string{"shop.orders_by_user"}, Error: "panic: runtime error (at analyzer/schema.go:28)"},
		{Rule: analyzer.StepHeatMap, Error: "panic: x"},
	}
	latest := &publish.Latest{}
	latest.Publish(r)
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(New(latest, Options{}))
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	findings := 0
	for _, mf := range mfs {
		switch mf.GetName() {
		case "partmon_analyzer_rule_failures":
			for _, m := range mf.GetMetric() {
				got[m.GetLabel()[0].GetValue()] = m.GetGauge().GetValue()
			}
		case "partmon_finding_value":
			findings = len(mf.GetMetric())
		}
	}
	checks := analyzer.Checks()
	if len(got) != len(checks) || len(checks) < len(analyzer.Kinds()) {
		t.Errorf("series %v, want one per rule and step %v", got, checks)
	}
	for _, c := range checks {
		want := 0.0
		if c == analyzer.KindWidePartition || c == analyzer.StepHeatMap {
			want = 1
		}
		if v, ok := got[c]; !ok || v != want {
			t.Errorf("partmon_analyzer_rule_failures{rule=%q} = %v (present %v), want %v", c, v, ok, want)
		}
	}
	if findings == 0 {
		t.Error("no finding series: a rule's failure must not hide the other findings")
	}
}
