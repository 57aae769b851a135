package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/model"
)

func renderSample() *analyzer.Report {
	taken := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	return &analyzer.Report{
		Taken: taken, Cluster: "prod", Engine: model.EngineCassandra, Version: "5.0.8",
		Nodes: []analyzer.NodeSummary{
			{HostID: "h1", Address: "10.0.0.1", DC: "dc1", Rack: "r1", Tokens: 16, LoadBytes: 3 << 30, LoadSkew: 1.5, Targeted: true},
			{HostID: "h2", Address: "10.0.0.2", DC: "dc1", Rack: "r2", Tokens: 16, LoadBytes: 1 << 30, LoadSkew: 0.5, Targeted: true, Stale: true, DataAgeSeconds: 600},
		},
		Ownership: []analyzer.Ownership{
			{Keyspace: "", HostID: "h1", Node: "10.0.0.1", DC: "dc1", Rack: "r1", Owns: 0.75, Skew: 1.5},
			{Keyspace: "", HostID: "h2", Node: "10.0.0.2", DC: "dc1", Rack: "r2", Owns: 0.25, Skew: 0.5},
			{Keyspace: "shop", HostID: "h1", Node: "10.0.0.1", DC: "dc1", Rack: "r1", Owns: 0.75, Skew: 1.5},
		},
		Tables: []analyzer.TableSummary{
			{Keyspace: "shop", Table: "small", MaxPartitionBytes: 2048, PartitionsEstimate: 10, SecondsToCritical: -1},
			{Keyspace: "shop", Table: "orders", MaxPartitionBytes: 200 << 20, MeanPartitionBytes: 1 << 20, PartitionsEstimate: 1000, ReadRate: 12.5, WriteRate: 3, SecondsToCritical: 0},
			{Keyspace: "shop", Table: "events", MaxPartitionBytes: 60 << 20, SecondsToCritical: 3 * 86400},
		},
		Findings: []finding.Finding{
			{Kind: analyzer.KindLowCardinalityKey, Severity: finding.SeverityInfo, Cluster: "prod", Keyspace: "shop", Table: "by_status", Summary: "3 partitions"},
			{Kind: analyzer.KindOversizedPartition, Severity: finding.SeverityCritical, Cluster: "prod", Node: "10.0.0.1", Keyspace: "shop", Table: "orders",
				PartitionKey: "customer|42", Summary: "largest partition 200 MiB ≥ 100 MiB", Advice: "add a month bucket: 200 MiB → 17 MiB"},
			{Kind: analyzer.KindOwnershipSkew, Severity: finding.SeverityWarning, Cluster: "prod", Node: "10.0.0.1", Keyspace: "shop", Summary: "owns 75% for a fair 50%"},
		},
		Sources: []model.SourceStatus{
			{Source: "topology", State: model.StateOK},
			{Source: "size_estimates", Node: "10.0.0.2", State: model.StateError, Error: "timeout", LastSuccess: taken.Add(-10 * time.Minute)},
		},
	}
}

func TestRenderText(t *testing.T) {
	r := renderSample()
	tests := []struct {
		name     string
		min      finding.Severity
		want     []string // in this order
		wantNone []string
	}{
		{
			name: "all severities, critical first",
			min:  finding.SeverityInfo,
			want: []string{
				`cluster "prod" (cassandra 5.0.8)`,
				"1 critical, 1 warning, 1 info",
				"CRITICAL findings (1)",
				`[oversized_partition] shop.orders, key "customer|42", node 10.0.0.1`,
				"A partition has grown past the size",
				"measured: largest partition 200 MiB ≥ 100 MiB",
				"advice: add a month bucket: 200 MiB → 17 MiB",
				"WARNING findings (1)",
				"INFO findings (1)",
				"10.0.0.1  dc1  r1    16      3.0 GiB  75.0%       1.50       ok",
				"stale (10 minutes old)",
				"Effective ownership, keyspace shop",
				"Tables by largest partition",
				"shop.orders", "already over",
				"shop.events", "in 3.0 days",
				"shop.small",
				"size_estimates on 10.0.0.2: timeout (last success 2026-11-30T11:50:00Z)",
			},
		},
		{
			name:     "warning and above",
			min:      finding.SeverityWarning,
			want:     []string{"CRITICAL findings (1)", "WARNING findings (1)"},
			wantNone: []string{"INFO findings"},
		},
		{
			name:     "nothing at critical except the one",
			min:      finding.SeverityCritical,
			want:     []string{"CRITICAL findings (1)"},
			wantNone: []string{"WARNING findings", "No findings at or above"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Report(&b, r, Text, tc.min); err != nil {
				t.Fatal(err)
			}
			assertInOrder(t, b.String(), tc.want)
			for _, s := range tc.wantNone {
				if strings.Contains(b.String(), s) {
					t.Errorf("output contains %q:\n%s", s, b.String())
				}
			}
		})
	}
}

