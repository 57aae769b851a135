//go:build integration

package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partmon/partmon/tools/promtest"
	"github.com/partmon/partmon/tools/testcluster"
	"github.com/partmon/partmon/tools/testkit"
)

// maxRequestsPerNodeMinute bounds what one partmon costs a node in CQL
// requests a minute, heartbeats and connection set-up included, as the node
// itself counts them. The floor is the default schedule's statements (about
// 20 a minute) plus a session's set-up once a minute (6-8); a session kept
// open adds gocql's 24 heartbeats a minute (docs/benchmarks.md, "Requests
// per node per minute"), which this bound does not leave room for.
const maxRequestsPerNodeMinute = 35

// TestRequestsPerNodePerMinute runs partmon with its default schedules, in
// sidecar and in cluster mode, and counts the requests every node serves
// for it from system_views.clients (request_count per connection, polled
// every second so that a connection closed between runs still counts up to
// its last poll), then divides by the minutes watched. partmon's
// connections are those whose client port is one of the partmon process's
// own sockets (/proc), so other clients of the cluster do not count.
func TestRequestsPerNodePerMinute(t *testing.T) {
	minutes := 2
	var err error
	if v := os.Getenv("PARTMON_REQUESTS_MINUTES"); v != "" {
		if minutes, err = strconv.Atoi(v); err != nil || minutes < 1 {
			t.Fatalf("PARTMON_REQUESTS_MINUTES=%q: want a whole number of minutes >= 1", v)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(2*minutes+5)*time.Minute)
	t.Cleanup(cancel) // after the parallel subtests, which run once this function returns
	// PARTMON_REQUESTS_BIN measures another build, e.g. the one before a change.
	bin := os.Getenv("PARTMON_REQUESTS_BIN")
	if bin == "" {
		var err error
		if bin, err = partmonBinary(ctx); err != nil {
			t.Fatal(err)
		}
	}
	hosts := testcluster.Hosts()
	counters := counterSessions(t, hosts)
	for _, mode := range []string{"sidecar", "cluster"} {
		t.Run(mode, func(t *testing.T) {
			// Both modes at once: each counts only its own process's
			// connections, and the suite waits the minutes once.
			t.Parallel()
			perNode := measureRequests(ctx, t, bin, mode, hosts, counters, minutes)
			for _, h := range hosts {
				c := perNode[h]
				perMin := float64(c.requests) / float64(minutes)
				t.Logf("%s mode, node %s: %d requests in %d min over %d connections (%d open at the end): %.1f a minute",
					mode, h, c.requests, minutes, c.conns, c.open, perMin)
				t.Logf("requests per connection: %s", strings.Join(c.perConn, ", "))
				if perMin > maxRequestsPerNodeMinute {
					t.Errorf("%s mode: node %s served partmon %.1f requests a minute, want at most %d",
						mode, h, perMin, maxRequestsPerNodeMinute)
				}
			}
			if mode == "sidecar" {
				for _, h := range hosts[1:] {
					if perNode[h].conns != 0 {
						t.Errorf("sidecar of %s opened %d connections to %s, a node it never queries", hosts[0], perNode[h].conns, h)
					}
				}
			}
		})
	}
}

// counterSessions opens one session per node, pinned to it.
func counterSessions(t *testing.T, hosts []string) map[string]*gocql.Session {
	out := map[string]*gocql.Session{}
	for _, h := range hosts {
		cfg := testcluster.NewClusterConfig(h)
		cfg.HostFilter = gocql.WhiteListHostFilter(h)
		s, err := cfg.CreateSession()
		if err != nil {
			t.Fatalf("counting session to %s: %v", h, err)
		}
		t.Cleanup(s.Close)
		out[h] = s
	}
	return out
}

// nodeCount is what one node served partmon while it was watched.
type nodeCount struct {
	requests int64
	conns    int // connections seen
	open     int // of which still open at the end
	perConn  []string
}

// connKey is one client connection as a node lists it.
type connKey struct {
	addr string
	port int
}

// connTally follows one node's client connections between polls.
type connTally struct {
	base map[connKey]int64 // request_count at the first poll that saw it
	last map[connKey]int64
	open map[connKey]bool
}

func measureRequests(ctx context.Context, t *testing.T, bin, mode string, hosts []string,
	counters map[string]*gocql.Session, minutes int) map[string]nodeCount {
	addr := testkit.FreeAddr(t)
	args := []string{"run", "--mode", mode, "--hosts", strings.Join(hosts, ","), "--web.listen-address", addr, "--log.level", "warn"}
	// A cluster with PasswordAuthenticator: partmon logs in, and keeps its
	// sessions open between runs (cql.Options.IdleClose is off with a password).
	if env, err := testcluster.Env(); err == nil && env["AUTH"] == "true" {
		cfg := filepath.Join(t.TempDir(), "partmon.yml")
		body := fmt.Sprintf("collector:\n  username: %s\n  password: %s\n", testcluster.SuperuserName, testcluster.SuperuserPassword)
		if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--config.file", cfg)
	}
	p := promtest.Start(t, "partmon-"+mode, promtest.Options{}, bin, args...)
	defer p.Stop()
	client := &http.Client{Timeout: 5 * time.Second}
	promtest.WaitFor(t, 2*time.Minute, "partmon /readyz/cycle", func() bool {
		if exited, err := p.Exited(); exited {
			t.Fatalf("partmon exited: %v\n%s", err, p.Output())
		}
		resp, err := client.Get("http://" + addr + "/readyz/cycle")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	tallies := map[string]*connTally{}
	owned := map[int]bool{} // local ports partmon's sockets ever had
	var mu sync.Mutex
	ownPorts := func() {
		ports, err := socketPorts(p.Cmd.Process.Pid)
		if err != nil {
			t.Errorf("partmon's sockets: %v", err)
		}
		mu.Lock()
		defer mu.Unlock()
		for port := range ports {
			owned[port] = true
		}
	}
	poll := func(first bool) {
		ownPorts()
		defer ownPorts() // after the reads too: a connection opened meanwhile
		var wg sync.WaitGroup
		for _, h := range hosts {
			wg.Go(func() {
				rows, err := clientRows(ctx, counters[h])
				if err != nil {
					t.Errorf("reading system_views.clients on %s: %v", h, err)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				tallies[h] = tallies[h].update(rows, first)
			})
		}
		wg.Wait()
	}
	poll(true)
	end := time.Now().Add(time.Duration(minutes) * time.Minute)
	for time.Now().Before(end) && ctx.Err() == nil {
		time.Sleep(time.Second)
		poll(false)
	}
	if exited, err := p.Exited(); exited {
		t.Fatalf("partmon exited while watched: %v\n%s", err, p.Output())
	}
	ownPorts()
	out := map[string]nodeCount{}
	for h, tl := range tallies {
		out[h] = tl.count(owned)
	}
	return out
}

// socketPorts is the local TCP ports of the process's open sockets.
func socketPorts(pid int) (map[int]bool, error) {
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return nil, err
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if inode, ok := strings.CutPrefix(l, "socket:["); err == nil && ok {
			inodes[strings.TrimSuffix(inode, "]")] = true
		}
	}
	ports := map[int]bool{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(f)
		if err != nil {
			continue // no IPv6
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			fields := strings.Fields(line) // sl local_address rem_address st ... inode (10th)
			if len(fields) < 10 || !inodes[fields[9]] {
				continue
			}
			_, hexPort, _ := strings.Cut(fields[1], ":")
			if port, err := strconv.ParseUint(hexPort, 16, 16); err == nil {
				ports[int(port)] = true
			}
		}
	}
	return ports, nil
}

// clientRows is the node's client connections.
func clientRows(ctx context.Context, s *gocql.Session) (map[connKey]int64, error) {
	iter := s.Query(`SELECT address, port, request_count FROM system_views.clients`).WithContext(ctx).Iter()
	out := map[connKey]int64{}
	var ip net.IP
	var port int
	var n int64
	for iter.Scan(&ip, &port, &n) {
		out[connKey{ip.String(), port}] = n
	}
	return out, iter.Close()
}

func (tl *connTally) update(rows map[connKey]int64, first bool) *connTally {
	if tl == nil {
		tl = &connTally{base: map[connKey]int64{}, last: map[connKey]int64{}}
	}
	for k, n := range rows {
		if _, seen := tl.last[k]; !seen {
			if first {
				tl.base[k] = n // requests before the window do not count
			} else {
				tl.base[k] = 0 // a connection opened in the window: all of its requests count
			}
		}
		tl.last[k] = n
	}
	tl.open = map[connKey]bool{}
	for k := range rows {
		tl.open[k] = true
	}
	return tl
}

// count sums the requests of partmon's connections (client port in owned).
func (tl *connTally) count(owned map[int]bool) nodeCount {
	var c nodeCount
	keys := make([]connKey, 0, len(tl.last))
	for k := range tl.last {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
	for _, k := range keys {
		if !owned[k.port] {
			continue
		}
		c.requests += tl.last[k] - tl.base[k]
		c.perConn = append(c.perConn, fmt.Sprintf("%s:%d %d", k.addr, k.port, tl.last[k]-tl.base[k]))
		c.conns++
		if tl.open[k] {
			c.open++
		}
	}
	return c
}
