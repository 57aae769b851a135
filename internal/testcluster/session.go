package testcluster

import (
	"fmt"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// NewClusterConfig is a gocql config for the local cluster (all hosts),
// with the default superuser when the cluster was started with --auth.
func NewClusterConfig(hosts ...string) *gocql.ClusterConfig {
	cfg := gocql.NewCluster(hosts...)
	cfg.ProtoVersion = 4
	cfg.Timeout = 20 * time.Second
	cfg.ConnectTimeout = 10 * time.Second
	cfg.Consistency = gocql.LocalQuorum
	if env, err := Env(); err == nil && env["AUTH"] == "true" {
		cfg.Authenticator = gocql.PasswordAuthenticator{Username: "cassandra", Password: "cassandra"}
	}
	return cfg
}

// NewSession opens a session whose control connection and pool stay on host
// (WhiteListHostFilter), so node-local tables answer for that node only.
func NewSession(host string) (*gocql.Session, error) {
	cfg := NewClusterConfig(host)
	cfg.HostFilter = gocql.WhiteListHostFilter(host)
	s, err := cfg.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", host, err)
	}
	return s, nil
}

// Session is NewSession for tests: it fails the test when the cluster does
// not answer (integration tests run only where the cluster is up) and closes
// the session when the test ends.
func Session(t testing.TB, host string) *gocql.Session {
	t.Helper()
	s, err := NewSession(host)
	if err != nil {
		t.Fatalf("local cluster not reachable (start it with deploy/local/cluster up): %v", err)
	}
	t.Cleanup(s.Close)
	return s
}
