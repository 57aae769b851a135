//go:build integration

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"go.uber.org/zap"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/collector"
	"github.com/partmon/partmon/tools/testcluster"
	"github.com/partmon/partmon/tools/testkit"
)

// The logs source (docs/logs.md): partmon names large and tombstone-heavy
// keys from Cassandra's own warnings, without system.top_partitions
// (repair) or a JMX sampler.

// TestReportNamesKeysFromCassandraLogs: `partmon report` against the
// cluster the suite runs on (fixtures loaded, so its log holds their
// warnings), with system.top_partitions not read and no sampler, names the
// fixtures' large key (pm_big.events "big") and tombstone key (pm_tomb.queue
// "jobs") from node 1's system.log, and on 5.0 also from
// system_views.system_logs.
func TestReportNamesKeysFromCassandraLogs(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	bin, err := partmonBinary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	version, err := testcluster.Version()
	if err != nil {
		t.Fatal(err)
	}
	host := testcluster.Hosts()[0]
	logFile := filepath.Join(testcluster.Dir(), "node1", "logs", "system.log")
	if _, err := os.Stat(logFile); err != nil {
		t.Fatalf("node 1's log: %v (the cluster of %s is not a deploy/local one?)", err, testcluster.Dir())
	}
	ways := map[string]string{"log:system.log": "  logs: {file: " + logFile + "}\n"}
	if testcluster.Series(version) == "5.0" {
		ways["system_views.system_logs"] = ""
	}
	for source, logs := range ways {
		t.Run(source, func(t *testing.T) {
			cfg := fmt.Sprintf("collector:\n  hosts: [%s]\n  mode: sidecar\n%s  sources:\n    top_partitions: {enabled: false}\n", host, logs)
			report := runReport(ctx, t, bin, cfg)
			for _, want := range []struct{ kind, table, key string }{
				{analyzer.KindOversizedPartition, "pm_big.events", "big"},
				{analyzer.KindTombstoneHeavy, "pm_tomb.queue", "jobs"},
			} {
				f, ok := findingFor(report, want.kind, want.table, want.key)
				if !ok {
					t.Fatalf("Cassandra %s, from %s: no %s finding naming key %q of %s; findings: %s", version, source, want.kind, want.key, want.table, listFindings(report))
				}
				if !strings.Contains(f.Source, source) {
					t.Errorf("%s %s %q: source %q, want it to include %s", want.kind, want.table, want.key, f.Source, source)
				}
				if strings.Contains(f.Source, "top_partitions") {
					t.Errorf("%s %s %q: source %q, but top_partitions was not read", want.kind, want.table, want.key, f.Source)
				}
			}
		})
	}
}

// runReport runs `partmon report --format json` with cfg and decodes it.
func runReport(ctx context.Context, t *testing.T, bin, cfg string) *analyzer.Report {
	t.Helper()
	path := filepath.Join(t.TempDir(), "partmon.yml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	// --min-severity info: the JSON holds only what the filter shows.
	cmd := exec.CommandContext(ctx, bin, "report", "--config.file", path, "--mode", "sidecar", "--format", "json", "--min-severity", "info")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	// Exit 1 and 2 mean findings at warning and critical: the report is there.
	if code := cmd.ProcessState.ExitCode(); err != nil && code != 1 && code != 2 {
		t.Fatalf("partmon report: %v\n%s", err, stderr.String())
	}
	var r analyzer.Report
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("decoding the report: %v\n%s", err, stdout.String())
	}
	return &r
}

func findingFor(r *analyzer.Report, kind, table, key string) (finding.Finding, bool) {
	for _, f := range r.Findings {
		if f.Kind == kind && f.Keyspace+"."+f.Table == table && f.PartitionKey == key {
			return f, true
		}
	}
	return finding.Finding{}, false
}

func listFindings(r *analyzer.Report) string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, fmt.Sprintf("%s %s.%s %q (%s)", f.Kind, f.Keyspace, f.Table, f.PartitionKey, f.Source))
	}
	return strings.Join(out, "; ")
}

