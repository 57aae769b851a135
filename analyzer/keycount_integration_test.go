//go:build integration

package analyzer_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/collector"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/tools/testcluster"
	"github.com/partmon/partmon/tools/testkit"
)

// TestLowCardinalityFromKeyCountsOnRealCluster: with the nodetool runner
// configured, partmon reads each user table's distinct partition keys from
// the real `nodetool tablestats` on every node (Cassandra 4.0–5.0), equal to
// what nodetool prints for the table alone, and the fixture's low-cardinality
// table is bounded by those counts: at least the keys written, at most
// twice that with HyperLogLog's margin (a key in the memtable and on disk
// counts twice). No other fixture table gets a claim from counts.
func TestLowCardinalityFromKeyCountsOnRealCluster(t *testing.T) {
	truth, err := testcluster.LoadTruth()
	if err != nil {
		t.Fatalf("no fixture truth (run deploy/local/fixtures load): %v", err)
	}
	planted := truth.Find(analyzer.KindLowCardinalityKey)
	if len(planted) == 0 || planted[0].ExpectedPartitions == 0 {
		t.Fatal("the fixture truth plants no low_cardinality_key with its partitions")
	}
	p := planted[0]
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	// Only the key counts: the sampler's window and the cells add nothing here.
	snap := snapshotWithNodetool(ctx, t, "nodetool_sampler", "nodetool_histograms")
	ran := 0
	for _, s := range snap.Sources {
		if s.Source != "nodetool_tablestats" {
			continue
		}
		ran++
		if s.State != model.StateOK {
			t.Fatalf("nodetool_tablestats on %s: %s %s", s.Node, s.State, s.Error)
		}
	}
	if ran != len(testcluster.Hosts()) {
		t.Fatalf("nodetool_tablestats ran on %d nodes, want %d", ran, len(testcluster.Hosts()))
	}

	tk := p.Keyspace + "." + p.Table
	var sum int64
	for i, host := range testcluster.Hosts() {
		want := nodetoolKeyCount(t, ctx, i+1, p.Keyspace, p.Table)
		var got *int64
		for _, nd := range snap.PerNode {
			if nd != nil && nd.Address == host && nd.Tables[tk] != nil {
				got = nd.Tables[tk].DistinctPartitions
			}
		}
		if got == nil || *got != want {
			t.Errorf("%s: partmon read %v distinct keys of %s, nodetool tablestats says %d", host, got, tk, want)
			continue
		}
		sum += *got
	}
	t.Logf("%s: %d keys counted over the nodes, %d written", tk, sum, p.ExpectedPartitions)

	report := analyzer.Analyze(snap, nil, analyzer.DefaultThresholds())
	var found []finding.Finding
	for _, f := range report.Findings {
		if f.Kind != analyzer.KindLowCardinalityKey {
			continue
		}
		if f.Keyspace == p.Keyspace && f.Table == p.Table {
			found = append(found, f)
		} else if strings.Contains(f.Source, "nodetool:tablestats") {
			t.Errorf("a claim from key counts on %s.%s, which the fixtures give many keys: %s", f.Keyspace, f.Table, f.Summary)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one low_cardinality_key finding for %s, got %+v", tk, found)
	}
	f := found[0]
	t.Logf("low_cardinality_key: %s", f.Summary)
	if !strings.Contains(f.Source, "nodetool:tablestats") {
		t.Errorf("source %q: want the key counts", f.Source)
	}
	if lo, hi := float64(p.ExpectedPartitions), 2*float64(p.ExpectedPartitions)*1.035; f.Value < lo || f.Value > hi {
		t.Errorf("bound of %g partitions, want between the %g written and %g", f.Value, lo, hi)
	}
}

// nodetoolKeyCount is what `nodetool tablestats -F json ks.table` prints as
// the table's number_of_partitions_estimate on node n.
func nodetoolKeyCount(t *testing.T, ctx context.Context, n int, keyspace, table string) int64 {
	t.Helper()
	out, err := nodetoolRetried(ctx, n, "tablestats", "-F", "json", keyspace+"."+table)
	if err != nil {
		t.Fatalf("nodetool tablestats %s.%s: %v", keyspace, table, err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out[strings.IndexByte(out, '{'):]), &doc); err != nil {
		t.Fatalf("nodetool tablestats -F json: %v\n%s", err, out)
	}
	var ks struct {
		Tables map[string]struct {
			Estimate int64 `json:"number_of_partitions_estimate"`
		} `json:"tables"`
	}
	if err := json.Unmarshal(doc[keyspace], &ks); err != nil {
		t.Fatalf("nodetool tablestats -F json, keyspace %s: %v\n%s", keyspace, err, out)
	}
	tb, ok := ks.Tables[table]
	if !ok {
		t.Fatalf("nodetool tablestats -F json has no table %s.%s:\n%s", keyspace, table, out)
	}
	return tb.Estimate
}

// snapshotWithNodetool collects every source once from the local cluster,
// cluster mode, with the nodetool runner reaching each node, the named
// sources off.
func snapshotWithNodetool(ctx context.Context, t *testing.T, off ...string) *model.Snapshot {
	t.Helper()
	root, err := testkit.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	no := false
	cfg := collector.Config{
		Hosts: testcluster.Hosts(),
		Mode:  collector.ModeCluster,
		NodetoolSampler: collector.NodetoolSamplerConfig{
			Command: []string{filepath.Join(root, "deploy/local/cluster"), "nodetool", "{address}"},
		},
		Sources: map[string]collector.SourceConfig{},
	}
	for _, src := range off {
		cfg.Sources[src] = collector.SourceConfig{Enabled: &no}
	}
	coll, err := collector.New(cfg, zaptest.NewLogger(t).Named("collector"))
	if err != nil {
		t.Fatal(err)
	}
	defer coll.Close()
	if err := coll.CollectAll(ctx); err != nil {
		t.Logf("collection incomplete: %v", err)
	}
	return coll.Snapshot()
}
