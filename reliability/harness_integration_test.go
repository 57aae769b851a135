//go:build integration

package reliability

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/collector"
	"github.com/partmon/partmon/tools/promtest"
	"github.com/partmon/partmon/tools/testcluster"
	"github.com/partmon/partmon/tools/testkit"
)

// shutdownGrace mirrors cmd/partmon's bound on a cycle still running at
// SIGTERM; partmon must be gone within it plus shutdownSlack.
const (
	shutdownGrace = 10 * time.Second
	shutdownSlack = 5 * time.Second
)

// bins are built once per package run: partmon with the race detector (a data
// race under faults is a bug too) and without it (the soak measures memory,
// which the race detector multiplies).
var bins struct{ race, plain string }

func TestMain(m *testing.M) { os.Exit(runMain(m)) }

func runMain(m *testing.M) int {
	if os.Getenv(testcluster.FaultClusterDirEnv) == "" {
		return m.Run() // every test skips: nothing to build
	}
	dir, err := os.MkdirTemp("", "partmon-reliability-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = os.RemoveAll(dir) }() // a temporary directory
	for _, b := range []struct {
		out  *string
		name string
		race bool
	}{{&bins.race, "partmon-race", true}, {&bins.plain, "partmon", false}} {
		if *b.out, err = testkit.BuildPartmon(context.Background(), dir, b.name, b.race); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return m.Run()
}

// cluster is the tests' own cluster (PARTMON_FAULT_CLUSTER_DIR), with every
// node running when a test starts and again when it ends.
type cluster struct {
	testcluster.Faults
	env   map[string]string
	hosts []string
}

func ownCluster(t *testing.T) *cluster {
	t.Helper()
	f := testcluster.FaultCluster(t)
	env, err := testcluster.EnvAt(f.Dir)
	if err != nil {
		t.Fatal(err)
	}
	hosts, err := f.Hosts()
	if err != nil {
		t.Fatal(err)
	}
	c := &cluster{Faults: f, env: env, hosts: hosts}
	c.heal(t)
	t.Cleanup(func() { c.heal(t) })
	return c
}

// heal resumes paused nodes and starts stopped ones, so a failed test does
// not leave the next one a broken cluster.
func (c *cluster) heal(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for i := range c.hosts {
		n := i + 1
		state, _, err := c.State(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		switch state {
		case testcluster.NodePaused:
			err = c.Resume(ctx, n)
		case testcluster.NodeStopped:
			err = c.Start(ctx, n)
		}
		if err != nil {
			t.Fatalf("healing node %d: %v", n, err)
		}
	}
}

func (c *cluster) auth() bool { return c.env["AUTH"] == "true" }
func (c *cluster) tls() bool  { return c.env["TLS"] == "true" }

// credentials is a role partmon logs in with and the file holding its password.
type credentials struct {
	user, password, passwordFile string
}

// readOnlyRole creates a fresh role with only the README's SELECT grants and
// a random password, written to a file only the test user can read. Without
// --auth on the cluster it returns no credentials.
func (c *cluster) readOnlyRole(t *testing.T, name string) credentials {
	t.Helper()
	if !c.auth() {
		return credentials{}
	}
	cr := credentials{user: name, password: "pm-" + randomHex(t, 16)}
	if err := testcluster.CreateReadOnlyRole(c.env, cr.user, cr.password, c.hosts...); err != nil {
		t.Fatal(err)
	}
	cr.passwordFile = filepath.Join(t.TempDir(), "cql-password")
	if err := os.WriteFile(cr.passwordFile, []byte(cr.password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return cr
}

func randomHex(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// options shape one partmon run. Zero values take the defaults below.
type options struct {
	creds         credentials
	passwordInEnv bool           // give the password as PARTMON_COLLECTOR_PASSWORD instead of a file
	tls           map[string]any // collector.tls; nil: what the cluster needs (its CA, no server_name)
	sourceEvery   time.Duration  // every source's schedule (default 5s)
	analysisEvery time.Duration  // default 2s
	queryTimeout  time.Duration  // default 2s
	stateFile     string
	webConfig     string                   // exporter-toolkit web config file
	logLevel      string                   // default info
	plain         bool                     // the binary without the race detector
	listen        string                   // default: a free loopback port
	edit          func(cfg map[string]any) // changes the YAML config last
}

// config is the YAML partmon runs with: cluster mode over every node, every
// source on the same short schedule, short timeouts and backoff so faults
// show (and heal) within seconds.
func (c *cluster) config(o options) (map[string]any, options) {
	if o.sourceEvery == 0 {
		o.sourceEvery = 5 * time.Second
	}
	if o.analysisEvery == 0 {
		o.analysisEvery = 2 * time.Second
	}
	if o.queryTimeout == 0 {
		o.queryTimeout = 2 * time.Second
	}
	if o.logLevel == "" {
		o.logLevel = "info"
	}
	sources := map[string]any{}
	for _, name := range collector.SourceNames() {
		sources[name] = map[string]any{"schedule": fmt.Sprintf("@every %s", o.sourceEvery)}
	}
	coll := map[string]any{
		"hosts":             c.hosts,
		"mode":              "cluster",
		"connect_timeout":   o.queryTimeout.String(),
		"query_timeout":     o.queryTimeout.String(),
		"retry_backoff":     "1s",
		"max_retry_backoff": "4s",
		// Faults are seen within seconds: sources run faster than a
		// production floor allows.
		"min_schedule": "1s",
		"sources":      sources,
	}
	if o.creds.user != "" {
		coll["username"] = o.creds.user
		if !o.passwordInEnv {
			coll["password_file"] = o.creds.passwordFile
		}
	}
	switch {
	case o.tls != nil:
		coll["tls"] = o.tls
	case c.tls():
		tls := map[string]any{"enabled": true, "ca_file": c.env["TLS_CA"]}
		if c.env["TLS_CLIENT_AUTH"] == "true" {
			tls["cert_file"], tls["key_file"] = c.env["TLS_CLIENT_CERT"], c.env["TLS_CLIENT_KEY"]
		}
		coll["tls"] = tls
	}
	cfg := map[string]any{
		"collector": coll,
		"analysis":  map[string]any{"schedule": fmt.Sprintf("@every %s", o.analysisEvery)},
		"log":       map[string]any{"level": o.logLevel, "format": "json"},
	}
	if o.stateFile != "" {
		cfg["state"] = map[string]any{"file": o.stateFile}
	}
	if o.edit != nil {
		o.edit(cfg)
	}
	return cfg, o
}

// daemon is one running `partmon run`.
type daemon struct {
	t      *testing.T
	proc   *promtest.Process
	base   string // http://127.0.0.1:PORT or https://...
	client *http.Client
	user   string // basic auth towards partmon's web endpoints, if set
	pass   string
}

// startPartmon runs partmon with o on c and returns once it listens (not
// necessarily ready: a partmon that cannot read the cluster never is).
func (c *cluster) startPartmon(t *testing.T, name string, o options) *daemon {
	t.Helper()
	cfg, o := c.config(o)
	listen := o.listen
	if listen == "" {
		listen = testkit.FreeAddr(t)
	}
	cfg["web"] = map[string]any{"listen_addresses": []string{listen}}
	data, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name+".yml")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"run", "--config.file", path}
	if o.webConfig != "" {
		args = append(args, "--web.config.file", o.webConfig)
	}
	var env []string
	if o.passwordInEnv {
		env = append(env, "PARTMON_COLLECTOR_PASSWORD="+o.creds.password)
	}
	bin := bins.race
	if o.plain {
		bin = bins.plain
	} else {
		// The race runtime sleeps 1 s at exit by default; shutdown is timed.
		env = append(env, "GORACE=atexit_sleep_ms=0 halt_on_error=0")
	}
	d := &daemon{
		t:      t,
		proc:   promtest.Start(t, name, promtest.Options{Env: env, LogDir: artifactsDir()}, bin, args...),
		base:   "http://" + listen,
		client: &http.Client{Timeout: 10 * time.Second},
	}
	t.Cleanup(func() { d.checkOutput() })
	if o.webConfig != "" {
		return d // the caller knows how to reach a TLS listener
	}
	d.waitFor(30*time.Second, "partmon to listen", func() (bool, string) {
		_, code, err := d.get("/healthz")
		return err == nil && code == http.StatusOK, fmt.Sprint(code, err)
	})
	return d
}

// artifactsDir keeps partmon's output of failed tests where CI collects it.
func artifactsDir() string {
	if d := os.Getenv("PARTMON_TEST_ARTIFACTS"); d != "" {
		return filepath.Join(d, "reliability")
	}
	return ""
}

func (d *daemon) get(path string) ([]byte, int, error) {
	req, err := http.NewRequest(http.MethodGet, d.base+path, nil)
	if err != nil {
		return nil, 0, err
	}
	if d.user != "" {
		req.SetBasicAuth(d.user, d.pass)
	}
	resp, err := d.client.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return body, resp.StatusCode, err
}

func (d *daemon) mustGet(path string) []byte {
	d.t.Helper()
	body, code, err := d.get(path)
	if err != nil || code != http.StatusOK {
		d.t.Fatalf("GET %s: %d %v\n%s", path, code, err, body)
	}
	return body
}

// alive fails the test if partmon has exited.
func (d *daemon) alive() {
	d.t.Helper()
	if done, err := d.proc.Exited(); done {
		d.t.Fatalf("partmon exited (%v); output:\n%s", err, tail(d.proc.Output(), 40))
	}
}

// checkOutput fails the test on a panic, a Go runtime error or a data race
// anywhere in partmon's output.
func (d *daemon) checkOutput() {
	out := d.proc.Output()
	// cron.Recover logs a recovered panic as {"msg":"panic"}; the runtime prints the others.
	for _, bad := range []string{"panic:", "fatal error:", "WARNING: DATA RACE", `"msg":"panic"`, `"level":"fatal"`, `"level":"panic"`} {
		if strings.Contains(out, bad) {
			d.t.Errorf("partmon output contains %q:\n%s", bad, tail(out, 60))
			return
		}
	}
}

// terminate sends SIGTERM and waits (bounded) for the exit; it returns the
// exit code and how long partmon took.
func (d *daemon) terminate() (int, time.Duration) {
	d.t.Helper()
	start := time.Now()
	if err := d.proc.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		d.t.Fatalf("sending SIGTERM: %v", err)
	}
	err := d.proc.Wait(shutdownGrace + 2*shutdownSlack)
	took := time.Since(start)
	if done, _ := d.proc.Exited(); !done {
		d.t.Fatalf("partmon still running %s after SIGTERM:\n%s", took.Round(time.Millisecond), tail(d.proc.Output(), 40))
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), took
	}
	if err != nil {
		d.t.Fatalf("waiting for partmon: %v", err)
	}
	return 0, took
}

// waitFor polls ok every 250 ms for at most bound and returns how long it
// took; on timeout it fails with ok's last explanation.
func (d *daemon) waitFor(bound time.Duration, what string, ok func() (bool, string)) time.Duration {
	d.t.Helper()
	start := time.Now()
	for {
		d.alive()
		done, why := ok()
		if done {
			return time.Since(start)
		}
		if time.Since(start) > bound {
			d.t.Fatalf("timed out after %s waiting for %s: %s", bound, what, why)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func (d *daemon) waitReady(bound time.Duration) time.Duration {
	d.t.Helper()
	return d.waitFor(bound, "partmon /readyz/cycle (first cycle done)", func() (bool, string) {
		body, code, err := d.get("/readyz/cycle")
		return err == nil && code == http.StatusOK, fmt.Sprintf("%d %v %s", code, err, body)
	})
}

// metrics scrapes /metrics.
func (d *daemon) metrics() (map[string]*dto.MetricFamily, error) {
	body, code, err := d.get("/metrics")
	if err != nil {
		return nil, err
	}
	if code != http.StatusOK {
		return nil, fmt.Errorf("GET /metrics: %d", code)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(strings.NewReader(string(body)))
}

func (d *daemon) report() (analyzer.Report, error) {
	var r analyzer.Report
	body, code, err := d.get("/api/v1/report")
	if err != nil {
		return r, err
	}
	if code != http.StatusOK {
		return r, fmt.Errorf("GET /api/v1/report: %d %s", code, body)
	}
	return r, json.Unmarshal(body, &r)
}

// series is one sample of a gauge or counter with its labels.
type series struct {
	labels map[string]string
	value  float64
}

func samples(fams map[string]*dto.MetricFamily, name string) []series {
	mf, ok := fams[name]
	if !ok {
		return nil
	}
	var out []series
	for _, m := range mf.GetMetric() {
		s := series{labels: map[string]string{}}
		for _, l := range m.GetLabel() {
			s.labels[l.GetName()] = l.GetValue()
		}
		switch {
		case m.Gauge != nil:
			s.value = m.GetGauge().GetValue()
		case m.Counter != nil:
			s.value = m.GetCounter().GetValue()
		case m.Untyped != nil:
			s.value = m.GetUntyped().GetValue()
		}
		out = append(out, s)
	}
	return out
}

// byNode maps a per-node family to node → collector (or "") → value.
func byNode(fams map[string]*dto.MetricFamily, name string) map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	for _, s := range samples(fams, name) {
		node := s.labels["node"]
		if out[node] == nil {
			out[node] = map[string]float64{}
		}
		out[node][s.labels["collector"]] = s.value
	}
	return out
}

// single is the value of an unlabelled family, or -1 when absent.
func single(fams map[string]*dto.MetricFamily, name string) float64 {
	s := samples(fams, name)
	if len(s) != 1 {
		return -1
	}
	return s[0].value
}

func tail(s string, lines int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > lines {
		l = l[len(l)-lines:]
	}
	return strings.Join(l, "\n")
}

// logLines are partmon's JSON log records (other lines are skipped).
func logLines(out string) []map[string]any {
	var recs []map[string]any
	for _, line := range strings.Split(out, "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil {
			recs = append(recs, rec)
		}
	}
	return recs
}
