package web

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/publish"
)

// Each table with a finding has a page holding its cards (and no other
// table's), which every mention on the overview links to; a table the
// report lacks is a 404 that says what to check.
func TestTablePages(t *testing.T) {
	eLatest := &publish.Latest{}
	e := exporter.New(eLatest, exporter.Options{})
	r := foldedReport()
	eLatest.Publish(r)
	srv := newTestHandler(t, eLatest, e, nil)
	overview := get(t, srv.URL+"/").body
	for _, c := range []struct{ ks, table, card, notCard string }{
		{"pm_big", "events", "f-big", "f-hot"},
		{"pm_hot", "kv", "f-hot", "f-big"},
	} {
		path := "/tables/" + c.ks + "/" + c.table
		res := get(t, srv.URL+path)
		if res.status != http.StatusOK {
			t.Errorf("%s: HTTP %d", path, res.status)
			continue
		}
		for _, want := range []string{`id="problem-` + c.card + `"`, "<title>" + c.ks + "." + c.table, `<a href="/">`} {
			if !strings.Contains(res.body, want) {
				t.Errorf("%s lacks %q", path, want)
			}
		}
		if strings.Contains(res.body, `id="problem-`+c.notCard+`"`) {
			t.Errorf("%s shows another table's card %s", path, c.notCard)
		}
		if !strings.Contains(overview, `<a class="table-link" href="`+path+`">`) || !strings.Contains(overview, `<td class="nowrap"><a href="`+path+`">`) {
			t.Errorf("the overview does not link %s from its card and its list of tables", path)
		}
	}
	if res := get(t, srv.URL+"/tables/pm_ts/readings"); res.status != http.StatusOK || !strings.Contains(res.body, "pm_ts.readings clusters by ts ascending") {
		t.Errorf("a table with a design remark alone: HTTP %d, remark shown %v", res.status, strings.Contains(res.body, "clusters by ts"))
	}
	res := get(t, srv.URL+"/tables/nope/none")
	if res.status != http.StatusNotFound || !strings.Contains(res.body, "check the keyspace and table names") {
		t.Errorf("a table the report lacks: HTTP %d: %.200s", res.status, res.body)
	}
}

// A figure reads as words: a guardrail crossing is "crossed" or a date,
// never "0 s against 3.0 d"; a low cardinality is set against its
// threshold per node.
func TestPageNumbersInWords(t *testing.T) {
	th := analyzer.DefaultThresholds()
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	lead := th.GuardrailWarnLead.Seconds()
	for _, c := range []struct {
		f              finding.Finding
		value, against string
	}{
		{finding.Finding{Kind: analyzer.KindGuardrailCrossing, Severity: finding.SeverityInfo, Value: 0, Threshold: lead, Unit: finding.UnitSeconds},
			"crossed", "flagged from"},
		{finding.Finding{Kind: analyzer.KindGuardrailCrossing, Severity: finding.SeverityInfo, Value: 2 * 86400, Threshold: lead, Unit: finding.UnitSeconds},
			"crosses by 2026-12-09", "flagged from"},
		{finding.Finding{Kind: analyzer.KindLowCardinalityKey, Severity: finding.SeverityInfo, Value: 13.3,
			Threshold: 3 * th.LowCardinalityPartitionsPerNode, Unit: finding.UnitPartitions},
			"at most ~13 partitions", "for 3 nodes: fewer than 100 per node"},
		{finding.Finding{Kind: analyzer.KindOversizedPartition, Severity: finding.SeverityCritical, Value: 124 << 20, Threshold: 100 << 20, Unit: finding.UnitBytes},
			"124 MiB", "against 100 MiB (critical threshold)"},
	} {
		v, a := pageNumber(c.f, th, now)
		if !strings.HasPrefix(v, c.value) || !strings.Contains(a, c.against) || strings.Contains(v+a, " s against") {
			t.Errorf("%s %v: %q %q, want %q and %q", c.f.Kind, c.f.Value, v, a, c.value, c.against)
		}
	}
}

// The sources an engine lacks (ScyllaDB's on Cassandra) are said once, not
// a row a node reading "unsupported".
func TestPageSourcesFoldUnsupported(t *testing.T) {
	var in []model.SourceStatus
	for _, n := range []string{"10.0.0.1", "10.0.0.2"} {
		in = append(in, model.SourceStatus{Source: "large_partitions", Node: n, State: model.StateUnsupported, Error: "unsupported: system.large_partitions is ScyllaDB-only"},
			model.SourceStatus{Source: "max_partition_size", Node: n, State: model.StateOK})
	}
	rows, unsupported := pageSources(in)
	if len(rows) != 2 || len(unsupported) != 1 || unsupported[0].Why != "system.large_partitions is ScyllaDB-only" {
		t.Errorf("rows %+v, unsupported %+v", rows, unsupported)
	}
}
