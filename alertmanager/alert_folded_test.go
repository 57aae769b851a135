package alertmanager

import (
	"testing"

	"github.com/partmon/partmon/analyzer"
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
