package web

import (
	"regexp"
	"strings"
	"testing"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/tools/reporttest"
)

// foldedReport: one oversized partition seen by three replicas (one finding
// with three nodes, as the analyzer folds it), one hot range on one node,
// and one schema remark.
func foldedReport() *analyzer.Report {
	r := reporttest.Cluster()
	r.Findings = []finding.Finding{
		{ID: "f-big", Kind: analyzer.KindOversizedPartition, Severity: finding.SeverityCritical, Cluster: "demo",
			Keyspace: "pm_big", Table: "events", PartitionKey: "big", Value: 124 << 20, Threshold: 100 << 20, Unit: finding.UnitBytes,
			Summary: "largest partition of pm_big.events is up to 124 MiB", Advice: "add a shard column: 124 MiB → ~25 MiB",
			Source: "system_views.max_partition_size,system.top_partitions",
			Nodes: []finding.NodeValue{
				{Node: "127.0.0.1", DC: "dc1", Rack: "r1", Value: 124 << 20, Threshold: 100 << 20, Severity: finding.SeverityCritical},
				{Node: "127.0.0.2", DC: "dc1", Rack: "r2", Value: 103 << 20, Threshold: 100 << 20, Severity: finding.SeverityCritical},
				{Node: "127.0.0.3", DC: "dc1", Rack: "r3", Value: 60 << 20, Threshold: 50 << 20, Severity: finding.SeverityWarning},
			}},
		{ID: "f-hot", Kind: analyzer.KindHotTokenRange, Severity: finding.SeverityWarning, Cluster: "demo", Node: "127.0.0.2",
			Keyspace: "pm_hot", Table: "kv", Value: 2.62, Threshold: 2, Unit: finding.UnitRatio,
			Summary: "127.0.0.2 serves 87 % of pm_hot.kv's local reads", Advice: "find the key"},
	}
	r.Remarks = []finding.Finding{{ID: "r-asc", Kind: analyzer.KindAscendingTimeOrder, Severity: finding.SeverityInfo,
		Keyspace: "pm_ts", Table: "readings", Summary: "pm_ts.readings clusters by ts ascending", Advice: "recreate WITH CLUSTERING ORDER BY (ts DESC)"}}
	return r
}

var cardRE = regexp.MustCompile(`(?s)<section class="card (\w+)(?: compact)?" id="problem-([^"]+)"(.*?)</section>`)

func TestStatusPageCards(t *testing.T) {
	eLatest := &publish.Latest{}
	e := exporter.New(eLatest, exporter.Options{})
	eLatest.Publish(foldedReport())
	page := get(t, newTestHandler(t, eLatest, e, nil).URL+"/").body

	cards := map[string]string{}
	var order []string
	for _, m := range cardRE.FindAllStringSubmatch(page, -1) {
		cards[m[2]] = m[1] + "|" + m[3]
		order = append(order, m[2])
	}
	if strings.Join(order, ",") != "f-big,f-hot" {
		t.Fatalf("cards %v, want one per problem, critical first: f-big,f-hot", order)
	}
	tests := []struct {
		id   string
		want []string // in this order within the card
		not  []string
	}{
		{"f-big", []string{`critical|`, `data-table="pm_big.events"`, `data-key="big"`, `<span class="sev">critical</span>oversized partition · <a class="table-link" href="/tables/pm_big/events">pm_big.events</a>`,
			`<code class="key">big</code>`, `<dd class="nodes">127.0.0.1, 127.0.0.2, 127.0.0.3</dd>`,
			"A partition has grown past the size", "<b>124 MiB</b>", "against 100 MiB (critical threshold)",
			"<details><summary>Advice and evidence</summary>", "add a shard column: 124 MiB → ~25 MiB",
			"largest partition of pm_big.events is up to 124 MiB",
			"<td>127.0.0.2</td><td>dc1</td><td>r2</td><td class=\"num\">103 MiB</td>",
			"<td>127.0.0.3</td><td>dc1</td><td>r3</td><td class=\"num\">60 MiB</td><td class=\"num\">50 MiB</td><td>warning</td>",
			"Sources: system_views.max_partition_size, system.top_partitions"}, nil},
		{"f-hot", []string{`warning|`, `data-table="pm_hot.kv"`, `<dd class="nodes">127.0.0.2</dd>`, "<b>2.62× fair share</b>", "against 2.00× fair share"},
			[]string{"data-key=", "<th>node</th>"}},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			card := cards[tc.id]
			rest := card
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("card %s lacks %q after what came before; card:\n%s", tc.id, w, card)
				}
				rest = rest[i+len(w):]
			}
			for _, n := range tc.not {
				if strings.Contains(card, n) {
					t.Errorf("card %s has %q", tc.id, n)
				}
			}
		})
	}

	state := regexp.MustCompile(`(?s)<p class="state (\w+)" id="state"><b>(.*?)</b>`).FindStringSubmatch(page)
	if state == nil || state[1] != "critical" || state[2] != "1 critical problem and 1 warning in 2 tables" {
		t.Errorf("state line %q, want critical: 1 critical problem and 1 warning in 2 tables", state)
	}
	// The remark is a note, collapsed and after the cards, never a card.
	cardsEnd, notes := strings.LastIndex(page, "</section>"), strings.Index(page, `<details id="remarks">`)
	if notes < 0 || notes < cardsEnd || !strings.Contains(page[notes:], `<li id="remark-r-asc"><b>ascending time order · pm_ts.readings</b>`) {
		t.Errorf("the schema remark is not a collapsed note after the cards")
	}
	if strings.Contains(page, `id="problem-r-asc"`) {
		t.Error("a schema remark became a problem card")
	}
	if strings.Contains(page, "<script") {
		t.Error("the page carries a script")
	}
}

func TestStateLine(t *testing.T) {
	tests := []struct {
		name      string
		findings  []finding.Finding
		up        bool
		wantLine  string
		wantClass string
	}{
		{"none", nil, true, "No problems at warning or above", "ok"},
		{"info only", []finding.Finding{{Severity: finding.SeverityInfo, Keyspace: "a", Table: "t"}}, true,
			"No problems at warning or above (1 info finding)", "ok"},
		{"two warnings, one table", []finding.Finding{
			{Severity: finding.SeverityWarning, Keyspace: "a", Table: "t"},
			{Severity: finding.SeverityWarning, Keyspace: "a", Table: "t"}}, true,
			"2 warnings in 1 table", "warning"},
		{"critical, cluster-wide", []finding.Finding{{Severity: finding.SeverityCritical}}, true, "1 critical problem", "critical"},
		{"failed cycle", nil, false, "No problems at warning or above; the last cycle failed, this is the last good report", "critical"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			line, class := stateLine(&analyzer.Report{Findings: tc.findings}, tc.up)
			if line != tc.wantLine || class != tc.wantClass {
				t.Errorf("stateLine = %q, %q; want %q, %q", line, class, tc.wantLine, tc.wantClass)
			}
		})
	}
}
