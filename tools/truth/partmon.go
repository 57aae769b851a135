package truth

import (
	"bytes"
	"context"
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
	"time"

	"github.com/partmon/partmon/tools/testcluster"
)

// Finding is what the corpus reads of a partmon finding. It is decoded
// from partmon's JSON, not from its Go types, so the corpus judges the
// binary as users see it. Nodes also takes a folded finding's node list.
type Finding struct {
	ID           string   `json:"id"`
	Kind         string   `json:"kind"`
	Severity     string   `json:"severity"`
	DC           string   `json:"dc"`
	Node         string   `json:"node"`
	Nodes        nodeList `json:"nodes"`
	Keyspace     string   `json:"keyspace"`
	Table        string   `json:"table"`
	PartitionKey string   `json:"partition_key"`
	Value        float64  `json:"value"`
	Threshold    float64  `json:"threshold"`
	Unit         string   `json:"unit"`
	Summary      string   `json:"summary"`
	Source       string   `json:"source"`
	// NodeValues is each node's own value of a folded finding (its nodes'
	// "value"); a node's figure is checked against its own value.
	NodeValues map[string]float64 `json:"node_values,omitempty"`
	// Figures are the measurements behind the value.
	Figures *struct {
		PartitionBytes float64 `json:"partition_bytes"`
	} `json:"figures,omitempty"`
}

// UnmarshalJSON decodes the finding and, when its nodes are objects, each
// node's value.
func (f *Finding) UnmarshalJSON(b []byte) error {
	type plain Finding
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*f = Finding(p)
	var per struct {
		Nodes []struct {
			Node  string   `json:"node"`
			Value *float64 `json:"value"`
		} `json:"nodes"`
	}
	if json.Unmarshal(b, &per) != nil {
		return nil //nolint:nilerr // a list of addresses: no values per node
	}
	for _, n := range per.Nodes {
		if n.Node != "" && n.Value != nil {
			if f.NodeValues == nil {
				f.NodeValues = map[string]float64{}
			}
			f.NodeValues[n.Node] = *n.Value
		}
	}
	return nil
}

// valueOn is the finding's value as the node measured it: its own value in
// a folded finding, else the finding's.
func (f *Finding) valueOn(node string) float64 {
	if v, ok := f.NodeValues[node]; ok {
		return v
	}
	return f.Value
}

// AllNodes is the node and every folded node of the finding.
func (f *Finding) AllNodes() []string {
	var out []string
	if f.Node != "" {
		out = append(out, f.Node)
	}
	for _, n := range f.Nodes {
		if n != f.Node {
			out = append(out, n)
		}
	}
	return out
}

// nodeList decodes a list of addresses or of objects naming one.
type nodeList []string

func (n *nodeList) UnmarshalJSON(b []byte) error {
	var plain []string
	if err := json.Unmarshal(b, &plain); err == nil {
		*n = plain
		return nil
	}
	var objs []map[string]any
	if err := json.Unmarshal(b, &objs); err != nil {
		return fmt.Errorf("nodes: want a list of addresses or of objects: %w", err)
	}
	for _, o := range objs {
		for _, k := range []string{"node", "address"} {
			if s, ok := o[k].(string); ok && s != "" {
				*n = append(*n, s)
				break
			}
		}
	}
	return nil
}

// TableNode is partmon's per-node figures of one table.
type TableNode struct {
	Keyspace           string `json:"keyspace"`
	Table              string `json:"table"`
	Node               string `json:"node"`
	MaxPartitionBytes  int64  `json:"max_partition_bytes"`
	MeanPartitionBytes int64  `json:"mean_partition_bytes"`
	PartitionsEstimate int64  `json:"partitions_estimate"`
}

// Report is what the corpus reads of partmon's report JSON.
type Report struct {
	Findings   []Finding   `json:"findings"`
	TableNodes []TableNode `json:"table_nodes"`
	Ownership  []Ownership `json:"ownership"`
	// Notes are what the analysis could not judge, "<kind> of <table> unknown: why" among them.
	Notes   []string `json:"notes"`
	Sources []struct {
		Source string `json:"source"`
		Node   string `json:"node"`
		State  string `json:"state"`
		Error  string `json:"error"`
	} `json:"sources"`
}

