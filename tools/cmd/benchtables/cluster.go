package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/partmon/partmon/tools/testcluster"
	"github.com/partmon/partmon/tools/testkit"
)

// benchCluster is the real local cluster `deploy/local/cluster up` started
// in dir: its node addresses, and nodetool through the same script.
type benchCluster struct {
	dir    string
	script string // deploy/local/cluster
	hosts  []string
	dcs    []string // each node's DC, in hosts order
}

func openCluster(dir string) (*benchCluster, error) {
	env, err := testcluster.EnvAt(dir)
	if err != nil {
		return nil, fmt.Errorf("cluster in %s: %w (start it with deploy/local/cluster up --dir %s)", dir, err, dir)
	}
	if env["AUTH"] == "true" {
		return nil, fmt.Errorf("cluster in %s runs with --auth; the benchmark wants one without", dir)
	}
	root, err := testkit.RepoRoot()
	if err != nil {
		return nil, err
	}
	c := &benchCluster{dir: dir, script: filepath.Join(root, "deploy", "local", "cluster")}
	for _, h := range strings.Split(env["HOSTS"], ",") {
		if h = strings.TrimSpace(h); h != "" {
			c.hosts = append(c.hosts, h)
		}
	}
	if len(c.hosts) == 0 {
		return nil, fmt.Errorf("cluster in %s: cluster.env lists no HOSTS", dir)
	}
	for _, dc := range strings.Split(env["DCS"], ",") {
		if dc = strings.TrimSpace(dc); dc != "" {
			c.dcs = append(c.dcs, dc)
		}
	}
	return c, nil
}

// replication is the benchmark keyspaces' replication: RF 3 in every DC,
// or the DC's node count if smaller (the loader writes at ALL).
func (c *benchCluster) replication() string {
	nodes := map[string]int{}
	var order []string
	for _, dc := range c.dcs {
		if nodes[dc] == 0 {
			order = append(order, dc)
		}
		nodes[dc]++
	}
	if len(order) == 0 { // a cluster.env without DCS: the script's default DC
		order, nodes["dc1"] = []string{"dc1"}, len(c.hosts)
	}
	parts := []string{"'class': 'NetworkTopologyStrategy'"}
	for _, dc := range order {
		parts = append(parts, fmt.Sprintf("'%s': %d", dc, min(3, nodes[dc])))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// session is a gocql session over every node, for creating and loading the
// benchmark tables (never used for measurements).
func (c *benchCluster) session() (*gocql.Session, error) {
	cc := gocql.NewCluster(c.hosts...)
	cc.ProtoVersion = 4
	cc.Timeout = 60 * time.Second
	cc.ConnectTimeout = 20 * time.Second
	cc.MaxWaitSchemaAgreement = 3 * time.Minute
	cc.Consistency = gocql.All
	cc.NumConns = 2
	s, err := cc.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("connecting to %v: %w", c.hosts, err)
	}
	return s, nil
}

// nodetool runs the real NodeTool against node n (1-based) through
// `deploy/local/cluster nodetool`, the way a user on the box would, and
// returns its stdout and wall time.
func (c *benchCluster) nodetool(ctx context.Context, n int, args ...string) (string, time.Duration, error) {
	out, took, _, err := c.nodetoolCPU(ctx, n, args...)
	return out, took, err
}

// nodetoolCPU is nodetool that also returns the CPU seconds its processes
// spent (the script and the JVM it waits for: wait4's rusage includes the
// descendants a child waited for).
func (c *benchCluster) nodetoolCPU(ctx context.Context, n int, args ...string) (string, time.Duration, float64, error) {
	full := append([]string{"nodetool", "--dir", c.dir, strconv.Itoa(n)}, args...)
	cmd := exec.CommandContext(ctx, c.script, full...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.Env = os.Environ()
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	var cpu float64
	if cmd.ProcessState != nil {
		cpu = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	}
	if err != nil {
		return out.String(), took, cpu, fmt.Errorf("nodetool %s on node %d: %w: %s", strings.Join(args, " "), n, err, strings.TrimSpace(errOut.String()))
	}
	return out.String(), took, cpu, nil
}

// jmxPort is node n's JMX port (cluster.env JMX_PORTS; JMX listens on 127.0.0.1).
func (c *benchCluster) jmxPort(n int) (int, error) {
	env, err := testcluster.EnvAt(c.dir)
	if err != nil {
		return 0, err
	}
	ports := strings.Split(env["JMX_PORTS"], ",")
	if n < 1 || n > len(ports) {
		return 0, fmt.Errorf("cluster.env JMX_PORTS %q has no node %d", env["JMX_PORTS"], n)
	}
	return strconv.Atoi(strings.TrimSpace(ports[n-1]))
}