// logsClusterAddress is where TestLogsOnAFreshCluster starts its single
// node of each version: clear of the suite's clusters (127.0.0.1-33).
// PARTMON_LOGS_IPS moves them ("4.1=127.0.0.203 4.0=127.0.0.204"), e.g.
// to run the test beside a running make test.
func logsClusterAddress(t *testing.T) map[string]string {
	addrs := map[string]string{"5.0": "127.0.0.41", "4.1": "127.0.0.44", "4.0": "127.0.0.47"}
	for _, kv := range strings.Fields(os.Getenv("PARTMON_LOGS_IPS")) {
		v, ip, ok := strings.Cut(kv, "=")
		if _, known := addrs[v]; !ok || !known || net.ParseIP(ip) == nil {
			t.Fatalf("PARTMON_LOGS_IPS: %q is not VERSION=ADDRESS of 5.0, 4.1 or 4.0", kv)
		}
		addrs[v] = ip
	}
	return addrs
}

// TestLogsOnAFreshCluster starts a fresh single node of each version in
// PARTMON_LOGS_VERSIONS (default "5.0"; "5.0 4.1 4.0" for all) with
// deploy/local's settings, never repaired and with no sampler, plants a
// large partition and a tombstone-heavy one, and checks that one collection
// cycle names both keys (from system.log; on 5.0 also from
// system_views.system_logs); that the file's tail survives a copytruncate
// rotation; and that a collector restarted from the saved state reads no
// line twice.
func TestLogsOnAFreshCluster(t *testing.T) {
	versions := strings.Fields(os.Getenv("PARTMON_LOGS_VERSIONS"))
	if len(versions) == 0 {
		versions = []string{"5.0"}
	}
	addrs := logsClusterAddress(t)
	for _, v := range versions {
		ip, ok := addrs[v]
		if !ok {
			t.Fatalf("PARTMON_LOGS_VERSIONS: %q is not 5.0, 4.1 or 4.0", v)
		}
		t.Run(v, func(t *testing.T) { freshClusterLogs(t, v, ip) })
	}
}

func freshClusterLogs(t *testing.T, series, ip string) {
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	dir := startFreshNode(ctx, t, series, ip)
	env, err := testcluster.EnvAt(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg := testcluster.ClusterConfigFor(env, ip)
	cfg.Consistency = gocql.One
	cfg.Timeout = time.Minute
	s, err := cfg.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	plantLogProblems(ctx, t, s, dir)
	if series != "4.0" {
		n := s.Query("SELECT * FROM system.top_partitions").WithContext(ctx).Iter().NumRows()
		if n != 0 {
			t.Fatalf("system.top_partitions has %d rows on a node never repaired", n)
		}
	}
	logFile := filepath.Join(dir, "node1", "logs", "system.log")

	// One cycle from the log file.
	fileCfg := collector.Config{Hosts: []string{ip}, Mode: collector.ModeSidecar, Logs: collector.LogsConfig{File: logFile}}
	coll := newLogCollector(t, fileCfg, nil)
	cycle(ctx, t, coll, "log:system.log", []string{"big", "jobs"})
	jobsBefore := evidenceCount(t, coll, "queue", "jobs")

	// On 5.0, one cycle from system_views.system_logs, without the file.
	if series == "5.0" {
		cqlColl := newLogCollector(t, collector.Config{Hosts: []string{ip}, Mode: collector.ModeSidecar}, nil)
		cycle(ctx, t, cqlColl, "system_views.system_logs", []string{"big", "jobs"})
	} else {
		cqlColl := newLogCollector(t, collector.Config{Hosts: []string{ip}, Mode: collector.ModeSidecar}, nil)
		_ = cqlColl.CollectAll(ctx)
		if st := sourceStatus(cqlColl, "logs"); st.State != "unsupported" || !strings.Contains(st.Error, "needs Cassandra 5.0") {
			t.Errorf("Cassandra %s without a log file: logs source %s %q, want unsupported naming 5.0", series, st.State, st.Error)
		}
	}

	// copytruncate, as logrotate rotates a log whose writer never reopens
	// it (logback's FileAppender appends through O_APPEND), then a new warning.
	if err := copyFile(logFile, logFile+".1"); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(logFile, 0); err != nil {
		t.Fatal(err)
	}
	readQueue(ctx, t, s, "jobs2")
	waitForLine(ctx, t, logFile, "WHERE queue = ", "jobs2")
	// tombstone_heavy is one finding per table (analyzer/fold.go), naming
	// its worst key: the new key shows in the evidence.
	cycle(ctx, t, coll, "log:system.log", []string{"big", "jobs"})
	if n := evidenceCount(t, coll, "queue", "jobs2"); n != 1 {
		t.Errorf("after the rotation key jobs2 was logged %d times, want 1", n)
	}
	if after := evidenceCount(t, coll, "queue", "jobs"); after != jobsBefore {
		t.Errorf("after the rotation key jobs was logged %d times, before %d: the old lines were read again", after, jobsBefore)
	}

	// A restart from the state file resumes: nothing is read again.
	saved, err := json.Marshal(coll.LogState())
	if err != nil {
		t.Fatal(err)
	}
	var st collector.LogState
	if err := json.Unmarshal(saved, &st); err != nil {
		t.Fatal(err)
	}
	restarted := newLogCollector(t, fileCfg, &st)
	cycle(ctx, t, restarted, "log:system.log", []string{"big", "jobs"})
	if got := evidenceCount(t, restarted, "queue", "jobs"); got != jobsBefore {
		t.Errorf("after a restart key jobs was logged %d times, want %d (nothing read twice)", got, jobsBefore)
	}
	if got := evidenceCount(t, restarted, "queue", "jobs2"); got != 1 {
		t.Errorf("after a restart key jobs2 was logged %d times, want 1", got)
	}
}

// startFreshNode starts one node of series at ip in a directory of its own
// and stops it when the test ends.
func startFreshNode(ctx context.Context, t *testing.T, series, ip string) string {
	dir := t.TempDir()
	script := testkit.Path(t, "deploy", "local", "cluster")
	down := func() {
		out, err := exec.Command(script, "down", "--dir", dir).CombinedOutput()
		if err != nil {
			t.Logf("cluster down: %v\n%s", err, out)
		}
	}
	t.Cleanup(down)
	cmd := exec.CommandContext(ctx, script, "up", "--version", series, "--first-ip", ip, "--nodes", "1", "--dir", dir, "--heap", "512M")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("starting a fresh Cassandra %s node at %s: %v\n%s", series, ip, err, out)
	}
	return dir
}

