//go:build integration

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/tools/promtest"
	"github.com/partmon/partmon/tools/testcluster"
	"github.com/partmon/partmon/tools/testkit"
)

// TestSchemaZoo plants the schema zoo (`fixtures zoo`: every CQL schema
// feature the cluster's version and switches allow, one problem on a
// materialized view, good designs beside it) on the real cluster, then
// holds partmon to it through every output: the one-shot report in each
// format and a daemon's /metrics (promtool), JSON API and status page
// (Chromium). No panic, no source the zoo makes fail, the planted problem
// found with its view's base named, every good design silent, every zoo
// table in the report under its own (case-sensitive) name.
func TestSchemaZoo(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	root := testkit.Root(t)
	fixtures := filepath.Join(root, "deploy", "local", "fixtures")
	plant := exec.CommandContext(ctx, fixtures, "zoo")
	if out, err := plant.CombinedOutput(); err != nil {
		t.Fatalf("fixtures zoo: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command(fixtures, "zoo", "--drop").CombinedOutput(); err != nil {
			t.Errorf("fixtures zoo --drop: %v\n%s", err, out)
		}
	})
	truth, err := testcluster.LoadZooTruth()
	if err != nil {
		t.Fatal(err)
	}
	// make test starts its clusters with every switch (scripts/test-all.sh,
	// test-versions.sh): a feature left out there is a gap in the test.
	for feature, why := range truth.Left {
		if !strings.Contains(why, "no such feature") {
			t.Errorf("the zoo holds no %s: %s", feature, why)
		}
	}
	bin, err := partmonBinary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hosts := strings.Join(testcluster.Hosts(), ",")
	r := zooReport(ctx, t, bin, hosts, "json")
	checkZooReport(t, truth, r)
	for _, format := range []string{"text", "markdown"} {
		out := zooReport(ctx, t, bin, hosts, format)
		for _, p := range truth.Problems {
			if !bytes.Contains(out.raw, []byte(p.Table)) {
				t.Errorf("the %s report does not name %s.%s", format, p.Keyspace, p.Table)
			}
		}
	}
	checkZooDaemon(ctx, t, bin, hosts, truth)
}

// zooOutput is one run of `partmon report`: its output and, for JSON, the report.
type zooOutput struct {
	raw    []byte
	report *analyzer.Report
}

func zooReport(ctx context.Context, t *testing.T, bin, hosts, format string) zooOutput {
	t.Helper()
	var stdout, stderr bytes.Buffer
	// --min-severity info: the JSON holds what the text shows, and the zoo's
	// truth names info findings too.
	cmd := exec.CommandContext(ctx, bin, "report", "--hosts", hosts, "--mode", "cluster", "--format", format, "--min-severity", "info")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	// 1 and 2: findings at warning and critical (README's exit codes).
	if code := cmd.ProcessState.ExitCode(); err != nil && code != 1 && code != 2 {
		t.Fatalf("partmon report --format %s: %v\n%s", format, err, stderr.String())
	}
	if strings.Contains(stderr.String(), "panic") {
		t.Errorf("partmon report --format %s wrote a panic:\n%s", format, stderr.String())
	}
	out := zooOutput{raw: stdout.Bytes()}
	if format == "json" {
		out.report = &analyzer.Report{}
		if err := json.Unmarshal(out.raw, out.report); err != nil {
			t.Fatalf("decoding the JSON report: %v\n%s", err, out.raw)
		}
	}
	return out
}

