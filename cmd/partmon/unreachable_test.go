package main

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/tools/testkit"
)

// closedLoopback is an address on ip (a loopback address) that nothing
// listens on: a port that was free a moment ago.
func closedLoopback(t *testing.T, ip string) string {
	t.Helper()
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestReportOnUnreachableNodes runs the built binary against two loopback
// nodes nothing listens on: exit code 3 and, per node,
// one line with the cause and what to check; no per-source repetition of
// the failure, so the whole output stays small.
func TestReportOnUnreachableNodes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin, err := testkit.BuildPartmon(ctx, t.TempDir(), "partmon", false)
	if err != nil {
		t.Fatal(err)
	}
	// Two addresses: the collector keys nodes by IP.
	nodes := []string{closedLoopback(t, "127.0.0.1"), closedLoopback(t, "127.0.0.2")}
	for _, mode := range []string{"cluster", "sidecar"} {
		t.Run(mode, func(t *testing.T) {
			cmd := exec.CommandContext(ctx, bin, "report", "--hosts", strings.Join(nodes, ","), "--mode", mode, "--timeout", "1m")
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()} // no PARTMON_* from the caller
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != exitCollectFail {
				t.Fatalf("exit: %v, want code %d\n%s", err, exitCollectFail, stderr.String())
			}
			out := stdout.String() + stderr.String()
			if stdout.Len() != 0 {
				t.Errorf("stdout %q, want nothing: there is no report", stdout.String())
			}
			// Before: ~10 KB for one node, the backoff error once per source.
			if len(out) > 2048 {
				t.Errorf("%d bytes of output, want at most 2048:\n%s", len(out), out)
			}
			if strings.Contains(out, "backing off") {
				t.Errorf("the output repeats the backoff of every source:\n%s", out)
			}
			if !strings.Contains(out, "partmon: could not read the ring from any of") {
				t.Errorf("no summary line:\n%s", out)
			}
			for _, node := range nodes {
				_, port, _ := net.SplitHostPort(node)
				var lines []string
				for _, l := range strings.Split(out, "\n") {
					if strings.HasPrefix(l, "  "+node+": ") {
						lines = append(lines, l)
					}
				}
				if len(lines) != 1 {
					t.Errorf("%d lines for %s, want 1:\n%s", len(lines), node, out)
					continue
				}
				for _, want := range []string{"connect: connection refused", "Check the address", "native_transport_port (" + port + " here",
					"collector.port", "TLS (collector.tls)", "credentials (collector.username)"} {
					if !strings.Contains(lines[0], want) {
						t.Errorf("line for %s lacks %q: %s", node, want, lines[0])
					}
				}
			}
		})
	}
}
