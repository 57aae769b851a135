//go:build integration

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/partmon/partmon/tools/promtest"
	"github.com/partmon/partmon/tools/testcluster"
	"github.com/partmon/partmon/tools/testkit"
)

const (
	// Prometheus scrapes and evaluates this often; partmon's sources run
	// every 10 s and its analysis every 5 s (partmonConfig).
	promInterval = "2s"
	// Partition thresholds for this run: low enough for the few-MiB pm_e2e
	// partition, above the 1 MiB that system_views.max_partition_size shows
	// (whole mebibytes, rounded up) for every small fixture table.
	partitionWarningBytes  = 2 << 20
	partitionCriticalBytes = 4 << 20
)

// env is everything the steps of the test share.
type env struct {
	root      string // repository root
	artifacts string // <root>/test-artifacts
	opts      promtest.Options
	cluster   string // cluster_name of the real cluster
	truth     *testcluster.Truth
	partmon   string            // http://127.0.0.1:PORT
	proc      *promtest.Process // the partmon process
	prom      *promtest.Prometheus
	am        *promtest.Alertmanager
	sink      *webhookSink
}

func TestEndToEnd(t *testing.T) {
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	step := stepTimer(t)

	e := &env{}
	var err error
	e.root = testkit.Root(t)
	e.artifacts = filepath.Join(e.root, "test-artifacts")
	// PARTMON_E2E_KEEP_LOGS=1 keeps the processes' output when the test passes too.
	e.opts = promtest.Options{LogDir: filepath.Join(e.artifacts, "e2e"), KeepLogs: os.Getenv("PARTMON_E2E_KEEP_LOGS") != ""}
	if e.truth, err = testcluster.LoadTruth(); err != nil {
		t.Fatal(err)
	}
	hosts := testcluster.Hosts()
	session := testcluster.Session(t, hosts[0])
	if err := session.Query("SELECT cluster_name FROM system.local").WithContext(ctx).Scan(&e.cluster); err != nil {
		t.Fatalf("reading cluster_name: %v", err)
	}

	// 1. Build partmon and plant pm_e2e while Alertmanager and Prometheus start.
	var wg sync.WaitGroup
	var bin string
	var buildErr, plantErr error
	var buildTook, plantTook time.Duration
	wg.Go(func() {
		t0 := time.Now()
		bin, buildErr = partmonBinary(ctx)
		buildTook = time.Since(t0)
	})
	t.Cleanup(func() { dropE2EKeyspace(t, session) })
	wg.Go(func() {
		t0 := time.Now()
		plantErr = plantE2EPartition(ctx, session, hosts)
		plantTook = time.Since(t0)
	})

	e.sink = newWebhookSink()
	sinkSrv := httptest.NewServer(e.sink)
	t.Cleanup(sinkSrv.Close)
	e.am = promtest.StartAlertmanager(t, alertmanagerConfig(sinkSrv.URL), e.opts)
	partmonAddr := testkit.FreeAddr(t)
	e.partmon = "http://" + partmonAddr
	rules := rulesWithoutFor(t, filepath.Join(e.root, "deploy", "prometheus", "partmon-alerts.yml"))
	e.prom = promtest.StartPrometheus(t, prometheusConfig(partmonAddr, strings.TrimPrefix(e.am.URL, "http://"), e.cluster, rules), e.opts)
	wg.Wait()
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	if plantErr != nil {
		t.Fatal(plantErr)
	}
	t.Logf("go build took %s; pm_e2e (write, flush, compact) took %s",
		buildTook.Round(100*time.Millisecond), plantTook.Round(100*time.Millisecond))
	// Reads (never writes) of two fixture tables, so that their per-read
	// histograms have data: see readFixtures.
	if err := readFixtures(ctx, session, e.truth); err != nil {
		t.Fatal(err)
	}
	step("build partmon, plant pm_e2e, start Alertmanager and Prometheus")

	startPartmon(t, e, bin, partmonAddr, hosts)
	step("partmon ready")

	t.Run("rule alert reaches Alertmanager", func(t *testing.T) { checkRuleAlert(t, e) })
	t.Run("pushed alerts reach Alertmanager", func(t *testing.T) { checkPushedAlerts(t, e) })
	step("alerts in Alertmanager")
	t.Run("every query returns data", func(t *testing.T) { checkQueries(t, e) })
	step("rule and dashboard queries")
	t.Run("status page", func(t *testing.T) { checkStatusPage(ctx, t, e) })
	step("status page and screenshot")
	t.Run("guardrail suggestions", func(t *testing.T) { checkGuardrailPanel(ctx, t, e, bin, hosts) })
	step("guardrail suggestions")
	t.Run("pushed alert resolves", func(t *testing.T) { checkResolution(ctx, t, e, session) })
	step("resolution after DROP KEYSPACE")
	t.Run("Alertmanager restart", func(t *testing.T) { checkAlertmanagerRestart(t, e) })
	step("Alertmanager stopped and started again")
	t.Logf("end-to-end test took %s", time.Since(began).Round(time.Second))
}

// stepTimer logs how long each step took.
func stepTimer(t *testing.T) func(string) {
	last := time.Now()
	return func(name string) {
		t.Logf("step %q took %s", name, time.Since(last).Round(100*time.Millisecond))
		last = time.Now()
	}
}

