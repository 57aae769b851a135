package testcluster

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Nodetool runs the real org.apache.cassandra.tools.NodeTool against node n
// (1-based, in Hosts() order) through deploy/local/cluster and returns its stdout.
func Nodetool(ctx context.Context, n int, args ...string) (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	script := filepath.Join(root, "deploy", "local", "cluster")
	full := append([]string{"nodetool", "--dir", Dir(), strconv.Itoa(n)}, args...)
	cmd := exec.CommandContext(ctx, script, full...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("nodetool %s on node %d: %w: %s",
			strings.Join(args, " "), n, err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}
