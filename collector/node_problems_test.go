package collector

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/tools/testkit"
)

// TestDiagnose: each kind of failure gets its cause without the driver's
// wrapping and the check that fits it. The messages are the real ones:
// net's (measured against a closed loopback port), crypto/tls and x509's,
// gocql v1.7's (conn.go, session.go) and Cassandra's PasswordAuthenticator.
func TestDiagnose(t *testing.T) {
	cfg := Config{Hosts: []string{"10.0.0.1"}}.WithDefaults()
	tests := []struct {
		name      string
		err       string
		wantCause string
		wantCheck []string
	}{
		{"refused", "connecting to 10.0.0.1: gocql: unable to create session: unable to discover protocol version: dial tcp 10.0.0.1:9042: connect: connection refused",
			"dial tcp 10.0.0.1:9042: connect: connection refused",
			[]string{"native_transport_port (9042 here", "nothing listens there", "collector.tls", "collector.username"}},
		{"timeout", "connecting to 10.0.0.1: gocql: unable to create session: unable to discover protocol version: dial tcp 10.0.0.1:9042: i/o timeout",
			"dial tcp 10.0.0.1:9042: i/o timeout",
			[]string{"that the node is up", "port 9042", "collector.connect_timeout, 5s", "collector.tls", "collector.username"}},
		{"plain text server, TLS client", "connecting to 10.0.0.1: gocql: unable to create session: unable to discover protocol version: tls: first record does not look like a TLS handshake",
			"tls: first record does not look like a TLS handshake", []string{"collector.tls", "client_encryption_options"}},
		{"unknown CA", "connecting to 10.0.0.1: gocql: unable to create session: unable to discover protocol version: x509: certificate signed by unknown authority",
			"x509: certificate signed by unknown authority", []string{"collector.tls", "ca_file"}},
		{"no credentials", `connecting to 10.0.0.1: gocql: unable to create session: unable to discover protocol version: authentication required (using "org.apache.cassandra.auth.PasswordAuthenticator")`,
			`authentication required (using "org.apache.cassandra.auth.PasswordAuthenticator")`, []string{"collector.username", "password_file"}},
		{"wrong password", "connecting to 10.0.0.1: gocql: unable to create session: unable to discover protocol version: Provided username partmon and/or password are incorrect",
			"Provided username partmon and/or password are incorrect", []string{"collector.username", "collector.password"}},
		{"unknown", "connecting to 10.0.0.1: gocql: unable to create session: unable to discover protocol version: EOF",
			"EOF", []string{"the address", "native_transport_port (9042 here", "collector.tls", "collector.username"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cause, check := diagnose(errors.New(tc.err), "10.0.0.1:9042", cfg)
			if cause != tc.wantCause {
				t.Errorf("cause %q, want %q", cause, tc.wantCause)
			}
			for _, w := range tc.wantCheck {
				if !strings.Contains(check, w) {
					t.Errorf("check %q lacks %q", check, w)
				}
			}
		})
	}
}

// TestNodeProblemsOfAClosedPort: a node nothing listens on is one problem,
// however many sources it skipped, and CollectAll says the skipped sources
// once rather than once per source.
func TestNodeProblemsOfAClosedPort(t *testing.T) {
	port := testkit.FreePort(t) // nothing listens there
	c := newTestCollector(t, Config{Hosts: []string{"127.0.0.1:" + strconv.Itoa(port)}, Mode: ModeCluster,
		ConnectTimeout: time.Second, RetryBackoff: time.Hour, MaxRetryBackoff: time.Hour})
	err := c.CollectAll(context.Background())
	if err == nil {
		t.Fatal("want an error from a closed port")
	}
	if n := strings.Count(err.Error(), "backing off"); n != 1 {
		t.Errorf("CollectAll's error says %q %d times, want once:\n%v", "backing off", n, err)
	}
	enabled := 0
	for _, e := range c.eff {
		if e.enabled {
			enabled++
		}
	}
	// topology failed to connect; every other source was skipped.
	if want := "backing off: " + strconv.Itoa(enabled-1) + " more sources skipped on 127.0.0.1, next attempt in 1h0m0s"; !strings.Contains(err.Error(), want) {
		t.Errorf("CollectAll's error lacks %q:\n%v", want, err)
	}
	problems := c.NodeProblems()
	if len(problems) != 1 {
		t.Fatalf("problems %+v, want one", problems)
	}
	p := problems[0]
	endpoint := "127.0.0.1:" + strconv.Itoa(port)
	if p.Endpoint != endpoint || p.Failures != 1 || !strings.HasSuffix(p.Cause, "connect: connection refused") {
		t.Errorf("problem %+v", p)
	}
	if line := p.String(); !strings.HasPrefix(line, endpoint+": dial tcp "+endpoint+": connect: connection refused. Check the address") || strings.Contains(line, "\n") {
		t.Errorf("line %q", line)
	}
}

// TestJoinRunErrors: the sources a backing-off node skipped are one line per
// node; its last failure is said in full only when no run of this call
// reported it; joined errors of cluster sources count part by part.
func TestJoinRunErrors(t *testing.T) {
	refusedA := errors.New("connecting to 10.0.0.1: connection refused")
	refusedB := errors.New("connecting to 10.0.0.2: connection refused")
	backoff := func(node string, last error) error {
		return &cql.BackoffError{Node: node, Failures: 1, Wait: 5 * time.Second, Last: last}
	}
	other := errors.New("reading system_views.settings on 10.0.0.3: timeout")
	tests := []struct {
		name string
		errs []error
		want string
	}{
		{"nothing failed", []error{nil, nil}, ""},
		{"failure reported in this call",
			[]error{refusedA, backoff("10.0.0.1", refusedA), backoff("10.0.0.1", refusedA)},
			"connecting to 10.0.0.1: connection refused\nbacking off: 2 more sources skipped on 10.0.0.1, next attempt in 5s"},
		{"failure from an earlier call",
			[]error{backoff("10.0.0.1", refusedA), nil, backoff("10.0.0.1", refusedA)},
			"backing off: node 10.0.0.1 failed 1 times in a row, next attempt in 5s; last error: connecting to 10.0.0.1: connection refused (2 sources skipped)"},
		{"a cluster source's joined errors, two nodes and another failure",
			[]error{errors.Join(refusedA, refusedB), errors.Join(backoff("10.0.0.1", refusedA), backoff("10.0.0.2", refusedB)), other, backoff("10.0.0.2", refusedB)},
			"connecting to 10.0.0.1: connection refused\nconnecting to 10.0.0.2: connection refused\n" + other.Error() +
				"\nbacking off: 1 more source skipped on 10.0.0.1, next attempt in 5s\nbacking off: 2 more sources skipped on 10.0.0.2, next attempt in 5s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := joinRunErrors(tc.errs)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			if strings.Contains(tc.want, "backing off") && !errors.Is(err, cql.ErrBackoff) {
				t.Error("the joined error is no longer a backoff error")
			}
		})
	}
}
