//go:build integration

package collector

import (
	"context"
	"errors"
	"math"
	"net"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/model"

	"github.com/gocql/gocql"
	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/tools/testcluster"
	"github.com/partmon/partmon/tools/testkit"
)

// cassandraNodeSources are partmon's node-scope CQL sources for Cassandra,
// from their declarations, so a new one is checked on every release
// series without an edit here: every one on by default but logs, whose
// table only 5.0 has and whose 4.x path reads a log file (e2e's logs tests).
var cassandraNodeSources = func() []string {
	var out []string
	for _, d := range Declarations() {
		if d.Scope == NodeScope && d.Gate.Cassandra != "" && d.OffUnless == "" && len(d.Grants) > 0 && d.Name != "logs" {
			out = append(out, d.Name)
		}
	}
	return out
}()

// unsupportedOn are the node sources a Cassandra release series lacks, with
// the reason partmon must give (the matrix of docs/versions.md): read from
// the series' own sources, measured on 4.0.19, 4.1.10 and 5.0.8.
var unsupportedOn = map[string]map[string]string{
	"5.0": {},
	"4.1": {
		"max_sstable_size": "system_views.max_sstable_size does not exist on this node (Cassandra 5.0+)",
	},
	"4.0": {
		"max_sstable_size": "system_views.max_sstable_size does not exist on this node (Cassandra 5.0+)",
		"gossip_info":      "system_views.gossip_info does not exist on this node (Cassandra 4.1+)",
		"top_partitions":   "system.top_partitions does not exist on this node (Cassandra 4.1+)",
	},
}

// clusterSeries is the release series of the test cluster as `cluster up`
// recorded it ("4.1"); the test fails for a series it has no matrix for.
func clusterSeries(t *testing.T) (version, series string) {
	t.Helper()
	version, err := testcluster.Version()
	if err != nil {
		t.Fatal(err)
	}
	series = testcluster.Series(version)
	if _, ok := unsupportedOn[series]; !ok {
		t.Fatalf("Cassandra %s: no source matrix for series %q in this test", version, series)
	}
	return version, series
}

// supportedNodeSources are the node sources the test cluster's series has.
func supportedNodeSources(t *testing.T) []string {
	t.Helper()
	_, series := clusterSeries(t)
	var out []string
	for _, name := range cassandraNodeSources {
		if _, no := unsupportedOn[series][name]; !no {
			out = append(out, name)
		}
	}
	return out
}

// perTableSources have one row per table of the node.
var perTableSources = []string{
	"max_partition_size", "max_sstable_size", "disk_usage", "local_read_latency",
	"local_write_latency", "local_scan_latency", "tombstones_per_read", "rows_per_read",
}

