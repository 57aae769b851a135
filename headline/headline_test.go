package headline

import (
	"strings"
	"testing"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
)

func TestHeadline(t *testing.T) {
	tests := []struct {
		name                        string
		f                           finding.Finding
		label, where, nodes, starts string
	}{
		{"folded replicas", finding.Finding{Kind: analyzer.KindOversizedPartition, Keyspace: "ks", Table: "t",
			Nodes: []finding.NodeValue{{Node: "a"}, {Node: "b"}}}, "oversized partition", "ks.t", "a,b", "A partition has grown"},
		{"one node", finding.Finding{Kind: analyzer.KindOwnershipSkew, Keyspace: "ks", Node: "a"}, "ownership skew", "ks", "a", "A node owns"},
		{"cluster-wide", finding.Finding{Kind: analyzer.KindLoadSkew}, "load skew", "cluster", "", "A node holds"},
		{"unknown kind: the summary's first clause", finding.Finding{Kind: "new_kind", Summary: "first; second"},
			"new kind", "cluster", "", "first"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Label(tc.f.Kind); got != tc.label {
				t.Errorf("Label = %q, want %q", got, tc.label)
			}
			if got := Where(tc.f); got != tc.where {
				t.Errorf("Where = %q, want %q", got, tc.where)
			}
			if got := strings.Join(Nodes(tc.f), ","); got != tc.nodes {
				t.Errorf("Nodes = %q, want %q", got, tc.nodes)
			}
			if got := Sentence(tc.f); !strings.HasPrefix(got, tc.starts) {
				t.Errorf("Sentence = %q, want it to start %q", got, tc.starts)
			}
		})
	}
}

// TestKindValue: a multiple of a fair share says so; other units and
// fraction ratios are written as Value writes them.
func TestKindValue(t *testing.T) {
	tests := []struct {
		kind, unit string
		v          float64
		want       string
	}{
		{analyzer.KindHotTokenRange, finding.UnitRatio, 2.583, "2.58× fair share"},
		{analyzer.KindOwnershipSkew, finding.UnitRatio, 1.2, "1.20× fair share"},
		{analyzer.KindLoadSkew, finding.UnitRatio, 1.5, "1.50× its DC's mean load"},
		{analyzer.KindHotPartition, finding.UnitRatio, 0.25, "0.25"},
		{analyzer.KindTombstoneHeavy, finding.UnitRatio, 0.2, "0.20"},
		{analyzer.KindOversizedPartition, finding.UnitBytes, 124 << 20, "124 MiB"},
	}
	for _, tc := range tests {
		if got := KindValue(tc.kind, tc.v, tc.unit); got != tc.want {
			t.Errorf("KindValue(%s, %v, %s) = %q, want %q", tc.kind, tc.v, tc.unit, got, tc.want)
		}
	}
}