// partmonConfig is the configuration both runs use: cluster mode over every
// node, the real nodetool sampler, short schedules for the daemon, and the
// forecast's history requirements shortened to the minutes the run lasts.
// Every detection threshold stays at its default. On a cluster with
// authentication partmon logs in as role, whose password is in
// passwordFile.
func partmonConfig(c *Cluster, listen, stateFile string, recorder []string, role, passwordFile string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "collector:\n  hosts: [%s]\n  mode: cluster\n", strings.Join(c.Hosts, ", "))
	if role != "" {
		fmt.Fprintf(&b, "  username: %s\n  password_file: %q\n", role, passwordFile)
	}
	b.WriteString("  sources:\n")
	for _, s := range []string{"topology", "schema", "size_estimates"} {
		fmt.Fprintf(&b, "    %s: {schedule: \"@every 30s\"}\n", s)
	}
	for _, s := range []string{"max_partition_size", "local_read_latency", "local_write_latency", "tombstones_per_read", "rows_per_read", "disk_usage"} {
		fmt.Fprintf(&b, "    %s: {schedule: \"@every 15s\"}\n", s)
	}
	// The sampler's pass (one nodetool JVM per node) gets minutes, not the
	// default 2: on a 2-core box shared by several clusters a JVM start alone
	// can take that long, and a timed-out pass finds no hot key at all.
	b.WriteString("    top_partitions: {schedule: \"@every 1m\"}\n    nodetool_sampler: {schedule: \"@every 3m\", timeout: 6m}\n")
	b.WriteString("  nodetool_sampler:\n    command: [")
	for i, a := range append(append([]string{}, recorder...), c.NodetoolCommand()...) {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", a)
	}
	b.WriteString("]\n    duration: 10s\n")
	b.WriteString("analysis:\n  schedule: \"@every 15s\"\n  history:\n    traffic_window: 2m\n")
	b.WriteString("thresholds:\n  forecast_min_points: 4\n  forecast_min_span: 2m\n")
	fmt.Fprintf(&b, "web:\n  listen_addresses: [%q]\n", listen)
	fmt.Fprintf(&b, "state:\n  file: %q\n", stateFile)
	b.WriteString("log:\n  level: info\n  format: console\n")
	return b.String()
}

// checkConfig runs `partmon check-config`, so a config the binary no
// longer accepts stops the run with partmon's own message.
func checkConfig(ctx context.Context, bin, cfg string) error {
	out, err := exec.CommandContext(ctx, bin, "check-config", cfg).CombinedOutput()
	if err != nil {
		return fmt.Errorf("partmon check-config %s: %w: %s", cfg, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// runReport runs `partmon report --format json --min-severity info` once
// and decodes its output. Exit codes 0, 1 and 2 are reports (nothing,
// warnings, critical findings); anything else is a failure.
func runReport(ctx context.Context, bin, cfg, outFile, logFile string) (*Report, error) {
	cmd := exec.CommandContext(ctx, bin, "report", "--config.file", cfg, "--format", "json", "--min-severity", "info", "--timeout", "8m")
	var out bytes.Buffer
	logf, err := os.Create(logFile)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = &out, logf
	err = cmd.Run()
	var exit *exec.ExitError
	if err != nil && (!errors.As(err, &exit) || exit.ExitCode() > 2) {
		return nil, fmt.Errorf("partmon report: %w (log: %s)", err, logFile)
	}
	if err := os.WriteFile(outFile, out.Bytes(), 0o644); err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		return nil, fmt.Errorf("decoding partmon report JSON (%s): %w", outFile, err)
	}
	return &r, nil
}

// Daemon is a running `partmon run`.
type Daemon struct {
	cmd    *exec.Cmd
	base   string
	exited chan error
}

func startDaemon(bin, cfg, listen, logFile string) (*Daemon, error) {
	logf, err := os.Create(logFile)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "run", "--config.file", cfg)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		_ = logf.Close() // nothing was written to it
		return nil, fmt.Errorf("starting partmon run: %w", err)
	}
	d := &Daemon{cmd: cmd, base: "http://" + listen, exited: make(chan error, 1)}
	go func() { d.exited <- cmd.Wait(); _ = logf.Close() }() // the child wrote it, unbuffered
	return d, nil
}

