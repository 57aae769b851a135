package analyzer

import (
	"testing"

	"github.com/partmon/partmon/analyzer/finding"
)

func TestFindingIDNamesTheProblemOnly(t *testing.T) {
	cases := []struct {
		kind string
		// changes that name another problem, and changes that do not
		differs, same []func(*finding.Finding)
	}{
		{kind: KindOversizedPartition,
			differs: []func(*finding.Finding){
				func(f *finding.Finding) { f.Kind = KindWidePartition },
				func(f *finding.Finding) { f.Cluster = "c2" },
				func(f *finding.Finding) { f.Keyspace = "ks2" },
				func(f *finding.Finding) { f.Table = "t2" },
				// Field boundaries count: "ks"+"t" is not "k"+"st".
				func(f *finding.Finding) { f.Keyspace, f.Table = "k", "st" },
			},
			same: []func(*finding.Finding){
				func(f *finding.Finding) { f.PartitionKey = "" }, // a key list stopped naming it
				func(f *finding.Finding) { f.PartitionKey = "k2" },
				func(f *finding.Finding) { f.Node, f.DC, f.Rack = "", "", "" }, // seen by several nodes
				func(f *finding.Finding) { f.Node = "10.0.0.2" },
				func(f *finding.Finding) { f.Nodes = []finding.NodeValue{{Node: "10.0.0.3"}} },
			}},
		{kind: KindHotPartition,
			differs: []func(*finding.Finding){func(f *finding.Finding) { f.PartitionKey = "k2" }},
			same:    []func(*finding.Finding){func(f *finding.Finding) { f.Node = "10.0.0.2" }}},
		{kind: KindHotTokenRange,
			differs: []func(*finding.Finding){func(f *finding.Finding) { f.DC = "dc2" }},
			same:    []func(*finding.Finding){func(f *finding.Finding) { f.Node = "10.0.0.2" }, func(f *finding.Finding) { f.PartitionKey = "" }}},
		{kind: KindStaleData,
			differs: []func(*finding.Finding){func(f *finding.Finding) { f.Node = "10.0.0.2" }, func(f *finding.Finding) { f.DC = "dc2" }}},
	}
	for _, c := range cases {
		t.Run(c.kind, func(t *testing.T) {
			a := finding.Finding{Kind: c.kind, Cluster: "c", DC: "dc1", Rack: "r1", Node: "10.0.0.1", Keyspace: "ks", Table: "t", PartitionKey: "k", Value: 1, Summary: "x"}
			b := a
			b.Value, b.Threshold, b.Severity, b.Summary, b.Advice, b.Source = 2, 3, finding.SeverityCritical, "y", "z", "s"
			if findingID(&a) != findingID(&b) {
				t.Fatal("ID depends on the values")
			}
			for i, change := range c.differs {
				d := a
				change(&d)
				if findingID(&d) == findingID(&a) {
					t.Errorf("change %d: ID does not tell %+v from %+v", i, d, a)
				}
			}
			for i, change := range c.same {
				d := a
				change(&d)
				if findingID(&d) != findingID(&a) {
					t.Errorf("change %d: an attribute changed the ID: %+v", i, d)
				}
			}
		})
	}
}

// What a finding says its ID names is what the ID is made of: moving the
// finding to another node (or DC) changes its ID exactly when the finding
// says the ID names the node (or DC). The pusher drops the labels it does not.
func TestFindingSaysWhatItsIDNames(t *testing.T) {
	want := map[string][2]bool{ // kind: names the node, names the DC
		KindStaleData:          {true, true},
		KindHotTokenRange:      {false, true},
		KindOwnershipSkew:      {false, true},
		KindOversizedPartition: {false, false},
		KindHotPartition:       {false, false},
	}
	for _, kind := range Kinds() {
		f := finding.Finding{Kind: kind, Cluster: "c", DC: "dc1", Rack: "r1", Node: "10.0.0.1", Keyspace: "ks", Table: "t", PartitionKey: "k"}
		nameID(&f)
		if w, ok := want[kind]; ok && (f.IDNamesNode != w[0] || f.IDNamesDC != w[1]) {
			t.Errorf("%s: names node %v, DC %v; want %v, %v", kind, f.IDNamesNode, f.IDNamesDC, w[0], w[1])
		}
		elsewhere, otherDC := f, f
		elsewhere.Node = "10.0.0.2"
		otherDC.DC = "dc2"
		if moved := findingID(&elsewhere) != f.ID; moved != f.IDNamesNode {
			t.Errorf("%s: says its ID names the node: %v; another node changes the ID: %v", kind, f.IDNamesNode, moved)
		}
		if moved := findingID(&otherDC) != f.ID; moved != f.IDNamesDC {
			t.Errorf("%s: says its ID names the DC: %v; another DC changes the ID: %v", kind, f.IDNamesDC, moved)
		}
	}
}
