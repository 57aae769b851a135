//go:build integration

package collector

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/partmon/partmon/tools/testcluster"
	"github.com/partmon/partmon/tools/testkit"
)

// TestSampleAgainKeepsBothWindows: the one-shot's second sampler pass on
// the real cluster, with the real nodetool, under hot-key traffic: the
// hot key's replica keeps both windows (Pass 0, then 1), each listing the
// key, the second window after the first.
func TestSampleAgainKeepsBothWindows(t *testing.T) {
	planted := plantedHotKey(t)
	root, err := testkit.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	startHotTraffic(ctx, t, root)
	cluster := filepath.Join(root, "deploy", "local", "cluster")
	table := []string{planted.Keyspace + "." + planted.Table}
	waitForHotKey(ctx, t, []string{cluster, "nodetool", "--dir", testcluster.Dir(), planted.Nodes[0]}, table, planted.Key)

	c, err := New(Config{Hosts: testcluster.Hosts(), Mode: ModeCluster, NodetoolSampler: NodetoolSamplerConfig{
		Command: []string{cluster, "nodetool", "--dir", testcluster.Dir(), "{address}"}, Duration: 5 * time.Second,
	}}, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, src := range []string{"topology", "schema", "nodetool_sampler"} {
		if err := c.CollectSource(ctx, src); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
	}
	start := time.Now()
	if err := c.SampleAgain(ctx); err != nil {
		t.Fatalf("second pass: %v", err)
	}
	t.Logf("the second sampler pass took %s on %d nodes in parallel (5-s windows)", time.Since(start).Round(100*time.Millisecond), len(testcluster.Hosts()))

	s := c.Snapshot()
	passes := map[int]int64{}
	for _, nd := range s.PerNode {
		if nd == nil || nd.Address != planted.Nodes[0] {
			continue
		}
		for _, hp := range nd.HotPartitions {
			if hp.Key == planted.Key && hp.Keyspace == planted.Keyspace && hp.Table == planted.Table && hp.Op == "read" {
				passes[hp.Pass] = hp.Count
			}
		}
	}
	if len(passes) != 2 || passes[0] <= 0 || passes[1] <= 0 {
		t.Fatalf("the hot key's reads on %s by window: %v, want both windows (0 and 1) listing it", planted.Nodes[0], passes)
	}
	t.Logf("hot key %q on %s: %d reads in the first window, %d in the second", planted.Key, planted.Nodes[0], passes[0], passes[1])
}
