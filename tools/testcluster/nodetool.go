package testcluster

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/partmon/partmon/tools/testkit"
)

// runCluster runs `deploy/local/cluster CMD --dir DIR ARGS...` and returns its
// stdout and stderr (the script reports what it did on stderr).
func runCluster(ctx context.Context, dir, cmd string, args ...string) (stdout, stderr string, err error) {
	root, err := testkit.RepoRoot()
	if err != nil {
		return "", "", err
	}
	script := filepath.Join(root, "deploy", "local", "cluster")
	c := exec.CommandContext(ctx, script, append([]string{cmd, "--dir", dir}, args...)...)
	var out, errOut bytes.Buffer
	c.Stdout, c.Stderr = &out, &errOut
	err = c.Run()
	return out.String(), errOut.String(), err
}

// Nodetool runs the real org.apache.cassandra.tools.NodeTool against node n
// (1-based, in Hosts() order) through deploy/local/cluster and returns its stdout.
func Nodetool(ctx context.Context, n int, args ...string) (string, error) {
	return nodetoolAt(ctx, Dir(), n, args...)
}

func nodetoolAt(ctx context.Context, dir string, n int, args ...string) (string, error) {
	stdout, stderr, err := runCluster(ctx, dir, "nodetool", append([]string{strconv.Itoa(n)}, args...)...)
	if err != nil {
		return stdout, fmt.Errorf("nodetool %s on node %d: %w: %s",
			strings.Join(args, " "), n, err, strings.TrimSpace(stderr))
	}
	return stdout, nil
}

// SaveTopPartitions makes every running node of the cluster in Dir() write its
// in-memory top partitions (nodetool tablestats) into system.top_partitions
// now instead of at its next hourly save (`cluster save-top-partitions`).
// It returns the script's report, one line per node.
func SaveTopPartitions(ctx context.Context) (string, error) {
	_, stderr, err := runCluster(ctx, Dir(), "save-top-partitions")
	if err != nil {
		return stderr, fmt.Errorf("saving top partitions in %s: %w: %s", Dir(), err, strings.TrimSpace(stderr))
	}
	return stderr, nil
}
