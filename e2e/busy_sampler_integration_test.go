//go:build integration

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/tools/testcluster"
	"github.com/partmon/partmon/tools/testkit"
)

// busyKeyspace is the table this test writes to have something to sample:
// it runs on a node of its own (scripts/test-side.sh), never the fixtures.
const busyKeyspace = "pm_busy"

// TestBusySamplerIsNotStale: a one-shot `partmon report` with the sampler
// configured, run while another client's `nodetool profileload` samples
// the same node (Cassandra samples a table once at a time: "Sampling
// already in progress"). The sampler is reported busy on that source, and
// the node, whose CQL data is fresh, gets no stale_data finding.
func TestBusySamplerIsNotStale(t *testing.T) {
	hosts := testcluster.Hosts()
	host := hosts[0]
	const bound = 10 * time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	s := testcluster.Session(t, host)
	for _, stmt := range []string{
		"CREATE KEYSPACE IF NOT EXISTS " + busyKeyspace + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE IF NOT EXISTS " + busyKeyspace + ".kv (k text PRIMARY KEY, v text)",
		"INSERT INTO " + busyKeyspace + ".kv (k, v) VALUES ('a', 'b')",
	} {
		if err := s.Query(stmt).WithContext(ctx).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	root := testkit.Root(t)
	nodetool := []string{filepath.Join(root, "deploy", "local", "cluster"), "nodetool", "--dir", testcluster.Dir(), host}

	// The other client: a profileload as long as the test may run, so that
	// it outlasts partmon's run with its retries (four tries of a 5-s window
	// and a JVM start each) however slow the box: a fixed 240 s ran out
	// first at load average 60, and partmon's sampler then found the node
	// free. Cassandra goes on sampling after the client is killed, on this
	// test's node of its own.
	// In a process group of its own: the script starts nodetool's JVM as a
	// child, which killing the script alone would leave running.
	other := exec.CommandContext(ctx, nodetool[0], append(nodetool[1:], "profileload", fmt.Sprint(bound.Milliseconds()))...)
	other.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	other.Cancel = func() error { return syscall.Kill(-other.Process.Pid, syscall.SIGKILL) }
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	otherDone := make(chan struct{})
	go func() { _ = other.Wait(); close(otherDone) }()
	defer func() { _ = syscall.Kill(-other.Process.Pid, syscall.SIGKILL); <-otherDone }()
	waitUntilSamplerBusy(ctx, t, nodetool)

	env, err := testcluster.Env()
	if err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("collector:\n  hosts: [%s]\n  nodetool_sampler:\n    command: [%s]\n    duration: 5s\n",
		host, quoteAll(nodetool))
	if env["AUTH"] == "true" {
		cfg += fmt.Sprintf("  username: %s\n  password: %s\n", testcluster.SuperuserName, testcluster.SuperuserPassword)
	}
	// PARTMON_BUSY_BIN runs another build, e.g. the one before the change.
	bin := os.Getenv("PARTMON_BUSY_BIN")
	if bin == "" {
		if bin, err = partmonBinary(ctx); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	r := runReport(ctx, t, bin, cfg)
	t.Logf("the one-shot report took %s beside the other sampling", time.Since(start).Round(100*time.Millisecond))
	select {
	case <-otherDone:
		t.Fatalf("the other client's profileload ended before partmon's report did: the node was not busy throughout")
	default:
	}

	var sampler *model.SourceStatus
	for i := range r.Sources {
		if r.Sources[i].Source == "nodetool_sampler" && r.Sources[i].Node == host {
			sampler = &r.Sources[i]
		}
	}
	if sampler == nil {
		t.Fatalf("no nodetool_sampler status for %s in %+v", host, r.Sources)
	}
	if sampler.State != model.StateBusy {
		t.Errorf("nodetool_sampler on %s: state %q (%s), want %q", host, sampler.State, sampler.Error, model.StateBusy)
	}
	for _, f := range r.Findings {
		if f.Kind == "stale_data" && f.Node == host {
			t.Errorf("stale_data for %s, whose data is fresh: %s", host, f.Summary)
		}
	}
}

// waitUntilSamplerBusy runs a 1-ms profileload until the node answers
// "Sampling already in progress": the other client's window has begun.
func waitUntilSamplerBusy(ctx context.Context, t *testing.T, nodetool []string) {
	t.Helper()
	for ctx.Err() == nil {
		out, _ := exec.CommandContext(ctx, nodetool[0], append(nodetool[1:], "profileload", "1")...).CombinedOutput()
		if strings.Contains(string(out), "Sampling already in progress") {
			return
		}
		time.Sleep(time.Second)
	}
	t.Fatal("the other profileload never started sampling")
}

func quoteAll(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = fmt.Sprintf("%q", a)
	}
	return strings.Join(q, ", ")
}