// fixtureTables are the keyspace.table names the fixtures planted.
func fixtureTables(t *testing.T, truth *testcluster.Truth, s *model.Snapshot) []string {
	t.Helper()
	seen := map[string]bool{}
	for _, p := range truth.Problems {
		if p.Table != "" {
			seen[model.TableKey(p.Keyspace, p.Table)] = true
		}
	}
	for _, ks := range s.Schema.Keyspaces {
		if slices.Contains(truth.CleanKeyspaces, ks.Name) {
			for _, tb := range ks.Tables {
				seen[model.TableKey(ks.Name, tb.Name)] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	if len(out) < 5 {
		t.Fatalf("only %d fixture tables: %v", len(out), out)
	}
	return out
}

func TestIntegrationEverySourceOnEveryNode(t *testing.T) {
	truth := waitForCluster(t)
	hosts := testcluster.Hosts()
	c := newIntegrationCollector(t, integrationConfig(ModeCluster, hosts...))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := c.CollectAll(ctx); err != nil {
		t.Fatalf("cycle: %v", err)
	}
	s := c.Snapshot()
	version, series := clusterSeries(t)
	if s.Engine != model.EngineCassandra || s.Version != version || !strings.HasSuffix(s.Partitioner, "Murmur3Partitioner") || s.Cluster == "" {
		t.Errorf("cluster %q engine %q version %q (started: %s) partitioner %q", s.Cluster, s.Engine, s.Version, version, s.Partitioner)
	}
	if len(s.Nodes) != len(hosts) || len(s.PerNode) != len(hosts) {
		t.Fatalf("%d ring nodes, %d read, want %d", len(s.Nodes), len(s.PerNode), len(hosts))
	}
	tables := fixtureTables(t, truth, s)

	for _, host := range hosts {
		hostID := hostIDOf(t, s, host)
		t.Run(host, func(t *testing.T) {
			for _, name := range append([]string{"topology", "schema"}, cassandraNodeSources...) {
				node := host
				if name == "topology" || name == "schema" {
					node = ""
				}
				st, err := statusOf(s, name, node)
				if why, no := unsupportedOn[series][name]; no {
					if err != nil || st.State != model.StateUnsupported || !strings.HasSuffix(st.Error, why) {
						t.Errorf("%s on Cassandra %s: %+v %v; want unsupported: %q", name, version, st, err, why)
					}
					continue
				}
				if err != nil || st.State != model.StateOK {
					t.Errorf("%s: %+v %v", name, st, err)
					continue
				}
				if st.Rows == 0 && name != "top_partitions" {
					t.Errorf("%s on %s returned no rows", name, host)
				}
			}

			// Each per-table source, run directly on this node, lists every fixture table.
			n := c.conn(host, c.cfg.Port)
			q, caps, err := n.Querier(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if caps.HostID != hostID {
				t.Fatalf("the session for %s answers as host %s, the ring says %s", host, caps.HostID, hostID)
			}
			for _, name := range append([]string{"size_estimates"}, perTableSources...) {
				if _, no := unsupportedOn[series][name]; no {
					continue // its status is checked above
				}
				out := newOutput(host)
				if _, err := gatedCollect(ctx, registryByName(t, name), Input{Q: q, Caps: caps, Address: host}, out); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				for _, tb := range tables {
					if _, ok := out.Node.Tables[tb]; !ok {
						t.Errorf("%s on %s has no row for %s", name, host, tb)
					}
				}
			}

			nd := s.PerNode[hostID]
			if nd == nil || nd.Address != host {
				t.Fatalf("per-node data of %s: %+v", host, nd)
			}
			if nd.LoadBytes <= 0 || len(nd.ThreadPools) == 0 || len(nd.Settings) == 0 {
				t.Errorf("load %g pools %d settings %v", nd.LoadBytes, len(nd.ThreadPools), nd.Settings)
			}
			// 4.0 has neither gossip_info nor top partitions: load is Σ disk_usage there.
			if _, no := unsupportedOn[series]["gossip_info"]; no {
				if len(nd.GossipLoad) != 0 || nd.Settings["top_partitions_enabled"] != "" {
					t.Errorf("Cassandra %s: gossip load %v, top_partitions_enabled %q; want none", version, nd.GossipLoad, nd.Settings["top_partitions_enabled"])
				}
			} else {
				if len(nd.GossipLoad) != len(hosts) || nd.Settings["top_partitions_enabled"] == "" {
					t.Errorf("gossip %v settings %v", nd.GossipLoad, nd.Settings)
				}
				if nd.GossipLoad[host] != nd.LoadBytes {
					t.Errorf("own load %g, gossip says %g", nd.LoadBytes, nd.GossipLoad[host])
				}
			}
		})
	}

	// Each node's figures are its own: the RF=1 hot key's replica did the
	// most local operations on the hot table, which only its own
	// local_*_latency rows can show.
	for _, p := range truth.Find("hot_partition") {
		if len(p.Nodes) != 1 {
			continue
		}
		key := model.TableKey(p.Keyspace, p.Table)
		var busiest string
		var most int64 = -1
		for _, nd := range s.PerNode {
			if ops := nd.Tables[key].LocalReads.Count + nd.Tables[key].LocalWrites.Count; ops > most {
				busiest, most = nd.Address, ops
			}
		}
		if busiest != p.Nodes[0] {
			t.Errorf("%s: most local operations on %s, the hot key's only replica is %s", key, busiest, p.Nodes[0])
		}
	}

	// Tokens agree with nodetool ring.
	ring := nodetoolRing(t, hosts[0])
	for _, n := range s.Nodes {
		want := append([]int64(nil), ring[n.Address]...)
		slices.Sort(want)
		if !reflect.DeepEqual(n.Tokens, want) {
			t.Errorf("%s tokens %v, nodetool ring says %v", n.Address, n.Tokens, want)
		}
	}
}

// TestIntegrationAgreesWithNodetool compares partmon's figures with the real
// `nodetool tablestats -F json` of the same node. Counters are bracketed:
// partmon reads them right before and right after nodetool (a JVM start, a
// few seconds), so before ≤ nodetool ≤ after must hold exactly even while
// traffic goes on; sizes must match exactly under the MiB ceiling the
// virtual tables apply (ceil(bytes / 2^20)).
func TestIntegrationAgreesWithNodetool(t *testing.T) {
	truth := waitForCluster(t)
	hosts := testcluster.Hosts()
	c := newIntegrationCollector(t, integrationConfig(ModeCluster, hosts...))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := c.CollectAll(ctx); err != nil {
		t.Fatal(err)
	}
	version, series := clusterSeries(t)
	_, noTop := unsupportedOn[series]["top_partitions"]
	checkedTop := 0
	keys := map[string]bool{}
	for _, p := range truth.Problems {
		if p.Table != "" {
			keys[model.TableKey(p.Keyspace, p.Table)] = true
		}
	}
	for _, host := range hosts {
		for key := range keys {
			ks, tbl, _ := strings.Cut(key, ".")
			t.Run(host+"/"+key, func(t *testing.T) {
				for _, src := range []string{"local_read_latency", "local_write_latency", "max_partition_size", "disk_usage", "tombstones_per_read"} {
					if err := c.CollectSource(ctx, src); err != nil {
						t.Fatal(err)
					}
				}
				before := *c.Snapshot().PerNode[hostIDOf(t, c.Snapshot(), host)].Tables[key]
				nt := nodetoolTablestats(t, host, ks, tbl)
				for _, src := range []string{"local_read_latency", "local_write_latency", "max_partition_size", "disk_usage", "tombstones_per_read"} {
					if err := c.CollectSource(ctx, src); err != nil {
						t.Fatal(err)
					}
				}
				after := *c.Snapshot().PerNode[hostIDOf(t, c.Snapshot(), host)].Tables[key]

				if nt.LocalReadCount < before.LocalReads.Count || nt.LocalReadCount > after.LocalReads.Count {
					t.Errorf("local reads: nodetool %d outside partmon's [%d, %d]", nt.LocalReadCount, before.LocalReads.Count, after.LocalReads.Count)
				}
				if nt.LocalWriteCount < before.LocalWrites.Count || nt.LocalWriteCount > after.LocalWrites.Count {
					t.Errorf("local writes: nodetool %d outside partmon's [%d, %d]", nt.LocalWriteCount, before.LocalWrites.Count, after.LocalWrites.Count)
				}
				wantMax := ceilMiB(nt.MaxPartitionBytes)
				if before.MaxPartitionBytes != wantMax && after.MaxPartitionBytes != wantMax {
					t.Errorf("max partition: nodetool %d bytes (MiB ceiling %d), partmon %d / %d", nt.MaxPartitionBytes, wantMax, before.MaxPartitionBytes, after.MaxPartitionBytes)
				}
				used, err := strconv.ParseInt(nt.SpaceUsedTotal, 10, 64)
				if err != nil {
					t.Fatalf("space_used_total %q: %v", nt.SpaceUsedTotal, err)
				}
				if wantDisk := ceilMiB(used); before.DiskUsageBytes != wantDisk && after.DiskUsageBytes != wantDisk {
					t.Errorf("disk usage: nodetool %d bytes (MiB ceiling %d), partmon %d / %d", used, wantDisk, before.DiskUsageBytes, after.DiskUsageBytes)
				}
				// Same decaying histogram; its max only changes with new reads.
				if got := int64(after.TombstonesPerRead.Max); nt.MaxTombstonesPerSlice != got && int64(before.TombstonesPerRead.Max) != nt.MaxTombstonesPerSlice {
					t.Errorf("max tombstones per read: nodetool %d, partmon %d / %g", nt.MaxTombstonesPerSlice, got, before.TombstonesPerRead.Max)
				}
				// system.top_partitions is the tracker's state as last saved
				// (every 60 min); with no repair since, it equals the live map.
				// 4.0 has no tracker: nodetool shows no top partitions either.
				if noTop && (nt.TopSizePartitions != nil || nt.TopTombstonePartitions != nil) {
					t.Errorf("Cassandra %s: tablestats shows top partitions %v %v", version, nt.TopSizePartitions, nt.TopTombstonePartitions)
				}
				s := c.Snapshot()
				for _, tp := range s.PerNode[hostIDOf(t, s, host)].TopPartitions {
					if tp.Keyspace != ks || tp.Table != tbl {
						continue
					}
					live := nt.TopTombstonePartitions[tp.Key].String()
					if tp.Type == "SIZES" {
						live = nt.TopSizePartitions[tp.Key]
					}
					if live != strconv.FormatInt(tp.Value, 10) {
						t.Errorf("top partition %s %q: system.top_partitions %d, nodetool (live tracker) %q", tp.Type, tp.Key, tp.Value, live)
					}
					checkedTop++
				}
			})
		}
	}
	switch {
	case noTop && checkedTop > 0:
		t.Errorf("Cassandra %s has no system.top_partitions, yet %d entries were compared", version, checkedTop)
	case !noTop && checkedTop == 0:
		t.Errorf("no system.top_partitions entry of a fixture table to compare with nodetool (run deploy/local/fixtures top-partitions)")
	}
	t.Logf("Cassandra %s: %d system.top_partitions entries compared with nodetool tablestats", version, checkedTop)
}

func ceilMiB(b int64) int64 { return (b + 1<<20 - 1) >> 20 << 20 }

// TestIntegrationLatencyUnit calibrates the *_ms columns against nodetool on
// every run: on Cassandra 4.1+ they hold seconds (see latencyMillisToSeconds).
// It reads the tombstone-heavy partition a few times first so the table has
// read latencies of several milliseconds on every node.
func TestIntegrationLatencyUnit(t *testing.T) {
	truth := waitForCluster(t)
	heavy := truth.Find("tombstone_heavy")
	if len(heavy) == 0 {
		t.Fatal("the fixtures planted no tombstone-heavy partition")
	}
	p := heavy[0]
	hosts := testcluster.Hosts()
	pk := ""
	c := newIntegrationCollector(t, integrationConfig(ModeCluster, hosts...))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, src := range []string{"topology", "schema"} {
		if err := c.CollectSource(ctx, src); err != nil {
			t.Fatal(err)
		}
	}
	for _, ks := range c.Snapshot().Schema.Keyspaces {
		for _, tb := range ks.Tables {
			if ks.Name == p.Keyspace && tb.Name == p.Table {
				pk = tb.Columns[0].Name
			}
		}
	}
	// CL ALL: every replica runs the read (data or digest), so each node's own
	// histogram has it; at ONE the snitch may send a node's reads elsewhere
	// (seen on 4.0.19 under load: one node's p99 stayed 0).
	for _, host := range hosts {
		s := testcluster.Session(t, host)
		for range 20 {
			if err := s.Query("SELECT * FROM "+p.Keyspace+"."+p.Table+" WHERE "+pk+" = ?", p.Key).Consistency(gocql.All).Exec(); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, host := range hosts {
		before := c.readP99(t, ctx, host, p.Keyspace, p.Table)
		nodetoolMicros := nodetoolReadP99(t, host, p.Keyspace, p.Table)
		after := c.readP99(t, ctx, host, p.Keyspace, p.Table)
		want := nodetoolMicros / 1e6
		// The virtual table rounds to 3 decimals: ±0.5 ms.
		if math.Abs(before-want) > 0.0005 && math.Abs(after-want) > 0.0005 {
			t.Errorf("%s: partmon p99 %gs / %gs, nodetool tablehistograms %g µs", host, before, after, nodetoolMicros)
		}
		if want < 0.001 {
			t.Errorf("%s: p99 read latency %g µs is too small to tell a 1000× unit error from rounding", host, nodetoolMicros)
		}
		t.Logf("%s: p99 read latency of %s.%s: partmon %gs, nodetool %g µs", host, p.Keyspace, p.Table, after, nodetoolMicros)
	}
}

func (c *Collector) readP99(t *testing.T, ctx context.Context, host, ks, tbl string) float64 {
	t.Helper()
	if err := c.CollectSource(ctx, "local_read_latency"); err != nil {
		t.Fatal(err)
	}
	s := c.Snapshot()
	return s.PerNode[hostIDOf(t, s, host)].Tables[model.TableKey(ks, tbl)].LocalReads.P99Seconds
}

// TestIntegrationSidecarReadsOnlyItsNode: a sidecar speaks for the first
// host only and opens no session to any other node.
func TestIntegrationSidecarReadsOnlyItsNode(t *testing.T) {
	waitForCluster(t)
	hosts := testcluster.Hosts()
	for i, own := range hosts {
		t.Run(own, func(t *testing.T) {
			others := slices.Delete(slices.Clone(hosts), i, i+1)
			c := newIntegrationCollector(t, integrationConfig(ModeSidecar, append([]string{own}, others...)...))
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if err := c.CollectAll(ctx); err != nil {
				t.Fatal(err)
			}
			s := c.Snapshot()
			if len(s.PerNode) != 1 || s.PerNode[hostIDOf(t, s, own)] == nil {
				t.Fatalf("per node %v, want only %s", s.PerNode, own)
			}
			for _, st := range s.Sources {
				if st.Node != "" && st.Node != own {
					t.Errorf("status for another node: %+v", st)
				}
			}
			for _, n := range s.Nodes {
				if n.Targeted != (n.Address == own) {
					t.Errorf("%s targeted=%v", n.Address, n.Targeted)
				}
			}
			c.mu.Lock()
			for addr, n := range c.conns {
				if addr != own && n.Statements() > 0 {
					t.Errorf("sidecar of %s sent %d queries to %s", own, n.Statements(), addr)
				}
			}
			c.mu.Unlock()
		})
	}
}

// TestIntegrationNodeDisappears puts the third node behind a TCP proxy on
// its own loopback address and stops the proxy: for partmon the node is gone
// (refused connections, broken session) while the shared cluster is untouched.
// That node's sources fail alone; the other nodes keep answering; when the
// proxy comes back, the node is read again after its backoff.
func TestIntegrationNodeDisappears(t *testing.T) {
	waitForCluster(t)
	hosts := testcluster.Hosts()
	if len(hosts) < 3 {
		t.Skip("needs three nodes")
	}
	victim := hosts[2]
	port := freeLoopbackPort(t, victim)
	proxy := newTCPProxy(t, net.JoinHostPort(victim, strconv.Itoa(port)), net.JoinHostPort(victim, "9042"))
	proxy.start()

	cfg := integrationConfig(ModeCluster, hosts[0], hosts[1], net.JoinHostPort(victim, strconv.Itoa(port)))
	cfg.RetryBackoff, cfg.MaxRetryBackoff = 200*time.Millisecond, time.Second
	cfg.ConnectTimeout, cfg.QueryTimeout = 2*time.Second, 5*time.Second
	c := newIntegrationCollector(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := c.CollectAll(ctx); err != nil {
		t.Fatalf("all nodes up: %v", err)
	}
	first := c.Snapshot()
	victimID := hostIDOf(t, first, victim)
	if first.PerNode[victimID] == nil {
		t.Fatal("the proxied node was not read")
	}

	proxy.stop()
	err := c.CollectAll(ctx)
	if err == nil {
		t.Fatal("want an error for the stopped node")
	}
	s := c.Snapshot()
	for _, name := range supportedNodeSources(t) {
		for _, h := range hosts {
			st, serr := statusOf(s, name, h)
			if serr != nil {
				t.Fatal(serr)
			}
			switch {
			case h == victim && st.State != model.StateError:
				t.Errorf("%s on the stopped node: %+v", name, st)
			case h != victim && st.State != model.StateOK:
				t.Errorf("%s on %s: %+v", name, h, st)
			case h != victim && !st.Taken.After(statusMust(t, first, name, h).Taken):
				t.Errorf("%s on %s was not read again", name, h)
			}
			if h == victim && !st.LastSuccess.Equal(statusMust(t, first, name, h).LastSuccess) {
				t.Errorf("%s: the last success of the stopped node must stay", name)
			}
		}
	}
	if s.PerNode[victimID] == nil || len(s.PerNode[victimID].Tables) == 0 {
		t.Error("the stopped node's last good data must stay in the snapshot")
	}

	proxy.start()
	deadline := time.Now().Add(time.Minute)
	for {
		time.Sleep(time.Second) // past the backoff
		if err := c.CollectAll(ctx); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("the node did not come back: %v", err)
		}
	}
	if st := statusMust(t, c.Snapshot(), "disk_usage", victim); st.State != model.StateOK {
		t.Errorf("after the node came back: %+v", st)
	}
}

func statusMust(t *testing.T, s *model.Snapshot, source, node string) model.SourceStatus {
	t.Helper()
	st, err := statusOf(s, source, node)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestIntegrationUnreachableAtStart: a sidecar whose node does not answer
// yet (nothing on the port) starts anyway and reads the node once it appears.
func TestIntegrationUnreachableAtStart(t *testing.T) {
	waitForCluster(t)
	host := testcluster.Hosts()[0]
	port := freeLoopbackPort(t, host)
	cfg := integrationConfig(ModeSidecar, net.JoinHostPort(host, strconv.Itoa(port)))
	cfg.RetryBackoff, cfg.MaxRetryBackoff = 100*time.Millisecond, 500*time.Millisecond
	c := newIntegrationCollector(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.CollectAll(ctx); err == nil {
		t.Fatal("nothing listens yet: want an error")
	}
	newTCPProxy(t, net.JoinHostPort(host, strconv.Itoa(port)), net.JoinHostPort(host, "9042")).start()
	// The node's backoff (100 ms doubling to 500 ms) may still defer the
	// next attempt: retry while it does; the first attempt it lets through
	// must succeed.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		err := c.CollectAll(ctx)
		if err == nil {
			break
		}
		if !onlyBackoff(err) {
			t.Fatalf("once the node answers: %v", err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("still backing off 30 s after the node answered (max backoff 500 ms): %v", err)
		}
	}
	if s := c.Snapshot(); len(s.PerNode) != 1 || len(s.Nodes) != len(testcluster.Hosts()) {
		t.Errorf("per node %d, ring %d", len(s.PerNode), len(s.Nodes))
	}
}

// TestIntegrationQueriesPerCycle counts what the default schedule sends each
// node: every node source one statement per read (one page, whatever the
// table count), and at most maxStatementsPerMinute statements per node in
// any minute of the schedule (collector.CQLTicks), the cluster reads
// included on the node that answers them. Running every source at once
// (the start-up cycle) is counted too, and may send more.
func TestIntegrationQueriesPerCycle(t *testing.T) {
	waitForCluster(t)
	hosts := testcluster.Hosts()
	c := newIntegrationCollector(t, integrationConfig(ModeCluster, hosts...))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.CollectAll(ctx); err != nil { // connects and probes
		t.Fatal(err)
	}
	sent := func() map[string]int64 {
		c.mu.Lock()
		defer c.mu.Unlock()
		out := map[string]int64{}
		for addr, n := range c.conns {
			out[addr] = n.Statements()
		}
		return out
	}
	base := sent()
	start := time.Now()
	if err := c.CollectAll(ctx); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	for addr, q := range sent() {
		t.Logf("every source at once: %s: %d statements", addr, q-base[addr])
	}

	// Each source alone, as its schedule runs it; a second read of each, so
	// that the schema source finds the ring fresh as it does after topology.
	perSource := map[string]map[string]int64{} // source → node → statements
	for _, r := range c.regs {
		name := r.src.Name()
		if !c.eff[name].enabled {
			continue
		}
		var got map[string]int64
		for range 2 {
			before := sent()
			if err := c.CollectSource(ctx, name); err != nil && !errors.Is(err, ErrUnsupported) {
				t.Logf("%s: %v", name, err)
			}
			got = map[string]int64{}
			for addr, n := range sent() {
				got[addr] = n - before[addr]
			}
		}
		perSource[name] = got
	}
	for _, name := range supportedNodeSources(t) {
		for _, addr := range hosts {
			if n := perSource[name][addr]; n != 1 {
				t.Errorf("%s on %s: %d statements per read, want 1", name, addr, n)
			}
		}
	}
	ticks, _ := CQLTicks(c.Schedules())
	for _, addr := range hosts {
		worst, at := int64(0), time.Duration(0)
		for _, tk := range ticks {
			var n int64
			for _, name := range tk.Sources {
				n += perSource[name][addr]
			}
			// The schema source skips its version check when the ring is
			// fresh, as above; in the daemon it runs beside topology and may
			// find it older, so the node answering both gets the check.
			if slices.Contains(tk.Sources, "schema") && perSource["topology"][addr] > 0 && perSource["schema"][addr] == 0 {
				n++
			}
			if n > worst {
				worst, at = n, tk.At
			}
		}
		if worst > maxStatementsPerMinute {
			t.Errorf("%s: %d statements in minute %s of the default schedule, want at most %d", addr, worst, at, maxStatementsPerMinute)
		}
		t.Logf("%s: at most %d statements in a minute of the default schedule (minute %s)", addr, worst, at)
	}
	s := c.Snapshot()
	tables := 0
	for _, nd := range s.PerNode {
		tables = max(tables, len(nd.Tables))
	}
	t.Logf("cycle of %d nodes, %d tables per node, %s", len(s.PerNode), tables, elapsed.Round(time.Millisecond))
}

// maxStatementsPerMinute is the most CQL statements one node may get in a
// minute of the default schedule (docs/benchmarks.md).
const maxStatementsPerMinute = 15

func BenchmarkIntegrationCollectAll(b *testing.B) {
	hosts := testcluster.Hosts()
	c, err := New(integrationConfig(ModeCluster, hosts...), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if err := c.CollectAll(ctx); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if err := c.CollectAll(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// TestIntegrationNodetoolSampler wires the nodetool sampler into a sidecar on
// the hot key's replica and reads the key hot while it samples.
func TestIntegrationNodetoolSampler(t *testing.T) {
	truth := waitForCluster(t)
	hot := truth.Find("hot_partition")
	if len(hot) == 0 || len(hot[0].Nodes) != 1 {
		t.Fatal("the fixtures planted no single-replica hot key")
	}
	p := hot[0]
	host := p.Nodes[0]
	root, err := testkit.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cfg := integrationConfig(ModeSidecar, host)
	cfg.NodetoolSampler = NodetoolSamplerConfig{
		Command:  []string{root + "/deploy/local/cluster", "nodetool", "--dir", testcluster.Dir(), strconv.Itoa(testcluster.NodeIndex(host))},
		Duration: 2 * time.Second, Parallel: 2, Samplers: []string{"READS"},
	}
	c := newIntegrationCollector(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := c.CollectSource(ctx, "schema"); err != nil {
		t.Fatal(err)
	}
	s := testcluster.Session(t, host)
	var pk string
	for _, ks := range c.Snapshot().Schema.Keyspaces {
		for _, tb := range ks.Tables {
			if ks.Name == p.Keyspace && tb.Name == p.Table {
				pk = tb.Columns[0].Name
			}
		}
	}
	trafficCtx, stopTraffic := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for trafficCtx.Err() == nil {
			_ = s.Query("SELECT "+pk+" FROM "+p.Keyspace+"."+p.Table+" WHERE "+pk+" = ?", p.Key).
				WithContext(trafficCtx).Consistency(gocql.One).Exec()
		}
	}()
	err = c.CollectSource(ctx, "nodetool_sampler")
	stopTraffic()
	<-done
	if err != nil {
		t.Fatal(err)
	}
	snap := c.Snapshot()
	var top *model.HotPartition
	for _, nd := range snap.PerNode {
		for i, h := range nd.HotPartitions {
			if h.Keyspace == p.Keyspace && h.Table == p.Table && h.Op == "read" && (top == nil || h.Count > top.Count) {
				top = &nd.HotPartitions[i]
			}
		}
	}
	if top == nil || top.Key != p.Key || top.Source != "nodetool" || top.Count == 0 {
		t.Fatalf("hottest sampled read of %s.%s: %+v, want key %q", p.Keyspace, p.Table, top, p.Key)
	}
	t.Logf("nodetool sampler: %q read %d times in %gs", top.Key, top.Count, top.Window)
}

// onlyBackoff tells whether every error joined in err is a node's backoff
// deferring an attempt, not a failed attempt.
func onlyBackoff(err error) bool {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			if !onlyBackoff(e) {
				return false
			}
		}
		return true
	}
	return errors.Is(err, cql.ErrBackoff)
}