// TestMain removes the partmon binary the tests share.
func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir) // a temporary directory
	}
	os.Exit(code)
}

var built struct {
	once     sync.Once
	dir, bin string
	err      error
}

// partmonBinary builds cmd/partmon once for the package's tests, as `make
// build` does.
func partmonBinary(ctx context.Context) (string, error) {
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "partmon-e2e-"); built.err == nil {
			built.bin, built.err = testkit.BuildPartmon(ctx, built.dir, "partmon", false)
		}
	})
	return built.bin, built.err
}

// partmonConfig shortens every schedule the run depends on and lowers the
// partition thresholds (see partitionWarningBytes); the hosts, mode,
// listen address and Alertmanager come from flags, as in the docs.
func partmonConfig() string { return schedulesConfig() + lowThresholds() }

// lowThresholds are partitionWarningBytes and partitionCriticalBytes.
func lowThresholds() string {
	return fmt.Sprintf("thresholds:\n  partition_warning_bytes: %d\n  partition_critical_bytes: %d\n",
		partitionWarningBytes, partitionCriticalBytes)
}

// schedulesConfig runs every source the checks read every 10 s and the
// analysis every 5 s, with the default thresholds.
func schedulesConfig() string {
	var b strings.Builder
	b.WriteString("collector:\n  sources:\n")
	for _, s := range []string{"topology", "schema", "size_estimates", "max_partition_size", "max_sstable_size",
		"disk_usage", "local_read_latency", "local_write_latency", "local_scan_latency", "tombstones_per_read",
		"rows_per_read", "thread_pools", "gossip_info", "top_partitions"} {
		fmt.Fprintf(&b, "    %s: {schedule: \"@every 10s\"}\n", s)
	}
	b.WriteString(`analysis:
  schedule: "@every 5s"
log:
  level: info
  format: console
`)
	return b.String()
}

func startPartmon(t *testing.T, e *env, bin, addr string, hosts []string) {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "partmon.yml")
	if err := os.WriteFile(cfg, []byte(partmonConfig()), 0o600); err != nil {
		t.Fatal(err)
	}
	p := promtest.Start(t, "partmon", e.opts, bin, "run", "--mode", "cluster", "--hosts", strings.Join(hosts, ","),
		"--web.listen-address", addr, "--alertmanager.url", e.am.URL, "--config.file", cfg)
	e.proc = p
	client := &http.Client{Timeout: 5 * time.Second}
	promtest.WaitFor(t, 90*time.Second, "partmon /readyz/cycle", func() bool {
		if exited, err := p.Exited(); exited {
			t.Fatalf("partmon exited: %v\n%s", err, p.Output())
		}
		resp, err := client.Get(e.partmon + "/readyz/cycle")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}

// prometheusConfig scrapes partmon as deploy/prometheus/prometheus.yml does
// (job partmon, honor_labels, a cluster target label), faster, and sends
// alerts to the test's Alertmanager.
func prometheusConfig(partmonAddr, amAddr, cluster, rules string) string {
	return fmt.Sprintf(`global:
  scrape_interval: %[1]s
  scrape_timeout: %[1]s
  evaluation_interval: %[1]s
rule_files: [%[2]q]
alerting:
  alertmanagers:
    - static_configs:
        - targets: [%[3]q]
scrape_configs:
  - job_name: partmon
    honor_labels: true
    static_configs:
      - targets: [%[4]q]
        labels: {cluster: %[5]q}
`, promInterval, rules, amAddr, partmonAddr, cluster)
}

var (
	forClause     = regexp.MustCompile(`(?m)^(\s+)for:\s*\S+\s*$`)
	groupInterval = regexp.MustCompile(`(?m)^\s+interval:\s*\S+\s*\n`)
)

// rulesWithoutFor writes a copy of the shipped rule file with every `for:`
// set to 0s and every group at the global evaluation interval (a group of
// its own 2m would first run after up to 2 minutes), and returns its path.
func rulesWithoutFor(t *testing.T, shipped string) string {
	t.Helper()
	data, err := os.ReadFile(shipped)
	if err != nil {
		t.Fatal(err)
	}
	n := len(forClause.FindAllIndex(data, -1))
	if n == 0 {
		t.Fatalf("%s has no for: clause to rewrite; update this test", shipped)
	}
	header := "# Copy of " + shipped + " for the end-to-end test: every `for:` is 0s.\n" +
		"# The shipped for durations are minutes long and are unit-tested by promtool\n" +
		"# (deploy/prometheus/partmon-alerts_test.yml); this test checks wiring, labels and thresholds.\n" +
		"# Every group runs at the global evaluation interval.\n"
	out := header + groupInterval.ReplaceAllString(forClause.ReplaceAllString(string(data), "${1}for: 0s"), "")
	path := filepath.Join(t.TempDir(), "partmon-alerts.yml")
	if err := os.WriteFile(path, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// problems returns the truth's planted problems of kind, failing if there is none.
func problems(t *testing.T, truth *testcluster.Truth, kind string) []testcluster.Problem {
	t.Helper()
	ps := truth.Find(kind)
	if len(ps) == 0 {
		t.Fatalf("truth.json plants no %s problem (reload the fixtures: deploy/local/fixtures load)", kind)
	}
	return ps
}
