package web

import (
	"strings"
	"testing"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/tools/reporttest"
)

// TestANewKindRendersEverywhere: a kind added to analyzer's one table of
// kinds, and nowhere else, gets its label, sentence and multiple on the
// status page, its series on /metrics, its place among the size charts and
// the API's kind filter.
func TestANewKindRendersEverywhere(t *testing.T) {
	const fake = "fake_crowded_partition"
	defer analyzer.AddKind(analyzer.KindFacts{Name: fake, Label: "crowded partition",
		Sentence: "A partition holds more of the table than a fake rule allows.", MultipleOf: "the fake mean",
		SizeIsTheProblem: true})()

	r := reporttest.Cluster()
	r.Findings = []finding.Finding{{ID: "f-fake", Kind: fake, Severity: finding.SeverityWarning, Cluster: "demo",
		Node: "127.0.0.1", Keyspace: "pm_small", Table: "crowd", Value: 2.5, Threshold: 2, Unit: finding.UnitRatio,
		Summary: "pm_small.crowd is crowded", Advice: "spread it"}}
	r.SizeHistory = []analyzer.SizeHistory{
		{Keyspace: "pm_big", Table: "events", Points: []history.SizePoint{{1, 100 << 20}}},
		{Keyspace: "pm_small", Table: "crowd", Points: []history.SizePoint{{1, 1 << 20}}},
	}
	eLatest := &publish.Latest{}
	e := exporter.New(eLatest, exporter.Options{})
	eLatest.Publish(r)
	srv := newTestHandler(t, eLatest, e, nil)

	page := get(t, srv.URL+"/").body
	for _, want := range []string{`crowded partition · <a class="table-link" href="/tables/pm_small/crowd">pm_small.crowd</a>`, "A partition holds more of the table than a fake rule allows.", "2.50× the fake mean"} {
		if !strings.Contains(page, want) {
			t.Errorf("status page lacks %q", want)
		}
	}
	metrics := get(t, srv.URL+"/metrics").body
	for _, sev := range []string{"info", "warning", "critical"} {
		if !strings.Contains(metrics, `kind="`+fake+`",severity="`+sev+`"}`) {
			t.Errorf("/metrics has no partmon_findings series of kind %s, severity %s", fake, sev)
		}
	}
	if api := get(t, srv.URL+"/api/v1/findings?kind="+fake); api.status != 200 || !strings.Contains(api.body, "f-fake") {
		t.Errorf("/api/v1/findings?kind=%s: %d %s", fake, api.status, truncate(api.body, 200))
	}
	if charts := newGrowthCharts(r).Charts; len(charts) == 0 || charts[0].Table != "pm_small.crowd" {
		t.Errorf("size charts do not lead with the new kind's table: %+v", charts)
	}
}
