package alertmanager

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/tools/reporttest"
)

// One problem seen by three replicas is one alert: no node label, its
// nodes in an annotation, its ID as finding_id.
func TestAlertForAFindingOfSeveralNodes(t *testing.T) {
	f := finding.Finding{ID: "abc", Kind: analyzer.KindOversizedPartition, Severity: finding.SeverityCritical, DC: "dc1",
		Keyspace: "shop", Table: "orders", Value: 1, Threshold: 1, Summary: "s", Advice: "a",
		Nodes: []finding.NodeValue{{Node: "10.0.0.1"}, {Node: "10.0.0.2"}, {Node: "10.0.0.3"}}}
	a := alertTemplate{runbookURL: "-"}.alertFor(f, "demo")
	if _, ok := a.Labels["node"]; ok || a.Labels["finding_id"] != "abc" || a.Labels["dc"] != "dc1" {
		t.Errorf("labels %v", a.Labels)
	}
	if a.Annotations["nodes"] != "10.0.0.1,10.0.0.2,10.0.0.3" {
		t.Errorf("annotations %v", a.Annotations)
	}
}

// Three sidecars each see an RF-3 problem on their own node: a finding of
// the same ID placed on that node. They push one alert: identical labels,
// no node or DC among them, as a partmon in cluster mode pushes the folded
// finding. A node's own problem (stale data) keeps its node.
func TestSidecarsPushOneAlertPerProblem(t *testing.T) {
	replicas := []string{"127.0.0.1", "127.0.0.2", "127.0.0.3"}
	sidecarLabels := func(f finding.Finding, node string) map[string]string {
		rc := newAMReceiver(t)
		f.Node, f.Rack = node, "r1"
		p := newTestPusher(t, &fakeClock{t: reporttest.Time}, Options{Mode: publish.ModeSidecar, SpeakFor: []string{node},
			Kinds: append(analyzer.KindsPushedWithoutKey(), analyzer.KindStaleData)}, rc)
		p.Update(alertReport(f))
		if err := p.PushOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
		var raw []postableAlert
		if err := json.Unmarshal([]byte(rc.last(t)), &raw); err != nil || len(raw) != 1 {
			t.Fatalf("sidecar of %s pushed %s (%v), want one alert", node, rc.last(t), err)
		}
		return raw[0].Labels
	}
	first := sidecarLabels(findingBigKey, replicas[0])
	if _, ok := first["node"]; ok {
		t.Errorf("a sidecar's alert for a problem of several replicas names its node: %v", first)
	}
	for i, node := range replicas[1:] {
		f := findingBigKey
		f.DC = []string{"dc1", "dc2"}[i] // RF 3 over two DCs: still one problem
		if got := sidecarLabels(f, node); !sameLabels(got, first) {
			t.Errorf("the sidecars of %s and %s push different alerts for one problem:\n%v\n%v", replicas[0], node, first, got)
		}
	}
	stale := finding.Finding{ID: "stale-2", Kind: analyzer.KindStaleData, Severity: finding.SeverityWarning, Cluster: "demo", DC: "dc1",
		Summary: "no data from 127.0.0.2", IDNamesNode: true, IDNamesDC: true}
	if got := sidecarLabels(stale, replicas[1]); got["node"] != replicas[1] {
		t.Errorf("stale data is the node's own problem: labels %v, want node %s", got, replicas[1])
	}
}

// One partition that shows two kinds is one pushed alert: named after the
// kind that lends the problem its ID, at the problem's severity, the other
// kind's evidence in "also".
func TestOneAlertPerProblemAcrossKinds(t *testing.T) {
	oversized := finding.Finding{ID: "o", Kind: analyzer.KindOversizedPartition, Severity: finding.SeverityWarning, Cluster: "demo",
		Node: "127.0.0.1", Keyspace: "pm_ts", Table: "readings", Value: 60 << 20, Threshold: 50 << 20, Unit: "bytes",
		Summary: "largest partition 60 MiB", Advice: "add a day bucket"}
	unbucketed := finding.Finding{ID: "u", Kind: analyzer.KindUnbucketedTimeSeries, Severity: finding.SeverityCritical, Cluster: "demo",
		Keyspace: "pm_ts", Table: "readings", Unit: "bytes", Summary: "no time bucket", Advice: "add an hour bucket"}
	rc := newAMReceiver(t)
	p := newTestPusher(t, &fakeClock{t: reporttest.Time}, Options{MinSeverity: finding.SeverityInfo,
		Kinds: []string{analyzer.KindOversizedPartition, analyzer.KindUnbucketedTimeSeries}}, rc)
	p.Update(alertReport(oversized, unbucketed))
	if err := p.PushOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	var alerts []postableAlert
	if err := json.Unmarshal([]byte(rc.last(t)), &alerts); err != nil {
		t.Fatal(err)
	}
	if len(alerts) != 1 {
		t.Fatalf("pushed %d alerts for one problem: %+v", len(alerts), alerts)
	}
	a := alerts[0]
	if a.Labels["finding_id"] != "o" || a.Labels["alertname"] != "PartmonOversizedPartition" || a.Labels["severity"] != "critical" {
		t.Errorf("labels %v", a.Labels)
	}
	if a.Annotations["also"] != "oversized_partition (warning): largest partition 60 MiB" || a.Annotations["description"] != "add an hour bucket" ||
		a.Annotations["kinds"] != "unbucketed_time_series,oversized_partition" {
		t.Errorf("annotations %v", a.Annotations)
	}
}

