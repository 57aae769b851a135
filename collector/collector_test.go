package collector

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/tools/testkit"
	"go.uber.org/zap"
)

func newTestCollector(t *testing.T, cfg Config) *Collector {
	t.Helper()
	c, err := New(cfg, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func nodeOut(addr, hostID string, fill func(*model.NodeData)) *Output {
	o := newOutput(addr)
	o.Node.HostID = hostID
	fill(o.Node)
	return o
}

func TestSnapshotKeepsLastGoodData(t *testing.T) {
	c := newTestCollector(t, Config{Hosts: []string{"10.0.0.1"}})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

	topo := newOutput("")
	topo.Cluster.Cluster, topo.Cluster.Engine = "prod", model.EngineCassandra
	topo.Cluster.Nodes = []model.Node{{HostID: "h1", Address: "10.0.0.1", Tokens: []int64{1}}, {HostID: "h2", Address: "10.0.0.2", Tokens: []int64{2}}}
	c.record("topology", "", "", topo, 2, nil, t0)
	c.record("max_partition_size", "10.0.0.1", "h1", nodeOut("10.0.0.1", "h1", func(d *model.NodeData) {
		d.Stats("ks", "t").MaxPartitionBytes = 5 << 20
	}), 1, nil, t0)
	c.record("disk_usage", "10.0.0.1", "h1", nodeOut("10.0.0.1", "h1", func(d *model.NodeData) {
		d.Stats("ks", "t").DiskUsageBytes = 7 << 20
		d.LoadBytes = 9 << 20
	}), 1, nil, t0)
	c.record("gossip_info", "10.0.0.1", "h1", nodeOut("10.0.0.1", "h1", func(d *model.NodeData) {
		d.LoadBytes = 8 << 20
		d.GossipLoad = map[string]float64{"10.0.0.1": 8 << 20}
	}), 1, nil, t0)
	c.record("local_read_latency", "10.0.0.1", "h1", nodeOut("10.0.0.1", "h1", func(d *model.NodeData) {
		d.Stats("ks", "t").LocalReads = model.Ops{Count: 0, Rate: 0} // a real zero, read twice
	}), 1, nil, t0)

	// A later failure keeps the data and says so.
	t1 := t0.Add(time.Minute)
	c.record("max_partition_size", "10.0.0.1", "", nil, 0, errors.New("reading system_views.max_partition_size on 10.0.0.1: timeout"), t1)
	c.record("top_partitions", "10.0.0.1", "h1", nil, 0, errors.New("unsupported: no"), t1)
	c.record("thread_pools", "10.0.0.1", "h1", nil, 0, errUnsupportedFor("thread_pools"), t1)

	s := c.Snapshot()
	nd := s.PerNode["h1"]
	if nd == nil || nd.Address != "10.0.0.1" {
		t.Fatalf("per node %+v", s.PerNode)
	}
	ts := nd.Tables["ks.t"]
	if ts.MaxPartitionBytes != 5<<20 || ts.DiskUsageBytes != 7<<20 {
		t.Errorf("table %+v: the failed source's last good value must stay", ts)
	}
	if ts.LocalReads.Rate != 0 || ts.LocalWrites.Rate != -1 || ts.LocalScans.Rate != -1 {
		t.Errorf("rates %+v %+v: a real zero stays 0, never-read ops are -1", ts.LocalReads, ts.LocalWrites)
	}
	if nd.LoadBytes != 8<<20 {
		t.Errorf("load %g: gossip load must beat the disk usage sum", nd.LoadBytes)
	}
	if s.Taken != t1 || s.Cluster != "prod" || len(s.Nodes) != 2 || !s.Nodes[0].Targeted || s.Nodes[1].Targeted {
		t.Errorf("snapshot taken %v cluster %q nodes %+v", s.Taken, s.Cluster, s.Nodes)
	}
	st := findStatus(t, s, "max_partition_size", "10.0.0.1")
	if st.State != model.StateError || !st.LastSuccess.Equal(t0) || !st.Taken.Equal(t1) || !strings.Contains(st.Error, "timeout") {
		t.Errorf("status %+v", st)
	}
	if st := findStatus(t, s, "thread_pools", "10.0.0.1"); st.State != model.StateUnsupported {
		t.Errorf("thread_pools status %+v", st)
	}
	if st := findStatus(t, s, "nodetool_sampler", ""); st.State != model.StateDisabled {
		t.Errorf("nodetool_sampler status %+v", st)
	}

	// The snapshot is a copy: changing it changes nothing in the collector.
	ts.MaxPartitionBytes = 1
	s.Nodes[0].Tokens[0] = 99
	nd.GossipLoad["10.0.0.1"] = 0
	s2 := c.Snapshot()
	if s2.PerNode["h1"].Tables["ks.t"].MaxPartitionBytes != 5<<20 || s2.Nodes[0].Tokens[0] != 1 || s2.PerNode["h1"].GossipLoad["10.0.0.1"] != 8<<20 {
		t.Error("a snapshot shares memory with the collector")
	}
}

func errUnsupportedFor(what string) error {
	return errors.Join(ErrUnsupported, errors.New(what))
}

func findStatus(t *testing.T, s *model.Snapshot, source, node string) model.SourceStatus {
	t.Helper()
	for _, st := range s.Sources {
		if st.Source == source && st.Node == node {
			return st
		}
	}
	t.Fatalf("no status for %s on %q", source, node)
	return model.SourceStatus{}
}

func TestUnreachableNodeIsAnErrorAndBacksOff(t *testing.T) {
	port := testkit.FreePort(t) // nothing listens there
	c := newTestCollector(t, Config{Hosts: []string{"127.0.0.1:" + strconv.Itoa(port)}, ConnectTimeout: time.Second, RetryBackoff: time.Hour, MaxRetryBackoff: time.Hour})
	ctx := context.Background()

	err := c.CollectAll(ctx)
	if err == nil {
		t.Fatal("want an error from an unreachable node")
	}
	s := c.Snapshot()
	st := findStatus(t, s, "topology", "")
	if st.State != model.StateError || !strings.Contains(st.Error, "connecting to 127.0.0.1") {
		t.Errorf("topology status %+v", st)
	}
	if len(s.PerNode) != 0 {
		t.Errorf("no node data expected, got %v", s.PerNode)
	}
	for _, st := range s.Sources {
		if st.State == model.StateOK {
			t.Errorf("%s on %q is ok on an unreachable node", st.Source, st.Node)
		}
	}
	// The next run does not hammer the node: it backs off.
	err = c.CollectSource(ctx, "disk_usage")
	if !errors.Is(err, cql.ErrBackoff) {
		t.Fatalf("want a backoff error, got %v", err)
	}
	if st := findStatus(t, c.Snapshot(), "disk_usage", "127.0.0.1"); !strings.Contains(st.Error, "next attempt in") {
		t.Errorf("status %+v", st)
	}
}

func TestCollectSourceNames(t *testing.T) {
	c := newTestCollector(t, Config{Hosts: []string{"10.0.0.1"}})
	if err := c.CollectSource(context.Background(), "nope"); err == nil || err.Error() != `unknown source "nope"` {
		t.Errorf("got %v", err)
	}
	if err := c.CollectSource(context.Background(), "nodetool_sampler"); err == nil || err.Error() != `source "nodetool_sampler" is disabled` {
		t.Errorf("got %v", err)
	}
}

// A second sampler pass keeps the first window before it (Pass 0, then 1);
// a node whose second pass failed keeps its first window alone.
func TestKeepFirstPass(t *testing.T) {
	c := newTestCollector(t, Config{Hosts: []string{"10.0.0.1"}})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sampled := func(addr, host, key string, count int64) *Output {
		return nodeOut(addr, host, func(d *model.NodeData) {
			d.HotPartitions = []model.HotPartition{{Keyspace: "ks", Table: "t", Key: key, Op: "read", Count: count, Total: 100, Window: 10}}
		})
	}
	c.record("nodetool_sampler", "10.0.0.1", "h1", sampled("10.0.0.1", "h1", "a", 30), 1, nil, t0)
	c.record("nodetool_sampler", "10.0.0.2", "h2", sampled("10.0.0.2", "h2", "b", 40), 1, nil, t0)
	first := c.outputsOf("nodetool_sampler")
	c.record("nodetool_sampler", "10.0.0.1", "h1", sampled("10.0.0.1", "h1", "a", 20), 1, nil, t0.Add(15*time.Second))
	c.record("nodetool_sampler", "10.0.0.2", "h2", nil, 0, errors.New("nodetool: JMX connection refused"), t0.Add(15*time.Second))
	c.keepFirstPass("nodetool_sampler", first)

	s := c.Snapshot()
	var got []string
	for _, addr := range []string{"10.0.0.1", "10.0.0.2"} {
		for _, hp := range s.PerNode[hostOf(t, s, addr)].HotPartitions {
			got = append(got, fmt.Sprintf("%s %s %d pass %d", addr, hp.Key, hp.Count, hp.Pass))
		}
	}
	want := []string{"10.0.0.1 a 30 pass 0", "10.0.0.1 a 20 pass 1", "10.0.0.2 b 40 pass 0"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("hot partitions %v, want %v", got, want)
	}
}

func hostOf(t *testing.T, s *model.Snapshot, addr string) string {
	t.Helper()
	for id, nd := range s.PerNode {
		if nd.Address == addr {
			return id
		}
	}
	t.Fatalf("no node data for %s in %v", addr, s.PerNode)
	return ""
}

// A source that panics is that source's failure on that node, with its
// last good data kept; the other sources' results stand.
func TestSourcePanicIsItsFailedStatus(t *testing.T) {
	c := newTestCollector(t, Config{Hosts: []string{"10.0.0.1"}})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	good := nodeOut("10.0.0.1", "h1", func(d *model.NodeData) { d.Stats("ks", "t").MaxPartitionBytes = 5 << 20 })
	c.record("max_partition_size", "10.0.0.1", "h1", good, 1, nil, t0)
	c.record("disk_usage", "10.0.0.1", "h1", nodeOut("10.0.0.1", "h1", func(d *model.NodeData) {
		d.Stats("ks", "t").DiskUsageBytes = 7 << 20
	}), 1, nil, t0)

	t1 := t0.Add(time.Minute)
	out, rows, err := guarded(c.log, "max_partition_size", "10.0.0.1", func() (*Output, int, error) {
		var tables map[string]*model.TableStats
		tables["ks.t"].MaxPartitionBytes = 1 // a nil map: the kind of bug a source can have
		return good, 1, nil
	})
	if out != nil || err == nil || !strings.Contains(err.Error(), "source max_partition_size panicked") || !strings.Contains(err.Error(), "nil") {
		t.Fatalf("guarded = %v, %d, %v; want no output and an error naming the source and the panic", out, rows, err)
	}
	c.record("max_partition_size", "10.0.0.1", "", out, rows, err, t1)
	c.record("disk_usage", "10.0.0.1", "h1", nodeOut("10.0.0.1", "h1", func(d *model.NodeData) {
		d.Stats("ks", "t").DiskUsageBytes = 8 << 20
	}), 1, nil, t1)

	s := c.Snapshot()
	if st := findStatus(t, s, "max_partition_size", "10.0.0.1"); st.State != model.StateError || !strings.Contains(st.Error, "panicked") || !st.LastSuccess.Equal(t0) {
		t.Errorf("panicked source's status %+v, want an error with its last success kept", st)
	}
	if st := findStatus(t, s, "disk_usage", "10.0.0.1"); st.State != model.StateOK {
		t.Errorf("other source's status %+v, want ok", st)
	}
	if ts := s.PerNode["h1"].Tables["ks.t"]; ts.MaxPartitionBytes != 5<<20 || ts.DiskUsageBytes != 8<<20 {
		t.Errorf("table %+v: the panicked source's last good value and the other source's new one must stand", ts)
	}
}
