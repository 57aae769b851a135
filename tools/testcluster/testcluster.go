// Package testcluster tells integration tests where the real local Cassandra
// cluster of deploy/local/cluster is, and gives them its nodetool, its ground
// truth (deploy/local/fixtures) and host-pinned gocql sessions. It never
// starts or stops the cluster: `deploy/local/cluster up` does, once.
package testcluster

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/partmon/partmon/tools/testkit"
)

// DefaultHosts are the addresses of the shared dev cluster.
const DefaultHosts = "127.0.0.1,127.0.0.2,127.0.0.3"

// Dir is the cluster's state directory: PARTMON_CLUSTER_DIR, else <repo>/.cluster.
func Dir() string {
	if d := os.Getenv("PARTMON_CLUSTER_DIR"); d != "" {
		return d
	}
	root, err := testkit.RepoRoot()
	if err != nil {
		return ".cluster"
	}
	return filepath.Join(root, ".cluster")
}

// Hosts are the CQL addresses of the cluster's nodes, node 1 first:
// PARTMON_TEST_HOSTS if set, else the HOSTS of Dir()/cluster.env (so a test
// pointed at another cluster with PARTMON_CLUSTER_DIR follows it), else DefaultHosts.
func Hosts() []string {
	list := os.Getenv("PARTMON_TEST_HOSTS")
	if list == "" {
		if env, err := Env(); err == nil && env["HOSTS"] != "" {
			list = env["HOSTS"]
		}
	}
	if list == "" {
		list = DefaultHosts
	}
	var hosts []string
	for _, h := range strings.Split(list, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	return hosts
}

// NodeIndex is the 1-based node number of host (as `cluster nodetool N` wants it), 0 if unknown.
func NodeIndex(host string) int {
	for i, h := range Hosts() {
		if h == host {
			return i + 1
		}
	}
	return 0
}

// Env reads Dir()/cluster.env, the KEY=VALUE file `cluster up` writes
// (VERSION, DIR, NODES, HOSTS, JMX_PORTS, TOKENS, DCS, RACKS, AUTH, ...).
func Env() (map[string]string, error) { return EnvAt(Dir()) }

// EnvAt reads the cluster.env of the cluster whose state directory is dir.
func EnvAt(dir string) (map[string]string, error) {
	path := filepath.Join(dir, "cluster.env")
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading cluster env: %w", err)
	}
	defer f.Close()
	env := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			env[k] = v
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return env, nil
}
