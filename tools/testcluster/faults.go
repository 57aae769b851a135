package testcluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/partmon/partmon/tools/testkit"
)

// FaultClusterDirEnv names the cluster that fault-injection tests may break.
// It is never the shared dev cluster: start one with
// `deploy/local/cluster up --first-ip 127.0.0.4 --dir /tmp/pm-faults`.
const FaultClusterDirEnv = "PARTMON_FAULT_CLUSTER_DIR"

// Node states as `deploy/local/cluster state` prints them.
const (
	NodeRunning = "running"
	NodePaused  = "paused" // SIGSTOPped: sockets open, nothing answers
	NodeStopped = "stopped"
)

// Faults injects node failures into one local cluster through
// deploy/local/cluster. Dir is that cluster's state directory. Every method
// waits for its command: Start, Restart and Resume return once the node is UN
// on every running node and serves CQL. A command on a node already in the
// wanted state (Kill of a stopped node, Pause of a paused one, ...) succeeds
// and changes nothing; one that cannot apply (Pause or Resume of a stopped
// node, Start of a paused one) returns an error.
type Faults struct {
	Dir string
}

// FaultCluster is the cluster named by PARTMON_FAULT_CLUSTER_DIR. The test is
// skipped when the variable is unset, and fails when it names the shared dev
// cluster (its directory or its addresses) or a directory without a cluster.
func FaultCluster(t testing.TB) Faults {
	t.Helper()
	dir := os.Getenv(FaultClusterDirEnv)
	if dir == "" {
		t.Skipf("%s is not set: fault injection runs only on a cluster of its own", FaultClusterDirEnv)
	}
	f, err := newFaults(dir)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func newFaults(dir string) (Faults, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Faults{}, fmt.Errorf("resolving %s=%s: %w", FaultClusterDirEnv, dir, err)
	}
	if root, err := testkit.RepoRoot(); err == nil && abs == filepath.Join(root, ".cluster") {
		return Faults{}, fmt.Errorf("%s=%s is the shared dev cluster: refusing to inject faults", FaultClusterDirEnv, dir)
	}
	f := Faults{Dir: abs}
	hosts, err := f.Hosts()
	if err != nil {
		return Faults{}, err
	}
	shared := strings.Split(DefaultHosts, ",")
	for _, h := range hosts {
		if slices.Contains(shared, h) {
			return Faults{}, fmt.Errorf("cluster in %s listens on %s, an address of the shared dev cluster: refusing to inject faults", abs, h)
		}
	}
	return f, nil
}

// Hosts are the CQL addresses of the cluster's nodes, node 1 first.
func (f Faults) Hosts() ([]string, error) {
	env, err := EnvAt(f.Dir)
	if err != nil {
		return nil, fmt.Errorf("no cluster in %s (deploy/local/cluster up --dir %s): %w", f.Dir, f.Dir, err)
	}
	var hosts []string
	for _, h := range strings.Split(env["HOSTS"], ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	if len(hosts) == 0 {
		return nil, fmt.Errorf("%s/cluster.env names no HOSTS", f.Dir)
	}
	return hosts, nil
}

// Kill sends SIGKILL to node n's JVM (no drain) and waits until it is gone.
func (f Faults) Kill(ctx context.Context, n int) error { return f.node(ctx, "kill", n) }

// Pause sends SIGSTOP to node n: its sockets stay open and nothing answers.
func (f Faults) Pause(ctx context.Context, n int) error { return f.node(ctx, "pause", n) }

// Resume sends SIGCONT to a paused node n and waits until it is UN again.
func (f Faults) Resume(ctx context.Context, n int) error { return f.node(ctx, "resume", n) }

// Start starts a stopped node n on its existing data and waits for CQL and UN.
func (f Faults) Start(ctx context.Context, n int) error { return f.node(ctx, "start", n) }

// Restart stops node n gracefully (SIGTERM: Cassandra drains), starts it
// again and waits for CQL and UN.
func (f Faults) Restart(ctx context.Context, n int) error { return f.node(ctx, "restart", n) }

// State is node n's state (NodeRunning, NodePaused, NodeStopped) and its JVM's pid (0 when stopped).
func (f Faults) State(ctx context.Context, n int) (state string, pid int, err error) {
	stdout, stderr, err := runCluster(ctx, f.Dir, "state", strconv.Itoa(n))
	if err != nil {
		return "", 0, fmt.Errorf("state of node %d in %s: %w: %s", n, f.Dir, err, strings.TrimSpace(stderr))
	}
	return parseState(stdout)
}

// parseState reads one line of `cluster state`: "node1 127.0.0.4 running 1234".
func parseState(line string) (state string, pid int, err error) {
	fields := strings.Fields(line)
	if len(fields) != 4 {
		return "", 0, fmt.Errorf("unexpected cluster state line %q", line)
	}
	state = fields[2]
	if state != NodeRunning && state != NodePaused && state != NodeStopped {
		return "", 0, fmt.Errorf("unknown node state %q in %q", state, line)
	}
	if fields[3] != "-" {
		if pid, err = strconv.Atoi(fields[3]); err != nil {
			return "", 0, fmt.Errorf("bad pid in %q: %w", line, err)
		}
	}
	return state, pid, nil
}

// Nodetool runs the real nodetool against node n of this cluster.
func (f Faults) Nodetool(ctx context.Context, n int, args ...string) (string, error) {
	return nodetoolAt(ctx, f.Dir, n, args...)
}

func (f Faults) node(ctx context.Context, cmd string, n int) error {
	_, stderr, err := runCluster(ctx, f.Dir, cmd, strconv.Itoa(n))
	if err != nil {
		return fmt.Errorf("cluster %s %d in %s: %w: %s", cmd, n, f.Dir, err, strings.TrimSpace(stderr))
	}
	return nil
}
