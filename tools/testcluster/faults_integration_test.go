//go:build integration

package testcluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

const (
	faultKeyspace = "partmon_faults"
	faultKey      = "written-before-the-faults"
)

// Query timeouts of faultSession: short where a paused node must fail fast
// instead of holding the test; long for schema changes, which wait for every
// node's agreement and take more than 5 s on a busy machine.
const (
	probeTimeout  = 5 * time.Second
	schemaTimeout = time.Minute
)

// faultSession is a session pinned to host on the fault cluster.
func faultSession(f Faults, host string, timeout time.Duration) (*gocql.Session, error) {
	cfg := gocql.NewCluster(host)
	cfg.ProtoVersion = 4
	cfg.Timeout = timeout
	cfg.ConnectTimeout = 3 * time.Second
	cfg.Consistency = gocql.One
	cfg.HostFilter = gocql.WhiteListHostFilter(host)
	cfg.DisableInitialHostLookup = true
	cfg.Dialer = setupDeadlineDialer{net.Dialer{Timeout: cfg.ConnectTimeout}}
	if env, err := EnvAt(f.Dir); err == nil {
		ApplyEnv(cfg, env)
	}
	s, err := cfg.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", host, err)
	}
	return s, nil
}

// setupDeadlineDialer bounds a connection's set-up, TLS handshake included,
// by the connect timeout: gocql v1.7 bounds only the TCP connect, and a
// paused node accepts TCP connections and never answers a TLS handshake
// (collector/internal/cql does the same for partmon).
type setupDeadlineDialer struct{ net.Dialer }

func (d setupDeadlineDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	conn, err := d.Dialer.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	if err := conn.SetDeadline(time.Now().Add(d.Timeout)); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// nodeView is what the node itself answers over CQL: its host_id (a node
// started on wiped data would get a new one) and the row written before the
// faults, read at CL ONE through it.
func nodeView(f Faults, host string) (hostID, value string, err error) {
	s, err := faultSession(f, host, probeTimeout)
	if err != nil {
		return "", "", err
	}
	defer s.Close()
	if err := s.Query("SELECT host_id FROM system.local WHERE key = 'local'").Scan(&hostID); err != nil {
		return "", "", fmt.Errorf("reading system.local on %s: %w", host, err)
	}
	if err := s.Query("SELECT v FROM "+faultKeyspace+".t WHERE k = ?", faultKey).Scan(&value); err != nil {
		return "", "", fmt.Errorf("reading %s.t on %s: %w", faultKeyspace, host, err)
	}
	return hostID, value, nil
}

// statusOf is host's two-letter state (UN, DN, ...) in the real `nodetool status` of node observer.
func statusOf(ctx context.Context, f Faults, observer int, host string) (string, error) {
	out, err := f.Nodetool(ctx, observer, "status")
	if err != nil {
		return "", err
	}
	m := regexp.MustCompile(`(?m)^([UD][NLJM])\s+` + regexp.QuoteMeta(host) + `\s`).FindStringSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("nodetool status on node %d has no line for %s:\n%s", observer, host, out)
	}
	return m[1], nil
}

// waitStatus polls node observer's nodetool status until host shows want.
func waitStatus(ctx context.Context, f Faults, observer int, host, want string, bound time.Duration) (time.Duration, error) {
	start := time.Now()
	for {
		got, err := statusOf(ctx, f, observer, host)
		if err == nil && got == want {
			return time.Since(start), nil
		}
		if time.Since(start) > bound {
			return 0, fmt.Errorf("%s is %q on node %d after %s, want %s (last error %v)", host, got, observer, bound, want, err)
		}
		time.Sleep(2 * time.Second)
	}
}

