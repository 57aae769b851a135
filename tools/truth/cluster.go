package truth

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gocql/gocql"

	"github.com/partmon/partmon/tools/testcluster"
)

// Cluster is a running deploy/local/cluster the corpus is loaded on.
type Cluster struct {
	Name  string // single or twodc: which scenarios it runs
	Dir   string // its state directory (cluster.env)
	Repo  string // the repository root, for deploy/local/cluster
	Hosts []string
	DC    map[string]string // address → DC
	Rack  map[string]string // address → rack
	env   map[string]string
}

// OpenCluster reads the cluster.env that `deploy/local/cluster up` wrote in dir.
func OpenCluster(repo, dir, name string) (*Cluster, error) {
	env, err := testcluster.EnvAt(dir)
	if err != nil {
		return nil, fmt.Errorf("no cluster in %s (start it with deploy/local/cluster up --dir %s): %w", dir, dir, err)
	}
	hosts := splitComma(env["HOSTS"])
	dcs, racks := splitComma(env["DCS"]), splitComma(env["RACKS"])
	if len(hosts) == 0 || len(dcs) != len(hosts) || len(racks) != len(hosts) {
		return nil, fmt.Errorf("%s/cluster.env: HOSTS, DCS and RACKS must list one entry per node", dir)
	}
	c := &Cluster{Name: name, Dir: dir, Repo: repo, Hosts: hosts, DC: map[string]string{}, Rack: map[string]string{}, env: env}
	for i, h := range hosts {
		c.DC[h], c.Rack[h] = dcs[i], racks[i]
	}
	return c, nil
}

func splitComma(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// DCs lists the cluster's data centers in node order.
func (c *Cluster) DCs() []string {
	var out []string
	seen := map[string]bool{}
	for _, h := range c.Hosts {
		if dc := c.DC[h]; !seen[dc] {
			seen[dc] = true
			out = append(out, dc)
		}
	}
	return out
}

// script is deploy/local/cluster of the repository.
func (c *Cluster) script() string { return filepath.Join(c.Repo, "deploy", "local", "cluster") }

// NodetoolCommand is the command line partmon's nodetool sampler runs.
func (c *Cluster) NodetoolCommand() []string {
	return []string{c.script(), "nodetool", "--dir", c.Dir, "{address}"}
}

// nodetoolTimeout bounds one nodetool run. A JVM start takes seconds on
// an idle 2-core box and minutes on one shared by several clusters.
const nodetoolTimeout = 8 * time.Minute

// Nodetool runs the real nodetool against the node with address host. A
// shell error from the script itself (it is a shared file that may be
// mid-edit) is retried a few times; nodetool's own failures are not.
func (c *Cluster) Nodetool(ctx context.Context, host string, args ...string) (string, error) {
	var out string
	var err error
	for attempt := 1; attempt <= 5; attempt++ {
		var stderr string
		out, stderr, err = c.nodetoolOnce(ctx, host, args)
		if err == nil {
			return out, nil
		}
		err = fmt.Errorf("nodetool %s on %s: %w: %s", strings.Join(args, " "), host, err, stderr)
		if !strings.Contains(stderr, "syntax error") && !strings.Contains(stderr, "unbound variable") {
			return out, err
		}
		if sleep(ctx, 20*time.Second) != nil {
			break
		}
	}
	return out, err
}

func (c *Cluster) nodetoolOnce(ctx context.Context, host string, args []string) (string, string, error) {
	ctx, cancel := context.WithTimeout(ctx, nodetoolTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.script(), append([]string{"nodetool", "--dir", c.Dir, host}, args...)...)
	// The script runs a JVM: on timeout end the whole process group, not
	// only the shell.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	return out.String(), strings.TrimSpace(errOut.String()), err
}

// OnEveryNode runs nodetool args on every node at once (each run is a JVM
// that mostly waits for its node).
func (c *Cluster) OnEveryNode(ctx context.Context, args ...string) error {
	errs := make([]error, len(c.Hosts))
	var wg sync.WaitGroup
	for i, h := range c.Hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.Nodetool(ctx, h, args...)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Session connects to the cluster: token-aware with shuffled replicas (so
// RF 3 reads spread over the replicas as drivers do), restricted to the
// nodes of dc when dc is set.
func (c *Cluster) Session(dc string) (*gocql.Session, error) {
	hosts := c.Hosts
	if dc != "" {
		hosts = nil
		for _, h := range c.Hosts {
			if c.DC[h] == dc {
				hosts = append(hosts, h)
			}
		}
	}
	cfg := testcluster.ClusterConfigFor(c.env, hosts...)
	cfg.Timeout = 15 * time.Second
	cfg.NumConns = 2
	if dc != "" {
		cfg.HostFilter = gocql.DataCentreHostFilter(dc)
		cfg.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.DCAwareRoundRobinPolicy(dc), gocql.ShuffleReplicas())
	} else {
		cfg.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy(), gocql.ShuffleReplicas())
	}
	s, err := cfg.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("connecting to %v: %w", hosts, err)
	}
	return s, nil
}

// sleep waits d, or less when ctx ends (its error then).
func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