// plantLogProblems writes a partition over 50 MiB (deploy/local's size
// warning), compacted into one sstable so the writer warns with its key,
// and a queue partition whose read scans 2,990 tombstones (over
// tombstone_warn_threshold 1,000); a second one, jobs2, is read later.
func plantLogProblems(ctx context.Context, t *testing.T, s *gocql.Session, dir string) {
	for _, stmt := range []string{
		"CREATE KEYSPACE pm_logs WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE pm_logs.big (id text, seq int, payload blob, PRIMARY KEY ((id), seq))",
		"CREATE TABLE pm_logs.queue (queue text, id int, payload text, PRIMARY KEY ((queue), id))",
	} {
		if err := s.Query(stmt).WithContext(ctx).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	payload := make([]byte, 64<<10) // random: compression does not shrink it below the warning
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range payload {
		payload[i] = byte(rng.Uint32())
	}
	const rows = 900 // ~56 MiB
	for b := 0; b < rows/50; b++ {
		batch := s.NewBatch(gocql.UnloggedBatch).WithContext(ctx)
		for i := b * 50; i < (b+1)*50; i++ {
			batch.Query("INSERT INTO pm_logs.big (id, seq, payload) VALUES (?, ?, ?)", "big", i, payload)
		}
		if err := s.ExecuteBatch(batch); err != nil {
			t.Fatalf("writing pm_logs.big: %v", err)
		}
	}
	for _, q := range []string{"jobs", "jobs2"} {
		for b := 0; b < 30; b++ {
			batch := s.NewBatch(gocql.UnloggedBatch).WithContext(ctx)
			for i := b * 100; i < (b+1)*100; i++ {
				batch.Query("INSERT INTO pm_logs.queue (queue, id, payload) VALUES (?, ?, 'job')", q, i)
			}
			if err := s.ExecuteBatch(batch); err != nil {
				t.Fatalf("writing pm_logs.queue: %v", err)
			}
		}
	}
	nodetool(ctx, t, dir, "flush", "pm_logs")
	for _, q := range []string{"jobs", "jobs2"} {
		for b := 0; b < 30; b++ {
			batch := s.NewBatch(gocql.UnloggedBatch).WithContext(ctx)
			for i := b * 100; i < min(2990, (b+1)*100); i++ {
				batch.Query("DELETE FROM pm_logs.queue WHERE queue = ? AND id = ?", q, i)
			}
			if err := s.ExecuteBatch(batch); err != nil {
				t.Fatalf("deleting from pm_logs.queue: %v", err)
			}
		}
	}
	nodetool(ctx, t, dir, "flush", "pm_logs")
	nodetool(ctx, t, dir, "compact", "pm_logs", "big")
	readQueue(ctx, t, s, "jobs")
	logFile := filepath.Join(dir, "node1", "logs", "system.log")
	waitForLine(ctx, t, logFile, "pm_logs", "big")
	waitForLine(ctx, t, logFile, "WHERE queue = ", "jobs")
}

func readQueue(ctx context.Context, t *testing.T, s *gocql.Session, queue string) {
	t.Helper()
	iter := s.Query("SELECT id FROM pm_logs.queue WHERE queue = ?", queue).PageSize(5000).WithContext(ctx).Iter()
	var id, live int
	for iter.Scan(&id) {
		live++
	}
	if err := iter.Close(); err != nil || live != 10 {
		t.Fatalf("reading queue %s: %d live rows, %v; want 10", queue, live, err)
	}
}

func nodetool(ctx context.Context, t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, testkit.Path(t, "deploy", "local", "cluster"), append([]string{"nodetool", "--dir", dir, "1"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nodetool %v: %v\n%s", args, err, out)
	}
}

// waitForLine waits until the log has a line holding both parts: the
// writer's warning is logged a moment after the statement returns.
func waitForLine(ctx context.Context, t *testing.T, path string, parts ...string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		data, _ := os.ReadFile(path)
		for _, line := range strings.Split(string(data), "\n") {
			if (strings.HasPrefix(line, "WARN") || strings.HasPrefix(line, "ERROR")) && containsAll(line, parts) {
				return
			}
		}
		time.Sleep(time.Second)
	}
	t.Fatalf("no WARN line with %q in %s after 2 minutes", parts, path)
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

func newLogCollector(t *testing.T, cfg collector.Config, st *collector.LogState) *collector.Collector {
	t.Helper()
	c, err := collector.New(cfg, zap.NewNop(), collector.WithLogState(st))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// cycle runs one collection and analysis and checks that the findings name
// every key of keys (pm_logs.big "big", pm_logs.queue for the others) from
// source, and that no key list or sampler had them.
func cycle(ctx context.Context, t *testing.T, c *collector.Collector, source string, keys []string) {
	t.Helper()
	_ = c.CollectAll(ctx) // some sources are unsupported on a version: the statuses say so
	snap := c.Snapshot()
	if st := sourceStatus(c, "logs"); st.State != "ok" {
		t.Fatalf("logs source %s: %s", st.State, st.Error)
	}
	for _, nd := range snap.PerNode {
		if len(nd.TopPartitions) > 0 || len(nd.HotPartitions) > 0 {
			t.Fatalf("the node had %d top partitions and %d sampled keys: the test wants neither", len(nd.TopPartitions), len(nd.HotPartitions))
		}
	}
	h := history.New(history.Limits{})
	report := analyzer.Analyze(snap, h, analyzer.DefaultThresholds())
	for _, key := range keys {
		kind, table := analyzer.KindTombstoneHeavy, "pm_logs.queue"
		if key == "big" {
			kind, table = analyzer.KindOversizedPartition, "pm_logs.big"
		}
		f, ok := findingFor(report, kind, table, key)
		if !ok {
			t.Fatalf("from %s: no %s finding naming %s key %q; findings: %s", source, kind, table, key, listFindings(report))
		}
		if !strings.Contains(f.Source, source) {
			t.Errorf("%s %q: source %q, want %s", kind, key, f.Source, source)
		}
	}
}

func sourceStatus(c *collector.Collector, name string) (st struct{ State, Error string }) {
	for _, s := range c.Snapshot().Sources {
		if s.Source == name && s.Node != "" {
			return struct{ State, Error string }{string(s.State), s.Error}
		}
	}
	return struct{ State, Error string }{"missing", "no status"}
}

// evidenceCount is how many times the logs named table's key so far (tombstone warnings).
func evidenceCount(t *testing.T, c *collector.Collector, table, key string) int64 {
	t.Helper()
	var n int64
	for _, nd := range c.Snapshot().PerNode {
		for _, e := range nd.LogEvidence {
			if e.Table == table && e.Key == key && e.Kind == "tombstone_warning" {
				n += e.Count
			}
		}
	}
	if n == 0 {
		t.Fatalf("no tombstone warning of %s %q in the snapshot", table, key)
	}
	return n
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o644)
}