func cqlPortOpen(host string) bool {
	c, err := net.DialTimeout("tcp", net.JoinHostPort(host, "9042"), 2*time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// TestFaultInjection drives kill, pause, resume, start and restart through
// one node of the cluster in PARTMON_FAULT_CLUSTER_DIR (skipped when unset)
// and checks each result from outside the script: the node's CQL port and
// answers, its host_id and data, and its peers' view in the real nodetool status.
func TestFaultInjection(t *testing.T) {
	f := FaultCluster(t)
	hosts, err := f.Hosts()
	if err != nil {
		t.Fatal(err)
	}
	if len(hosts) < 2 {
		t.Skipf("fault injection needs at least 2 nodes, %s has %d", f.Dir, len(hosts))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	for n := 1; n <= len(hosts); n++ {
		if state, _, err := f.State(ctx, n); err != nil || state != NodeRunning {
			t.Fatalf("node %d of %s is %q (%v): start from a healthy cluster", n, f.Dir, state, err)
		}
	}

	// A row on every node (RF = node count, at most 3: the victim is then a replica).
	s, err := faultSession(f, hosts[0], schemaTimeout)
	if err != nil {
		t.Fatal(err)
	}
	rf := min(3, len(hosts))
	for _, q := range []string{
		fmt.Sprintf("CREATE KEYSPACE IF NOT EXISTS %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': %d}", faultKeyspace, rf),
		"CREATE TABLE IF NOT EXISTS " + faultKeyspace + ".t (k text PRIMARY KEY, v text)",
	} {
		if err := s.Query(q).Exec(); err != nil {
			s.Close()
			t.Fatalf("%s: %v", q, err)
		}
	}
	written := time.Now().UTC().Format(time.RFC3339Nano)
	if err := s.Query("INSERT INTO "+faultKeyspace+".t (k, v) VALUES (?, ?)", faultKey, written).Consistency(gocql.All).Exec(); err != nil {
		s.Close()
		t.Fatalf("writing the row at CL ALL: %v", err)
	}
	s.Close()
	// The victim is the last replica of the row; the observer another node.
	out, err := f.Nodetool(ctx, 1, "getendpoints", faultKeyspace, "t", faultKey)
	if err != nil {
		t.Fatal(err)
	}
	replicas := strings.Fields(out)
	victimHost := replicas[len(replicas)-1]
	victim, observer := 0, 0
	for i, h := range hosts {
		if h == victimHost {
			victim = i + 1
		} else if observer == 0 {
			observer = i + 1
		}
	}
	if victim == 0 {
		t.Fatalf("replica %s of the row is not one of %v", victimHost, hosts)
	}
	hostID, _, err := nodeView(f, victimHost)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("victim node %d (%s, host_id %s), observer node %d, cluster %s", victim, victimHost, hostID, observer, f.Dir)
	t.Cleanup(func() { // leave the cluster healthy whatever failed
		cctx, ccancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer ccancel()
		if state, _, err := f.State(cctx, victim); err == nil {
			switch state {
			case NodePaused:
				err = f.Resume(cctx, victim)
			case NodeStopped:
				err = f.Start(cctx, victim)
			}
			if err != nil {
				t.Errorf("cleanup: %v", err)
			}
		}
		if s, err := faultSession(f, hosts[observer-1], schemaTimeout); err == nil {
			_ = s.Query("DROP KEYSPACE IF EXISTS " + faultKeyspace).Exec()
			s.Close()
		}
	})

	// answers: the node is back, on the data it had (same host_id, the row), and UN on the observer.
	answers := func(t *testing.T) {
		// The script returns once the node serves CQL and is UN; a first
		// session on a busy machine may still time out, so a few tries.
		var gotID, value string
		var err error
		deadline := time.Now().Add(time.Minute)
		for {
			if gotID, value, err = nodeView(f, victimHost); err == nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(2 * time.Second)
		}
		if err != nil {
			t.Fatalf("node %d does not answer CQL for a minute after the step: %v", victim, err)
		}
		if gotID != hostID || value != written {
			t.Errorf("node %d: host_id %s, row %q; want host_id %s, row %q (its data kept)", victim, gotID, value, hostID, written)
		}
		if got, err := statusOf(ctx, f, observer, victimHost); err != nil || got != "UN" {
			t.Errorf("node %d on the observer's nodetool status: %q (%v), want UN", victim, got, err)
		}
	}
	steps := []struct {
		name      string
		action    func(context.Context, int) error
		wantErr   bool
		wantState string
		check     func(t *testing.T)
	}{
		{name: "pause", action: f.Pause, wantState: NodePaused, check: func(t *testing.T) {
			// The kernel still accepts connections for the stopped JVM; nothing answers them.
			if !cqlPortOpen(victimHost) {
				t.Errorf("paused node %d: CQL port closed, want open (the process is alive)", victim)
			}
			if _, _, err := nodeView(f, victimHost); err == nil {
				t.Errorf("paused node %d answered CQL", victim)
			}
		}},
		{name: "pause a paused node", action: f.Pause, wantState: NodePaused},
		{name: "start a paused node", action: f.Start, wantErr: true, wantState: NodePaused},
		{name: "restart a paused node", action: f.Restart, wantErr: true, wantState: NodePaused},
		{name: "resume", action: f.Resume, wantState: NodeRunning, check: answers},
		{name: "resume a running node", action: f.Resume, wantState: NodeRunning},
		{name: "kill", action: f.Kill, wantState: NodeStopped, check: func(t *testing.T) {
			if cqlPortOpen(victimHost) {
				t.Errorf("killed node %d: CQL port still open", victim)
			}
			took, err := waitStatus(ctx, f, observer, victimHost, "DN", 2*time.Minute)
			if err != nil {
				t.Error(err)
			}
			t.Logf("observer saw node %d DN %.0f s after the kill", victim, took.Seconds())
		}},
		{name: "kill a stopped node", action: f.Kill, wantState: NodeStopped},
		{name: "pause a stopped node", action: f.Pause, wantErr: true, wantState: NodeStopped},
		{name: "resume a stopped node", action: f.Resume, wantErr: true, wantState: NodeStopped},
		{name: "start", action: f.Start, wantState: NodeRunning, check: answers},
		{name: "start a running node", action: f.Start, wantState: NodeRunning},
		{name: "restart", action: f.Restart, wantState: NodeRunning, check: answers},
	}
	for _, st := range steps {
		ok := t.Run(st.name, func(t *testing.T) {
			_, pidBefore, err := f.State(ctx, victim)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			err = st.action(ctx, victim)
			took := time.Since(start)
			if st.wantErr != (err != nil) {
				t.Fatalf("error %v, want error: %v", err, st.wantErr)
			}
			t.Logf("%s took %.1f s (error: %v)", st.name, took.Seconds(), err)
			state, pid, err := f.State(ctx, victim)
			if err != nil {
				t.Fatal(err)
			}
			if state != st.wantState {
				t.Fatalf("node %d is %s, want %s", victim, state, st.wantState)
			}
			// Only start and restart may bring a new JVM; every other step keeps the process it found.
			switch newJVM := st.name == "start" || st.name == "restart"; {
			case state == NodeStopped && pid != 0:
				t.Errorf("stopped node %d still has pid %d", victim, pid)
			case newJVM && (pid == 0 || pid == pidBefore):
				t.Errorf("pid %d after %s, was %d: want a new JVM", pid, st.name, pidBefore)
			case !newJVM && state != NodeStopped && pid != pidBefore:
				t.Errorf("pid %d after %s, was %d: want it unchanged", pid, st.name, pidBefore)
			}
			if st.check != nil {
				st.check(t)
			}
		})
		if !ok {
			break
		}
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Error("the fault steps ran out of time")
	}
}
