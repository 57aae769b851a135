package alertmanager

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/internal/reporttest"
)

// One problem seen by three replicas is one alert: no node label, its
// nodes in an annotation, its ID as finding_id.
func TestAlertForAFindingOfSeveralNodes(t *testing.T) {
	f := analyzer.Finding{ID: "abc", Kind: analyzer.KindOversizedPartition, Severity: analyzer.SeverityCritical, DC: "dc1",
		Keyspace: "shop", Table: "orders", Value: 1, Threshold: 1, Summary: "s", Advice: "a",
		Nodes: []analyzer.NodeValue{{Node: "10.0.0.1"}, {Node: "10.0.0.2"}, {Node: "10.0.0.3"}}}
	a := alertTemplate{runbookURL: "-"}.alertFor(f, "demo")
	if _, ok := a.Labels["node"]; ok || a.Labels["finding_id"] != "abc" || a.Labels["dc"] != "dc1" {
		t.Errorf("labels %v", a.Labels)
	}
	if a.Annotations["nodes"] != "10.0.0.1,10.0.0.2,10.0.0.3" {
		t.Errorf("annotations %v", a.Annotations)
	}
}

// One partition that shows two kinds is one pushed alert: named after the
// kind that lends the problem its ID, at the problem's severity, the other
// kind's evidence in "also".
func TestOneAlertPerProblemAcrossKinds(t *testing.T) {
	oversized := analyzer.Finding{ID: "o", Kind: analyzer.KindOversizedPartition, Severity: analyzer.SeverityWarning, Cluster: "demo",
		Node: "127.0.0.1", Keyspace: "pm_ts", Table: "readings", Value: 60 << 20, Threshold: 50 << 20, Unit: "bytes",
		Summary: "largest partition 60 MiB", Advice: "add a day bucket"}
	unbucketed := analyzer.Finding{ID: "u", Kind: analyzer.KindUnbucketedTimeSeries, Severity: analyzer.SeverityCritical, Cluster: "demo",
		Keyspace: "pm_ts", Table: "readings", Unit: "bytes", Summary: "no time bucket", Advice: "add an hour bucket"}
	rc := newAMReceiver(t)
	p := newTestPusher(t, &fakeClock{t: reporttest.Time}, Options{MinSeverity: analyzer.SeverityInfo,
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
