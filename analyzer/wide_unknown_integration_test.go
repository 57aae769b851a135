//go:build integration

package analyzer_test

import (
	"context"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/tools/testcluster"
)

// TestWideUnknownOnlyWhereNoBoundDecidesOnRealCluster holds the rule to the
// fixture cluster: the report says "wide_partition … unknown" for no table
// without a clustering column (one row a partition, by the schema), and for
// no table whose largest partition fragment, as nodetool tablehistograms
// prints it in bytes, cannot hold the warning's rows: every row but one
// takes 5 bytes (3 of header, 1 of content, the clustering's header byte)
// and its clustering value (the fixtures cluster by one int, timestamp or
// timeuuid: 4, 8, 16 bytes; docs/detection.md, "What decides 'not wide'").
// The cell histogram decides nothing here: it bounds rows from below only
// (a row marker or a row deletion writes no cell). partmon's bytes must
// equal nodetool's on every node.
func TestWideUnknownOnlyWhereNoBoundDecidesOnRealCluster(t *testing.T) {
	version, err := testcluster.Version()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	snap := snapshotWithNodetool(ctx, t, "nodetool_sampler", "nodetool_tablestats")
	report := analyzer.Analyze(snap, nil, analyzer.DefaultThresholds())
	warn := float64(analyzer.DefaultThresholds().PartitionRowsWarning)

	notes := map[string][]string{} // table key → its wide_partition notes
	for _, n := range report.Notes {
		if rest, ok := strings.CutPrefix(n, "wide_partition of "); ok {
			tk := strings.Fields(rest)[0]
			notes[tk] = append(notes[tk], n)
		}
	}
	withoutClustering, decidedByBytes := 0, 0
	for _, ks := range snap.Schema.Keyspaces {
		if !strings.HasPrefix(ks.Name, "pm_") {
			continue
		}
		for _, tb := range ks.Tables {
			tk := model.TableKey(ks.Name, tb.Name)
			if !hasClustering(tb) {
				withoutClustering++
				for _, n := range notes[tk] {
					t.Errorf("%s has no clustering column (one row a partition), yet: %s", tk, n)
				}
				continue
			}
			if testcluster.Series(version) < "5.0" {
				continue // no tablehistograms source before 5.0
			}
			largest := largestFragmentOnNodes(ctx, t, snap, ks.Name, tb.Name)
			perRow := 5 + clusteringValueBytes(t, tb)
			if largest > 0 && 1+math.Floor(largest/perRow) < warn {
				decidedByBytes++
				for _, n := range notes[tk] {
					t.Errorf("%s: its largest fragment is %g bytes (nodetool), room for under %g rows of %g bytes, yet: %s", tk, largest, warn, perRow, n)
				}
			}
		}
	}
	if withoutClustering < 2 {
		t.Errorf("%d fixture tables without a clustering column, want pm_hot.kv and pm_clean.users_by_id at least", withoutClustering)
	}
	if testcluster.Series(version) >= "5.0" && decidedByBytes == 0 {
		t.Error("no fixture table's bytes decided: the check tested nothing")
	}
	t.Logf("%d wide_partition notes in the report; %d tables without a clustering column, %d decided by nodetool's bytes", len(notes), withoutClustering, decidedByBytes)
}

// fixtureClusteringBytes are the lengths of the fixtures' clustering types.
var fixtureClusteringBytes = map[string]float64{"int": 4, "timestamp": 8, "timeuuid": 16}

// clusteringValueBytes is the one clustering value of a fixture table, in
// bytes (a fixed-length type's length).
func clusteringValueBytes(t *testing.T, tb model.Table) float64 {
	t.Helper()
	var ck []model.Column
	for _, c := range tb.Columns {
		if c.Kind == "clustering" {
			ck = append(ck, c)
		}
	}
	if len(ck) != 1 || fixtureClusteringBytes[ck[0].Type] == 0 {
		t.Fatalf("%s.%s clusters by %+v: the test knows one int, timestamp or timeuuid column", tb.Keyspace, tb.Name, ck)
	}
	return fixtureClusteringBytes[ck[0].Type]
}

func hasClustering(tb model.Table) bool {
	for _, c := range tb.Columns {
		if c.Kind == "clustering" {
			return true
		}
	}
	return false
}

// largestFragmentOnNodes is the largest Partition Size max nodetool
// tablehistograms prints for the table on any node (0: no sstable), after
// checking that partmon read the same figure on each node.
func largestFragmentOnNodes(ctx context.Context, t *testing.T, snap *model.Snapshot, keyspace, table string) float64 {
	t.Helper()
	largest := 0.0
	for i, host := range testcluster.Hosts() {
		out, err := nodetoolRetried(ctx, i+1, "tablehistograms", keyspace, table)
		if err != nil {
			t.Fatalf("nodetool tablehistograms %s %s on %s: %v", keyspace, table, host, err)
		}
		bytes := 0.0
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) == 6 && f[0] == "Max" {
				if v, err := strconv.ParseFloat(f[4], 64); err == nil && !math.IsNaN(v) {
					bytes = v
				}
			}
		}
		var got int64
		for _, nd := range snap.PerNode {
			if nd != nil && nd.Address == host && nd.Tables[model.TableKey(keyspace, table)] != nil {
				got = nd.Tables[model.TableKey(keyspace, table)].MaxFragmentBytes
			}
		}
		if float64(got) != bytes {
			t.Errorf("%s.%s on %s: partmon read a largest fragment of %d bytes, nodetool says %g", keyspace, table, host, got, bytes)
		}
		largest = max(largest, bytes)
	}
	return largest
}
