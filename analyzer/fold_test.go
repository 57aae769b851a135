package analyzer

import (
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/model"
)

// bigKeySnapshot: an RF-3 table whose largest partition the three replicas
// report at different bucket bounds; withKey adds top_partitions naming it
// on the first replica only (a repair ran there).
func bigKeySnapshot(withKey bool) *model.Snapshot {
	b := newSnap().ring("dc1", 3).keyspace("ks", simple("3"), table("t", pk("id", "text", 0), ck("seq", "int", 0, "asc")))
	for i, m := range []int64{124, 103, 72} {
		b.stats(hostID(i+1), "ks", "t", model.TableStats{MaxPartitionBytes: m * mib, MeanPartitionBytes: 100 * kib, PartitionsEstimate: 400})
	}
	if withKey {
		b.nodeData("h01").TopPartitions = []model.TopPartition{{Keyspace: "ks", Table: "t", Type: "SIZES", Key: "big", Value: 119 * mib}}
	}
	return b.s
}

func findingsOf(r *Report, kind string) []finding.Finding {
	var out []finding.Finding
	for _, f := range r.Findings {
		if f.Kind == kind {
			out = append(out, f)
		}
	}
	return out
}

func TestOneFindingPerProblemWithItsNodes(t *testing.T) {
	r := Analyze(bigKeySnapshot(true), nil, DefaultThresholds())
	fs := findingsOf(r, KindOversizedPartition)
	if len(fs) != 1 {
		t.Fatalf("want one oversized_partition finding for one table, got %d: %+v", len(fs), fs)
	}
	f := fs[0]
	if f.Severity != finding.SeverityCritical || f.Value != 124*testMiB || f.Node != "" || f.Rack != "" || f.DC != "dc1" || f.PartitionKey != "big" {
		t.Fatalf("folded finding: %+v", f)
	}
	want := []finding.NodeValue{
		{Node: "10.0.0.1", DC: "dc1", Rack: "r1", Value: 124 * testMiB, Threshold: 100 * testMiB, Severity: finding.SeverityCritical},
		// 103 MiB is the bucket 85.8–103 MiB: it may be under the critical size.
		{Node: "10.0.0.2", DC: "dc1", Rack: "r1", Value: 103 * testMiB, Threshold: 50 * testMiB, Severity: finding.SeverityWarning},
		{Node: "10.0.0.3", DC: "dc1", Rack: "r1", Value: 72 * testMiB, Threshold: 50 * testMiB, Severity: finding.SeverityWarning},
	}
	if len(f.Nodes) != len(want) {
		t.Fatalf("nodes %+v, want %+v", f.Nodes, want)
	}
	for i := range want {
		if f.Nodes[i] != want[i] {
			t.Errorf("node %d: %+v, want %+v", i, f.Nodes[i], want[i])
		}
	}
	if !strings.Contains(f.Summary, "seen on 3 nodes: 10.0.0.1 124 MiB, 10.0.0.2 103 MiB, 10.0.0.3 72 MiB") {
		t.Errorf("summary does not list the nodes: %q", f.Summary)
	}
}

// The key is an attribute of the problem, not part of its identity. The same
// table's oversized partition keeps its ID whether or not top_partitions
// names the key this cycle.
func TestFindingIDStableWhenTheKeyAppears(t *testing.T) {
	without := findingsOf(Analyze(bigKeySnapshot(false), nil, DefaultThresholds()), KindOversizedPartition)
	with := findingsOf(Analyze(bigKeySnapshot(true), nil, DefaultThresholds()), KindOversizedPartition)
	if len(without) != 1 || len(with) != 1 {
		t.Fatalf("want one finding each, got %d and %d", len(without), len(with))
	}
	if without[0].PartitionKey != "" || with[0].PartitionKey != "big" {
		t.Fatalf("keys %q and %q, want none and big", without[0].PartitionKey, with[0].PartitionKey)
	}
	if without[0].ID != with[0].ID {
		t.Fatalf("the same problem changed ID when its key appeared: %s → %s", without[0].ID, with[0].ID)
	}
}

