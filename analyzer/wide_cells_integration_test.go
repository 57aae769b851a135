//go:build integration

package analyzer_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/tools/testcluster"
)

// TestWidePartitionFromCellsOnRealCluster: with the nodetool runner
// configured, partmon reads every table's most cells per partition from the
// real `nodetool tablehistograms` (Cassandra 5.0+), equal on every node to
// what nodetool prints for the table, and the wide_partition rule claims
// the fixture's wide key (112,640 rows, one regular cell a row) on every
// node whose sstables hold it, however it was read: at least the cell
// bucket's floor, never more than the rows written. No other fixture table
// gets a claim from cells. On 4.x the source is unsupported, with the reason.
func TestWidePartitionFromCellsOnRealCluster(t *testing.T) {
	truth, err := testcluster.LoadTruth()
	if err != nil {
		t.Fatalf("no fixture truth (run deploy/local/fixtures load): %v", err)
	}
	wide := truth.Find(analyzer.KindWidePartition)
	if len(wide) == 0 || wide[0].ExpectedRows == 0 {
		t.Fatal("the fixture truth plants no wide_partition with its rows")
	}
	p := wide[0]
	version, err := testcluster.Version()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	// Only the histograms: the sampler's window and the key counts add nothing here.
	snap := snapshotWithNodetool(ctx, t, "nodetool_sampler", "nodetool_tablestats")
	states := map[string]model.SourceStatus{}
	for _, s := range snap.Sources {
		if s.Source == "nodetool_histograms" {
			states[s.Node] = s
		}
	}
	if len(states) != len(testcluster.Hosts()) {
		t.Fatalf("nodetool_histograms ran on %d nodes, want %d: %+v", len(states), len(testcluster.Hosts()), states)
	}
	if testcluster.Series(version) < "5.0" {
		for n, s := range states {
			if s.State != model.StateUnsupported || !strings.Contains(s.Error, "fixed in 5.0") {
				t.Errorf("Cassandra %s on %s: want nodetool_histograms unsupported with the reason, got %s %q", version, n, s.State, s.Error)
			}
		}
		return
	}
	for n, s := range states {
		if s.State != model.StateOK {
			t.Fatalf("nodetool_histograms on %s: %s %s", n, s.State, s.Error)
		}
	}
	regular := 0
	for _, ks := range snap.Schema.Keyspaces {
		for _, tb := range ks.Tables {
			if ks.Name == p.Keyspace && tb.Name == p.Table {
				for _, c := range tb.Columns {
					if c.Kind == "regular" {
						regular++
					}
				}
			}
		}
	}
	if regular != 1 {
		t.Fatalf("%s.%s has %d regular columns; the test reads one cell a row", p.Keyspace, p.Table, regular)
	}

	report := analyzer.Analyze(snap, nil, analyzer.DefaultThresholds())
	var found []finding.Finding
	for _, f := range report.Findings {
		if f.Kind != analyzer.KindWidePartition {
			continue
		}
		if f.Keyspace == p.Keyspace && f.Table == p.Table {
			found = append(found, f)
		} else if strings.Contains(f.Source, "tablehistograms") {
			t.Errorf("a claim from cells on %s.%s, which the fixtures keep narrow: %s", f.Keyspace, f.Table, f.Summary)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one wide_partition finding for %s.%s, got %+v", p.Keyspace, p.Table, found)
	}
	f := found[0]
	t.Logf("wide_partition: %s", f.Summary)
	if !strings.Contains(f.Source, "nodetool:tablehistograms") || f.PartitionKey != "" {
		t.Errorf("source %q key %q: want the cell histogram, no key", f.Source, f.PartitionKey)
	}
	claimed := map[string]float64{}
	for _, n := range f.Nodes {
		claimed[n.Node] = n.Value
	}
	lo, hi := bucketOf(p.ExpectedRows)
	holders := 0
	for i, host := range testcluster.Hosts() {
		cells := maxCellCount(t, ctx, i+1, p.Keyspace, p.Table)
		var got int64
		for _, nd := range snap.PerNode {
			if nd != nil && nd.Address == host && nd.Tables[p.Keyspace+"."+p.Table] != nil {
				got = nd.Tables[p.Keyspace+"."+p.Table].MaxCellsPerPartition
			}
		}
		if got != cells {
			t.Errorf("%s: partmon read %d cells per partition, nodetool tablehistograms says %d", host, got, cells)
		}
		if cells != hi {
			// The key is split over sstables here, or the node holds no replica.
			if _, ok := claimed[host]; ok && cells < hi {
				t.Errorf("%s: a claim of %g rows from %d cells, under the %d-row bucket", host, claimed[host], cells, p.ExpectedRows)
			}
			t.Logf("%s: %d cells in its largest partition fragment (the whole key would be %d)", host, cells, hi)
			continue
		}
		holders++
		v, ok := claimed[host]
		switch {
		case !ok:
			t.Errorf("%s holds the %d-row key in one sstable (%d cells by nodetool) and has no wide_partition claim", host, p.ExpectedRows, cells)
		case int64(v) != lo+1 || v > float64(p.ExpectedRows):
			t.Errorf("%s: %g rows claimed, want the floor %d of the bucket (%d, %d], at most the %d rows written", host, v, lo+1, lo, hi, p.ExpectedRows)
		}
	}
	if holders == 0 {
		t.Fatalf("no node holds the wide key in one sstable (nodetool tablehistograms); nothing judged")
	}
}