// Partmons in cluster mode sharded by DC (collector.datacenters), apart or
// overlapping, each fold an RF-3-per-DC problem over the nodes they read:
// one alert in Alertmanager (identical labels), as one partmon for the
// whole cluster pushes. A node's own problem is pushed by the partmons of
// its DC only, with its node.
func TestDCShardsPushOneAlertPerProblem(t *testing.T) {
	twoDCs := func(findings ...finding.Finding) *analyzer.Report {
		r := alertReport(findings...)
		r.Nodes[2].DC = "dc2" // 127.0.0.3
		return r
	}
	seenOn := func(nodes ...finding.NodeValue) finding.Finding {
		f := findingBigKey
		f.Node, f.Rack, f.DC, f.Nodes = "", "", "", nodes
		if len(nodes) == 1 {
			f.Node, f.DC = nodes[0].Node, nodes[0].DC
		}
		return f
	}
	n1 := finding.NodeValue{Node: "127.0.0.1", DC: "dc1", Severity: finding.SeverityCritical}
	n3 := finding.NodeValue{Node: "127.0.0.3", DC: "dc2", Severity: finding.SeverityCritical}
	stale := finding.Finding{ID: "stale-3", Kind: analyzer.KindStaleData, Severity: finding.SeverityWarning, Cluster: "demo",
		DC: "dc2", Node: "127.0.0.3", Summary: "no data from 127.0.0.3", IDNamesNode: true, IDNamesDC: true}
	// pushed: the alerts of a partmon for dcs, by alertname.
	pushed := func(dcs []string, f ...finding.Finding) map[string]postableAlert {
		rc := newAMReceiver(t)
		p := newTestPusher(t, &fakeClock{t: reporttest.Time}, Options{Mode: publish.ModeCluster, Datacenters: dcs,
			Kinds: append(analyzer.KindsPushedWithoutKey(), analyzer.KindStaleData)}, rc)
		p.Update(twoDCs(f...))
		if err := p.PushOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
		var raw []postableAlert
		if err := json.Unmarshal([]byte(rc.last(t)), &raw); err != nil {
			t.Fatal(err)
		}
		out := map[string]postableAlert{}
		for _, a := range raw {
			out[a.Labels["alertname"]] = a
		}
		return out
	}
	problem, staleNode := AlertName(findingBigKey.Kind), AlertName(analyzer.KindStaleData)
	dc1 := pushed([]string{"dc1"}, seenOn(n1), stale)
	dc2 := pushed([]string{"dc2"}, seenOn(n3), stale)
	both := pushed([]string{"dc1", "dc2"}, seenOn(n1, n3), stale)
	if len(dc1) != 1 || len(dc2) != 2 || len(both) != 2 {
		t.Fatalf("pushed %d (dc1), %d (dc2), %d (both) alerts; want 1, 2 (the problem, dc2's stale node), 2", len(dc1), len(dc2), len(both))
	}
	for name, got := range map[string]postableAlert{"dc2": dc2[problem], "dc1+dc2": both[problem]} {
		if !sameLabels(got.Labels, dc1[problem].Labels) {
			t.Errorf("the dc1 partmon and the %s partmon push different alerts for one problem:\n%v\n%v", name, dc1[problem].Labels, got.Labels)
		}
	}
	if _, ok := dc1[problem].Labels["node"]; ok {
		t.Errorf("a shard's alert for a problem of several replicas names a node: %v", dc1[problem].Labels)
	}
	for name, got := range map[string]postableAlert{"dc2": dc2[staleNode], "dc1+dc2": both[staleNode]} {
		if got.Labels["node"] != "127.0.0.3" {
			t.Errorf("the %s partmon's stale-node alert: labels %v, want node 127.0.0.3", name, got.Labels)
		}
	}
}

// The partition_key annotation is bounded like the exporter's label: valid
// UTF-8, at most 120 bytes, a long key's start and a hash of the whole.
func TestAlertKeyAnnotationBounded(t *testing.T) {
	long := strings.Repeat("é", 100) + "\xff" + strings.Repeat("k", 1<<20)
	other := strings.Repeat("é", 100) + "\xff" + strings.Repeat("k", 1<<20-1) + "j"
	for _, key := range []string{"short-key", long} {
		f := finding.Finding{ID: "abc", Kind: analyzer.KindOversizedPartition, Severity: finding.SeverityCritical,
			Keyspace: "shop", Table: "orders", PartitionKey: key}
		got := alertTemplate{runbookURL: "-"}.alertFor(f, "demo").Annotations["partition_key"]
		if len(got) > keyAnnotationMax || !utf8.ValidString(got) || (len(key) <= keyAnnotationMax && got != key) {
			t.Errorf("annotation of a %d-byte key: %d bytes %q", len(key), len(got), got)
		}
	}
	if boundedKey(long) == boundedKey(other) {
		t.Error("two long keys with the same start share an annotation")
	}
}