// A sidecar sees its own node: the finding is that node's.
func TestFoldedFindingOfOneNode(t *testing.T) {
	s := bigKeySnapshot(false)
	delete(s.PerNode, "h02")
	delete(s.PerNode, "h03")
	fs := findingsOf(Analyze(s, nil, DefaultThresholds()), KindOversizedPartition)
	if len(fs) != 1 || fs[0].Node != "10.0.0.1" || fs[0].Rack != "r1" || len(fs[0].Nodes) != 1 || strings.Contains(fs[0].Summary, "seen on") {
		t.Fatalf("got %+v", fs)
	}
	// And it is the same problem as the cluster-wide finding.
	all := findingsOf(Analyze(bigKeySnapshot(false), nil, DefaultThresholds()), KindOversizedPartition)
	if fs[0].ID != all[0].ID {
		t.Fatalf("a sidecar's finding and the cluster's name different problems: %s, %s", fs[0].ID, all[0].ID)
	}
}

// The report's findings and problems say which places their IDs name, so
// the pusher need not ask: a stale node's problem names its node and DC, a
// large partition seen by a sidecar neither.
func TestReportedFindingsSayWhatTheirIDsName(t *testing.T) {
	stale := newSnap().ring("dc1", 2).sources(model.SourceStatus{Source: "a", Node: "10.0.0.1", State: model.StateError,
		Taken: t0, FirstAttempt: t0.Add(-time.Hour)})
	sidecar := bigKeySnapshot(false)
	delete(sidecar.PerNode, "h02")
	delete(sidecar.PerNode, "h03")
	cases := []struct {
		name             string
		s                *model.Snapshot
		kind             string
		wantNode, wantDC bool
	}{
		{name: "stale node", s: stale.s, kind: KindStaleData, wantNode: true, wantDC: true},
		{name: "large partition seen by one node", s: sidecar, kind: KindOversizedPartition},
	}
	for _, c := range cases {
		r := Analyze(c.s, nil, DefaultThresholds())
		fs := findingsOf(r, c.kind)
		if len(fs) != 1 || fs[0].Node == "" {
			t.Fatalf("%s: want one finding on one node, got %+v", c.name, fs)
		}
		if fs[0].IDNamesNode != c.wantNode || fs[0].IDNamesDC != c.wantDC {
			t.Errorf("%s: finding names node %v, DC %v; want %v, %v", c.name, fs[0].IDNamesNode, fs[0].IDNamesDC, c.wantNode, c.wantDC)
		}
		for _, p := range ProblemsIn(r) {
			if p.Kind == c.kind && (p.IDNamesNode != c.wantNode || p.IDNamesDC != c.wantDC) {
				t.Errorf("%s: problem names node %v, DC %v; want %v, %v", c.name, p.IDNamesNode, p.IDNamesDC, c.wantNode, c.wantDC)
			}
		}
	}
}

func TestPerNodeKeepsEachNodesValue(t *testing.T) {
	f := findingsOf(Analyze(bigKeySnapshot(true), nil, DefaultThresholds()), KindOversizedPartition)[0]
	per := f.PerNode()
	if len(per) != 3 {
		t.Fatalf("want 3 per-node findings, got %+v", per)
	}
	for i, p := range per {
		n := f.Nodes[i]
		if p.ID != f.ID || p.Node != n.Node || p.Rack != n.Rack || p.Value != n.Value || p.Severity != n.Severity || p.Threshold != n.Threshold || len(p.Nodes) != 1 {
			t.Errorf("per-node %d: %+v, want node %+v", i, p, n)
		}
	}
	if per[2].Severity != finding.SeverityWarning || per[0].Severity != finding.SeverityCritical {
		t.Errorf("per-node severities %v, %v", per[0].Severity, per[2].Severity)
	}
	table := finding.Finding{Kind: KindLowCardinalityKey, Keyspace: "ks", Table: "t"}
	if got := table.PerNode(); len(got) != 1 || got[0].Node != "" {
		t.Errorf("a finding no node measured: %+v", got)
	}
}
