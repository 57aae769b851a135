package analyzer

import "testing"

func TestFindingIDIgnoresValues(t *testing.T) {
	a := Finding{Kind: KindOversizedPartition, Cluster: "c", Node: "10.0.0.1", Keyspace: "ks", Table: "t", PartitionKey: "k", Value: 1, Summary: "x"}
	b := a
	b.Value, b.Threshold, b.Severity, b.Summary, b.Advice = 2, 3, SeverityCritical, "y", "z"
	if findingID(&a) != findingID(&b) {
		t.Fatal("ID depends on the value")
	}
	for _, change := range []func(*Finding){
		func(f *Finding) { f.Kind = KindWidePartition },
		func(f *Finding) { f.Node = "10.0.0.2" },
		func(f *Finding) { f.DC = "dc2" },
		func(f *Finding) { f.Keyspace = "ks2" },
		func(f *Finding) { f.Table = "t2" },
		func(f *Finding) { f.PartitionKey = "k2" },
		// Field boundaries count: "ks"+"t" is not "k"+"st".
		func(f *Finding) { f.Keyspace, f.Table = "k", "st" },
	} {
		c := a
		change(&c)
		if findingID(&c) == findingID(&a) {
			t.Errorf("ID does not tell %+v from %+v", c, a)
		}
	}
}
