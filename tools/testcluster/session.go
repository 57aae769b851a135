package testcluster

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// Superuser is the default role of a cluster started with `cluster up --auth`.
const (
	SuperuserName     = "cassandra"
	SuperuserPassword = "cassandra"
)

// NewClusterConfig is a gocql config for the local cluster (all hosts),
// with the default superuser when the cluster was started with --auth and
// verified TLS when it was started with --tls.
func NewClusterConfig(hosts ...string) *gocql.ClusterConfig {
	env, _ := Env()
	return ClusterConfigFor(env, hosts...)
}

// ClusterConfigFor is NewClusterConfig for the cluster whose cluster.env is env.
func ClusterConfigFor(env map[string]string, hosts ...string) *gocql.ClusterConfig {
	cfg := gocql.NewCluster(hosts...)
	cfg.ProtoVersion = 4
	cfg.Timeout = 20 * time.Second
	cfg.ConnectTimeout = 10 * time.Second
	cfg.Consistency = gocql.LocalQuorum
	ApplyEnv(cfg, env)
	return cfg
}

// ApplyEnv sets the authenticator and TLS options that the cluster described
// by env (its cluster.env) needs: the superuser with AUTH=true, the test CA
// (and the client certificate with TLS_CLIENT_AUTH=true) with TLS=true.
func ApplyEnv(cfg *gocql.ClusterConfig, env map[string]string) {
	if env["AUTH"] == "true" {
		cfg.Authenticator = gocql.PasswordAuthenticator{Username: SuperuserName, Password: SuperuserPassword}
	}
	if env["TLS"] == "true" {
		cfg.SslOpts = &gocql.SslOptions{CaPath: env["TLS_CA"], EnableHostVerification: true}
		if env["TLS_CLIENT_AUTH"] == "true" {
			cfg.SslOpts.CertPath, cfg.SslOpts.KeyPath = env["TLS_CLIENT_CERT"], env["TLS_CLIENT_KEY"]
		}
	}
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

// ExecSideBySide runs statements that do not depend on each other at once
// and returns every error. For schema changes: gocql waits after each for
// the nodes to agree on the schema (~1 s on 3 local nodes, most of a
// CREATE's time), and side by side those waits overlap. A statement that
// needs another's result (a table in a new keyspace) goes in a later call.
func ExecSideBySide(s *gocql.Session, stmts []string) error {
	errs := make([]error, len(stmts))
	var wg sync.WaitGroup
	for i, stmt := range stmts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.Query(stmt).Exec(); err != nil {
				errs[i] = fmt.Errorf("running %q: %w", stmt, err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
