//go:build integration

package collector

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/tools/testcluster"
	"github.com/partmon/partmon/tools/testkit"
)

// TestIntegrationNodetoolRunsBounded: cluster mode over every node of the
// real cluster, the real nodetool runner, max_concurrent_runs 1, and the
// three nodetool sources fired at once (as their @every 10m entries did
// before they were staggered). The nodetool JVMs of this cluster, counted
// from /proc while it runs, are never more than one at once, and each
// source still reads every node.
func TestIntegrationNodetoolRunsBounded(t *testing.T) {
	waitForCluster(t)
	root, err := testkit.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.Abs(testcluster.Dir())
	if err != nil {
		t.Fatal(err)
	}
	cfg := integrationConfig(ModeCluster, testcluster.Hosts()[0])
	cfg.NodetoolSampler = NodetoolSamplerConfig{
		Command:  []string{filepath.Join(root, "deploy", "local", "cluster"), "nodetool", "--dir", dir, "{address}"},
		Duration: 2 * time.Second, Samplers: []string{"READS"}, MaxConcurrentRuns: 1,
	}
	c := newIntegrationCollector(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	for _, src := range []string{"topology", "schema"} {
		if err := c.CollectSource(ctx, src); err != nil {
			t.Fatal(err)
		}
	}
	nodes := c.Snapshot().Nodes
	if len(nodes) < 2 {
		t.Fatalf("%d nodes in the ring, want a cluster", len(nodes))
	}

	stopCounting := make(chan struct{})
	counted := make(chan [2]int)
	go func() {
		peak, seen := 0, 0 // most JVMs at once; polls that saw one
		for {
			select {
			case <-stopCounting:
				counted <- [2]int{peak, seen}
				return
			case <-time.After(20 * time.Millisecond):
			}
			n := nodetoolJVMs(dir)
			peak = max(peak, n)
			if n > 0 {
				seen++
			}
		}
	}()
	sources := []string{"nodetool_sampler", "nodetool_histograms", "nodetool_tablestats"}
	var wg sync.WaitGroup
	errs := make([]error, len(sources))
	started := time.Now()
	for i, src := range sources {
		wg.Go(func() { errs[i] = c.CollectSource(ctx, src) })
	}
	wg.Wait()
	close(stopCounting)
	got := <-counted
	t.Logf("%d sources × %d nodes with max_concurrent_runs 1 took %s; at most %d nodetool JVMs at once (%d polls saw one)",
		len(sources), len(nodes), time.Since(started).Round(time.Second), got[0], got[1])
	for i, err := range errs {
		if err != nil {
			t.Errorf("%s: %v", sources[i], err)
		}
	}
	if got[1] == 0 {
		t.Fatal("no nodetool JVM of this cluster was ever seen: the count reads the wrong processes")
	}
	if got[0] != 1 {
		t.Errorf("%d nodetool JVMs ran at once, want at most max_concurrent_runs 1", got[0])
	}
	snap := c.Snapshot()
	for _, src := range sources {
		for _, n := range nodes {
			st, err := statusOf(snap, src, n.Address)
			if err != nil {
				t.Error(err)
				continue
			}
			if st.State != model.StateOK && st.State != model.StateUnsupported {
				t.Errorf("%s on %s: %s %s", src, n.Address, st.State, st.Error)
			}
		}
	}
}

// nodetoolJVMs counts the running NodeTool JVMs of the cluster in dir: the
// local cluster's nodetool passes -Dcassandra.logdir=DIR to each.
func nodetoolJVMs(dir string) int {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	n := 0
	for _, p := range procs {
		cmdline, err := os.ReadFile(p)
		if err != nil {
			continue // gone meanwhile
		}
		args := bytes.Split(cmdline, []byte{0})
		if containsArg(args, "org.apache.cassandra.tools.NodeTool") && containsArg(args, "-Dcassandra.logdir="+dir) {
			n++
		}
	}
	return n
}

func containsArg(args [][]byte, want string) bool {
	for _, a := range args {
		if string(a) == want {
			return true
		}
	}
	return false
}
