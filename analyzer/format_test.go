package analyzer

import "testing"

func TestFormatting(t *testing.T) {
	cases := []struct{ got, want string }{
		{formatBytes(0), "0 B"},
		{formatBytes(1023), "1023 B"},
		{formatBytes(1536), "1.5 KiB"},
		{formatBytes(480 * mib), "480 MiB"},
		{formatBytes(16.4 * mib), "16 MiB"},
		{formatBytes(1.25 * gib), "1.2 GiB"},
		{formatSeconds(45), "45 s"},
		{formatSeconds(720), "12 min"},
		{formatSeconds(5.2 * 3600), "5.2 h"},
		{formatSeconds(3.4 * 86400), "3.4 d"},
		{formatCount(1234567), "1,234,567"},
		{formatCount(999), "999"},
		{formatCount(-1000), "-1,000"},
		{formatPercent(0.62), "62 %"},
		{formatPercent(0.045), "4.5 %"},
		{formatRate(0.5), "0.5 ops/s"},
		{formatRate(1200), "1,200 ops/s"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

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