// TestRenderTextFoldedAndNotes: a problem seen by three replicas is one
// block naming its nodes, its number against its threshold; schema remarks
// and analysis notes come last, the remarks only down to info.
func TestRenderTextFoldedAndNotes(t *testing.T) {
	r := renderSample()
	r.Findings[1].Node = ""
	r.Findings[1].Value, r.Findings[1].Threshold, r.Findings[1].Unit = 200<<20, 100<<20, finding.UnitBytes
	r.Findings[1].Nodes = []finding.NodeValue{{Node: "10.0.0.1"}, {Node: "10.0.0.2"}, {Node: "10.0.0.3"}}
	r.Remarks = []finding.Finding{{Kind: analyzer.KindAscendingTimeOrder, Severity: finding.SeverityInfo, Keyspace: "shop", Table: "events",
		Summary: "clusters by ts ascending", Advice: "recreate WITH CLUSTERING ORDER BY (ts DESC)"}}
	r.Notes = []string{"keyspace legacy: replication class unknown"}
	tests := []struct {
		name     string
		min      finding.Severity
		want     []string // in this order
		wantNone []string
	}{
		{"info", finding.SeverityInfo, []string{
			`[oversized_partition] shop.orders, key "customer|42", nodes 10.0.0.1, 10.0.0.2, 10.0.0.3`,
			"(200 MiB against 100 MiB)", "advice: add a month bucket",
			"Tables by largest partition", "Sources that could not be read",
			"\nNotes\n", "Design remarks (1; from the schema alone", "  [ascending_time_order] shop.events: clusters by ts ascending",
			"      advice: recreate WITH CLUSTERING ORDER BY (ts DESC)", "  keyspace legacy: replication class unknown",
		}, nil},
		{"warning: the analysis notes only", finding.SeverityWarning, []string{
			"nodes 10.0.0.1, 10.0.0.2, 10.0.0.3", "\nNotes\n", "  keyspace legacy: replication class unknown",
		}, []string{"ascending_time_order", "Design remarks"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Report(&b, r, Text, tc.min); err != nil {
				t.Fatal(err)
			}
			assertInOrder(t, b.String(), tc.want)
			for _, s := range tc.wantNone {
				if strings.Contains(b.String(), s) {
					t.Errorf("output contains %q:\n%s", s, b.String())
				}
			}
		})
	}
}

func TestRenderTextNoFindings(t *testing.T) {
	r := renderSample()
	r.Findings = nil
	var b bytes.Buffer
	if err := Report(&b, r, Text, finding.SeverityWarning); err != nil {
		t.Fatal(err)
	}
	assertInOrder(t, b.String(), []string{"0 critical, 0 warning, 0 info", "No findings at or above warning."})
}

func TestRenderMarkdownEscapes(t *testing.T) {
	r := renderSample()
	r.Findings[1].PartitionKey = "a|b*c"
	var b bytes.Buffer
	if err := Report(&b, r, Markdown, finding.SeverityInfo); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	assertInOrder(t, out, []string{
		"# partmon report: cluster `prod`",
		"- **critical** `oversized_partition` shop.orders, key \"a\\|b\\*c\", node 10.0.0.1",
		"*Advice:* add a month bucket",
		"- **warning**", "- **info**",
		"| 10.0.0.1 | dc1 | r1 | 16 | 3.0 GiB | 75.0% | 1.50 | ok |",
		"| shop.orders | ≤ 200.0 MiB |",
	})
}

// The JSON keeps its keys, and --min-severity filters it as the text
// (TestMinSeverityHiddenIsSaid: its summary counts what it hid).
func TestRenderJSONHasContractKeys(t *testing.T) {
	var b bytes.Buffer
	if err := Report(&b, renderSample(), JSON, finding.SeverityCritical); err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"summary", "cluster", "nodes", "ownership", "findings", "problems"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks key %q", k)
		}
	}
	var fs []finding.Finding
	if err := json.Unmarshal(m["findings"], &fs); err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || fs[0].Severity != finding.SeverityCritical {
		t.Errorf("JSON at critical must hold the critical finding alone, got %+v", fs)
	}
}

func TestParseOutputFormat(t *testing.T) {
	for in, want := range map[string]Format{"text": Text, "JSON": JSON, "md": Markdown, " markdown ": Markdown} {
		got, err := ParseFormat(in)
		if err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseFormat("yaml"); err == nil || !strings.Contains(err.Error(), `"yaml"`) {
		t.Errorf("ParseFormat(yaml) error = %v", err)
	}
}

func assertInOrder(t *testing.T, out string, want []string) {
	t.Helper()
	rest := out
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Fatalf("missing (or out of order) %q in:\n%s", w, out)
		}
		rest = rest[i+len(w):]
	}
}
