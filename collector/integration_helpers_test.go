//go:build integration

package collector

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/tools/testcluster"
	"github.com/partmon/partmon/tools/testkit"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"
)

// waitForCluster polls the real cluster until `deploy/local/cluster status`
// shows every node Up/Normal and the fixtures wrote their truth file. The
// cluster is started by the Foundation scripts, never by these tests.
func waitForCluster(t *testing.T) *testcluster.Truth {
	t.Helper()
	root, err := testkit.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	want := len(testcluster.Hosts())
	deadline := time.Now().Add(15 * time.Minute)
	for {
		out, _ := exec.Command(filepath.Join(root, "deploy", "local", "cluster"), "status", "--dir", testcluster.Dir()).CombinedOutput()
		up := 0
		for _, line := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(line, "UN ") {
				up++
			}
		}
		if _, err := os.Stat(testcluster.TruthFile()); up >= want && err == nil {
			truth, err := testcluster.LoadTruth()
			if err != nil {
				t.Fatal(err)
			}
			return truth
		}
		if time.Now().After(deadline) {
			t.Fatalf("cluster not ready after 15m: %d of %d nodes UN, truth file %s", up, want, testcluster.TruthFile())
		}
		time.Sleep(10 * time.Second)
	}
}

func integrationConfig(mode string, hosts ...string) Config {
	cfg := Config{Hosts: hosts, Mode: mode, QueryTimeout: 20 * time.Second, ConnectTimeout: 10 * time.Second}
	if env, err := testcluster.Env(); err == nil && env["AUTH"] == "true" {
		cfg.Username, cfg.Password = "cassandra", "cassandra"
	}
	return cfg
}

func newIntegrationCollector(t *testing.T, cfg Config) *Collector {
	t.Helper()
	c, err := New(cfg, zaptest.NewLogger(t, zaptest.Level(zap.InfoLevel)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func runNodetool(t *testing.T, host string, args ...string) string {
	t.Helper()
	n := testcluster.NodeIndex(host)
	if n == 0 {
		t.Fatalf("%s is not a node of the test cluster", host)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := testcluster.Nodetool(ctx, n, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// tablestats is the part of `nodetool tablestats -F json` compared here
// (Cassandra 5.0 TableStatsPrinter JSON keys).
type tablestats struct {
	LocalReadCount        int64  `json:"local_read_count"`
	LocalWriteCount       int64  `json:"local_write_count"`
	MaxPartitionBytes     int64  `json:"compacted_partition_maximum_bytes"`
	SpaceUsedTotal        string `json:"space_used_total"`
	MaxTombstonesPerSlice int64  `json:"maximum_tombstones_per_slice_last_five_minutes"`
	// Tombstone counts are JSON numbers, sizes JSON strings of bytes.
	TopTombstonePartitions  map[string]json.Number `json:"top_tombstone_partitions"`
	TopSizePartitions       map[string]string      `json:"top_size_partitions"`
	NumberOfPartitionsEstim int64                  `json:"number_of_partitions_estimate"`
}

func nodetoolTablestats(t *testing.T, host, keyspace, table string) tablestats {
	t.Helper()
	out := runNodetool(t, host, "tablestats", "-F", "json", keyspace+"."+table)
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("tablestats JSON: %v\n%s", err, out)
	}
	var ks struct {
		Tables map[string]tablestats `json:"tables"`
	}
	if err := json.Unmarshal(doc[keyspace], &ks); err != nil {
		t.Fatalf("tablestats JSON for %s: %v", keyspace, err)
	}
	ts, ok := ks.Tables[table]
	if !ok {
		t.Fatalf("tablestats has no %s.%s:\n%s", keyspace, table, out)
	}
	return ts
}

// nodetoolRing parses `nodetool ring`: address → tokens.
func nodetoolRing(t *testing.T, host string) map[string][]int64 {
	t.Helper()
	ring := map[string][]int64{}
	for _, line := range strings.Split(runNodetool(t, host, "ring"), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || net.ParseIP(f[0]) == nil {
			continue
		}
		tok, err := strconv.ParseInt(f[len(f)-1], 10, 64)
		if err != nil {
			t.Fatalf("nodetool ring line %q: %v", line, err)
		}
		ring[f[0]] = append(ring[f[0]], tok)
	}
	return ring
}

// nodetoolReadP99 is the 99% read latency of `nodetool tablehistograms`, in microseconds.
func nodetoolReadP99(t *testing.T, host, keyspace, table string) float64 {
	t.Helper()
	out := runNodetool(t, host, "tablehistograms", keyspace, table)
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "99%" {
			v, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				t.Fatalf("tablehistograms 99%% line %q: %v", line, err)
			}
			return v
		}
	}
	t.Fatalf("no 99%% line in tablehistograms:\n%s", out)
	return 0
}

// tcpProxy forwards a loopback address to a real node. Stopping it makes
// the node vanish for partmon (refused connections, dropped sessions)
// without touching the shared cluster; starting it brings the node back.
type tcpProxy struct {
	t      *testing.T
	listen string
	target string

	mu    sync.Mutex
	ln    net.Listener
	conns []net.Conn
}

func newTCPProxy(t *testing.T, listen, target string) *tcpProxy {
	p := &tcpProxy{t: t, listen: listen, target: target}
	t.Cleanup(p.stop)
	return p
}

func (p *tcpProxy) start() {
	ln, err := net.Listen("tcp", p.listen)
	if err != nil {
		p.t.Fatalf("proxy listen %s: %v", p.listen, err)
	}
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", p.target)
			if err != nil {
				in.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, in, out)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(out, in); out.Close() }()
			go func() { _, _ = io.Copy(in, out); in.Close() }()
		}
	}()
}

func (p *tcpProxy) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// freeLoopbackPort is a port free on addr (a loopback IP) right now.
func freeLoopbackPort(t *testing.T, addr string) int {
	t.Helper()
	l, err := net.Listen("tcp", net.JoinHostPort(addr, "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func statusOf(s *model.Snapshot, source, node string) (model.SourceStatus, error) {
	for _, st := range s.Sources {
		if st.Source == source && st.Node == node {
			return st, nil
		}
	}
	return model.SourceStatus{}, fmt.Errorf("no status for %s on %q", source, node)
}

// hostIDOf is the host ID the snapshot's ring gives address.
func hostIDOf(t *testing.T, s *model.Snapshot, address string) string {
	t.Helper()
	for _, n := range s.Nodes {
		if n.Address == address {
			return n.HostID
		}
	}
	t.Fatalf("%s is not in the ring %+v", address, s.Nodes)
	return ""
}
