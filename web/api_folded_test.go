package web

import (
	"net/url"
	"testing"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
)

// ?node= matches a finding folded over several nodes by any of them.
func TestNodeFilterMatchesAFoldedFinding(t *testing.T) {
	f := finding.Finding{Kind: analyzer.KindOversizedPartition, Severity: finding.SeverityCritical, Keyspace: "shop", Table: "orders",
		Nodes: []finding.NodeValue{{Node: "10.0.0.1"}, {Node: "10.0.0.2"}}}
	for node, want := range map[string]bool{"10.0.0.2": true, "10.0.0.1,10.0.0.9": true, "10.0.0.3": false} {
		ff, err := parseFindingFilter(url.Values{"node": {node}})
		if err != nil {
			t.Fatal(err)
		}
		if got := ff.keep(f); got != want {
			t.Errorf("node=%s: kept %v, want %v", node, got, want)
		}
	}
}