// get fetches path from the daemon's API into v.
func (d *Daemon) get(ctx context.Context, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.base+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s: %s", path, resp.Status, strings.TrimSpace(string(body)))
	}
	return json.Unmarshal(body, v)
}

// Report reads the daemon's latest findings (/api/v1/findings, every
// severity) and figures (/api/v1/report) and writes both to dir.
func (d *Daemon) Report(ctx context.Context, dir string) (*Report, error) {
	var raw json.RawMessage
	if err := d.get(ctx, "/api/v1/report", &raw); err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("decoding /api/v1/report: %w", err)
	}
	var findings json.RawMessage
	if err := d.get(ctx, "/api/v1/findings?severity=info", &findings); err != nil {
		return nil, err
	}
	var fr struct {
		Findings []Finding `json:"findings"`
	}
	if err := json.Unmarshal(findings, &fr); err != nil {
		return nil, fmt.Errorf("decoding /api/v1/findings: %w", err)
	}
	r.Findings = fr.Findings
	_ = os.WriteFile(filepath.Join(dir, "daemon-report.json"), raw, 0o644)
	_ = os.WriteFile(filepath.Join(dir, "daemon-findings.json"), findings, 0o644)
	return &r, nil
}

// WaitReady waits until the daemon has published its first report.
func (d *Daemon) WaitReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case err := <-d.exited:
			return fmt.Errorf("partmon run exited before its first report: %v", err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Second):
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, d.base+"/readyz/cycle", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return fmt.Errorf("partmon run not ready after %s", timeout)
}

// Stop sends SIGTERM (the daemon's ordered shutdown) and waits; its
// nodetool children share its process group and are ended with it.
func (d *Daemon) Stop() error {
	_ = syscall.Kill(-d.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case err := <-d.exited:
		return err
	case <-time.After(60 * time.Second):
		_ = syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL)
		return <-d.exited
	}
}

// writeConfig writes the phase's partmon config; its sampler runs the real
// nodetool through the recorder, which keeps what nodetool printed for
// partmon's windows in OutDir/PHASE-profileload.
func (r *runner) writeConfig(phase, listen string) (string, error) {
	name := "partmon-" + phase + ".yml"
	path := filepath.Join(r.opt.OutDir, name)
	state := filepath.Join(r.opt.OutDir, strings.TrimSuffix(name, ".yml")+"-state.json")
	_ = os.Remove(state)
	recorder, err := writeRecorder(r.opt.OutDir, phase)
	if err != nil {
		return "", err
	}
	role, pwFile, err := r.partmonRole()
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(path, []byte(partmonConfig(r.c, listen, state, recorder, role, pwFile)), 0o644); err != nil {
		return "", err
	}
	return path, checkConfig(context.Background(), r.opt.Bin, path)
}

// partmonRole is the role partmon logs in as on a cluster with
// authentication: README's read-only role (testcluster.CreateReadOnlyRole),
// created once a run, its password in a 0600 file beside the configs.
// Empty without authentication.
func (r *runner) partmonRole() (role, passwordFile string, err error) {
	if r.c.env["AUTH"] != "true" {
		return "", "", nil
	}
	role, passwordFile = "truth_partmon", filepath.Join(r.opt.OutDir, "partmon-password")
	if r.partmonLogin {
		return role, passwordFile, nil
	}
	password := fmt.Sprintf("truth-%d", time.Now().UnixNano())
	if err := os.WriteFile(passwordFile, []byte(password+"\n"), 0o600); err != nil {
		return "", "", err
	}
	if err := testcluster.CreateReadOnlyRole(r.c.env, role, password, r.c.Hosts...); err != nil {
		return "", "", fmt.Errorf("partmon's role: %w", err)
	}
	r.partmonLogin = true
	return role, passwordFile, nil
}