// checkZooReport holds a report to the zoo's truth.
func checkZooReport(t *testing.T, truth *testcluster.ZooTruth, out zooOutput) {
	t.Helper()
	r := out.report
	for _, f := range r.RuleFailures {
		t.Errorf("rule failure on the zoo: %+v", f)
	}
	for _, s := range r.Sources {
		if s.State == model.StateError {
			t.Errorf("source %s failed on %s: %s", s.Source, s.Node, s.Error)
		}
	}
	tables := map[string]bool{}
	for _, ts := range r.Tables {
		tables[ts.Keyspace+"."+ts.Table] = true
	}
	for _, name := range append(slices.Clone(truth.Silent), problemTables(truth)...) {
		if !tables[name] {
			t.Errorf("the report has no figures for %s (tables: %d)", name, len(r.Tables))
		}
	}
	for _, p := range truth.Problems {
		f, ok := zooFinding(r.Findings, p.Kind, p.Keyspace+"."+p.Table)
		switch {
		case !ok:
			t.Errorf("planted %s on %s.%s not found; findings: %s", p.Kind, p.Keyspace, p.Table, listFindings(r))
		case f.BaseTable != truth.Views[p.Keyspace+"."+p.Table]:
			t.Errorf("%s on %s.%s names base %q, want %q", p.Kind, p.Keyspace, p.Table, f.BaseTable, truth.Views[p.Keyspace+"."+p.Table])
		}
	}
	for _, f := range r.Findings {
		if slices.Contains(truth.Silent, f.Keyspace+"."+f.Table) {
			t.Errorf("good design %s.%s has a finding: %s %s: %s", f.Keyspace, f.Table, f.Kind, f.Severity, f.Summary)
		}
	}
}

func problemTables(truth *testcluster.ZooTruth) []string {
	var out []string
	for _, p := range truth.Problems {
		out = append(out, p.Keyspace+"."+p.Table)
	}
	return out
}

func zooFinding(fs []finding.Finding, kind, table string) (finding.Finding, bool) {
	for _, f := range fs {
		if f.Kind == kind && f.Keyspace+"."+f.Table == table {
			return f, true
		}
	}
	return finding.Finding{}, false
}

// checkZooDaemon runs `partmon run` on the zoo's cluster until its report
// has the planted problem, then checks /metrics with promtool, the JSON
// API and the status page in Chromium.
func checkZooDaemon(ctx context.Context, t *testing.T, bin, hosts string, truth *testcluster.ZooTruth) {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "partmon.yml")
	if err := os.WriteFile(cfg, []byte(schedulesConfig()), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := testkit.FreeAddr(t)
	base := "http://" + addr
	opts := promtest.Options{LogDir: filepath.Join(testkit.Root(t), "test-artifacts", "e2e")}
	p := promtest.Start(t, "partmon-zoo", opts, bin, "run", "--mode", "cluster", "--hosts", hosts,
		"--web.listen-address", addr, "--config.file", cfg)
	var r analyzer.Report
	promtest.WaitFor(t, 3*time.Minute, "the daemon's report with the zoo's planted problem", func() bool {
		if exited, err := p.Exited(); exited {
			t.Fatalf("partmon run exited: %v\n%s", err, p.Output())
		}
		body, err := zooGet(base + "/api/v1/report")
		if err != nil || json.Unmarshal(body, &r) != nil {
			return false
		}
		_, found := zooFinding(r.Findings, truth.Problems[0].Kind, truth.Problems[0].Keyspace+"."+truth.Problems[0].Table)
		return found
	})
	checkZooReport(t, truth, zooOutput{report: &r})
	page, err := zooGet(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	promtool := testkit.NeedTool(t, "apt-get install prometheus", "promtool")
	if problems, err := promtest.CheckMetrics(promtool, string(page)); err != nil || len(problems) > 0 {
		t.Errorf("promtool check metrics on the zoo's /metrics: %v %v", err, problems)
	}
	for _, want := range []string{`table="orders_by_paid"`, `table="Events"`, `table="events"`} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("/metrics has no series with %s", want)
		}
	}
	if body, err := zooGet(base + "/api/v1/findings"); err != nil || !json.Valid(body) {
		t.Errorf("/api/v1/findings: %v, valid JSON %v", err, json.Valid(body))
	}
	dom := zooPageDOM(ctx, t, base+"/")
	for _, want := range []string{"orders_by_paid", "orders"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the status page (Chromium's DOM) does not name %s", want)
		}
	}
}

func zooGet(u string) ([]byte, error) {
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(u)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	return body, err
}

// zooPageDOM renders the page in Debian's headless Chromium and returns its DOM.
func zooPageDOM(ctx context.Context, t *testing.T, page string) string {
	t.Helper()
	bin := promtest.LookPath(t, "Debian package chromium", "chromium")
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--dump-dom", page)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium --dump-dom: %v\n%s", err, stderr.String())
	}
	return stdout.String()
}
