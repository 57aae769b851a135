package truth

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

func TestCheckOwnership(t *testing.T) {
	nts := map[string]string{"class": "NetworkTopologyStrategy", "dc1": "2", "dc2": "1"}
	scs := []*Scenario{
		{Keyspace: "truth_a", Replication: nts},
		// Same replication as truth_a: nodetool was asked about truth_a only.
		{Keyspace: "truth_b", Replication: map[string]string{"dc2": "1", "class": "NetworkTopologyStrategy", "dc1": "2"}},
		{Keyspace: "truth_c", Replication: map[string]string{"class": "SimpleStrategy", "replication_factor": "1"}},
	}
	status := map[string][]StatusNode{
		"truth_a": {{Address: "10.0.0.1", Owns: 0.5}, {Address: "10.0.0.2", Owns: 1}},
		"truth_c": {{Address: "10.0.0.1", Owns: 0.333}, {Address: "10.0.0.2", Owns: 0.667}},
	}
	owns := []Ownership{
		{Keyspace: "truth_a", Node: "10.0.0.1", Owns: 0.5004}, {Keyspace: "truth_a", Node: "10.0.0.2", Owns: 1},
		{Keyspace: "truth_b", Node: "10.0.0.1", Owns: 0.5}, {Keyspace: "truth_b", Node: "10.0.0.2", Owns: 0.998},
		{Keyspace: "truth_c", Node: "10.0.0.1", Owns: 0.333},
	}
	got := checkOwnership(scs, owns, status, nil)
	want := []struct {
		ks, node, from string
		ok             bool
	}{
		{"truth_a", "10.0.0.1", "truth_a", true},  // 0.04 pp
		{"truth_a", "10.0.0.2", "truth_a", true},  // exact
		{"truth_b", "10.0.0.1", "truth_a", true},  // same replication
		{"truth_b", "10.0.0.2", "truth_a", false}, // 0.2 pp
		{"truth_c", "10.0.0.1", "truth_c", true},
		{"truth_c", "10.0.0.2", "truth_c", false}, // partmon gave none
	}
	if len(got) != len(want) {
		t.Fatalf("%d checks, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Keyspace != w.ks || g.Node != w.node || g.From != w.from || g.OK != w.ok {
			t.Errorf("check %d = %+v, want %s %s from %s ok=%v", i, g, w.ks, w.node, w.from, w.ok)
		}
	}

	s := Summary{Phase: PhaseOneShot}
	s.addPhase(&ClusterResult{}, PhaseResult{Ownership: got}, func(string) *KindRow { return &KindRow{} })
	// 10.0.0.2 owns 1.33x its group's mean in every keyspace, with no finding: skew errors too.
	if s.Ownership != 6 || s.OwnershipOK != 4 || len(s.OwnershipErrors) != 2 || len(s.SkewErrors) != 3 || !s.Failed() {
		t.Errorf("summary: %d of %d ok, %d errors, failed %v", s.OwnershipOK, s.Ownership, len(s.OwnershipErrors), s.Failed())
	}
	if d := s.OwnershipMaxPP; d < 0.199 || d > 0.201 {
		t.Errorf("largest difference %.4f pp, want 0.2", d)
	}
	var b bytes.Buffer
	s.WriteText(&b)
	if !strings.Contains(b.String(), "OWNERSHIP truth_b on 10.0.0.2: partmon 0.9980, nodetool status truth_a 1.0000") {
		t.Errorf("text table lacks the ownership error:\n%s", b.String())
	}
}

// ownership_skew must be given where nodetool's ownership is past the
// warning level and only there; a folded finding names the node in Nodes.
func TestOwnershipSkewAgainstNodetool(t *testing.T) {
	nts := []*Scenario{{Keyspace: "truth_n", Replication: map[string]string{"class": "NetworkTopologyStrategy", "dc1": "1", "dc2": "1"}}}
	simple := []*Scenario{{Keyspace: "truth_n", Replication: map[string]string{"class": "SimpleStrategy", "replication_factor": "1"}}}
	// dc1: 0.5 / 0.25 / 0.25 (the first node 1.5x); dc2 one node, 1.0.
	status := map[string][]StatusNode{"truth_n": {
		{Address: "a", DC: "dc1", Owns: 0.5}, {Address: "b", DC: "dc1", Owns: 0.25}, {Address: "c", DC: "dc1", Owns: 0.25}, {Address: "d", DC: "dc2", Owns: 1},
	}}
	var owns []Ownership
	for _, n := range status["truth_n"] {
		owns = append(owns, Ownership{Keyspace: "truth_n", Node: n.Address, Owns: n.Owns})
	}
	skewOn := func(sev string, nodes ...string) []Finding {
		return []Finding{{Kind: "ownership_skew", Severity: sev, Keyspace: "truth_n", Nodes: nodes}}
	}
	cases := []struct {
		name     string
		scs      []*Scenario
		findings []Finding
		wrong    []string // nodes whose skew check fails
	}{
		{"heavy node flagged", nts, skewOn("warning", "a"), nil},
		{"heavy node missed", nts, nil, []string{"a"}},
		{"info is not a finding", nts, skewOn("info", "a"), []string{"a"}},
		{"balanced node flagged", nts, skewOn("critical", "a", "b"), []string{"b"}},
		// SimpleStrategy: the ring is one group, mean 0.5; d at 2x, a at 1x.
		{"simple: the ring is the group", simple, skewOn("critical", "d"), nil},
		{"simple: per-DC reading is wrong", simple, skewOn("critical", "a"), []string{"a", "d"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var wrong []string
			for _, o := range checkOwnership(c.scs, owns, status, c.findings) {
				if !o.OK {
					t.Errorf("%s: ownership %v vs %v not ok", o.Node, o.Partmon, o.Nodetool)
				}
				if !o.SkewOK {
					wrong = append(wrong, o.Node)
				}
			}
			if !slices.Equal(wrong, c.wrong) {
				t.Errorf("skew errors on %v, want %v", wrong, c.wrong)
			}
		})
	}
}
