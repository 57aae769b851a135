//go:build integration

package reliability

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Bounds of the fault test, from partmon's settings in options: sources every
// 5 s, analysis every 2 s, connect and query timeouts 2 s, retry backoff 1 s
// doubling to 4 s. A fault shows at the first source run after it (≤ 5 s),
// plus a timeout for a paused node (2 s), plus the next analysis (≤ 2 s); a
// recovery waits at most one backoff (4 s), one source period, one connect
// and one analysis. The bounds allow three times that on a shared 2-core box.
const (
	sourcePeriod = 5 * time.Second
	detectBound  = 30 * time.Second
	recoverBound = 45 * time.Second
	// faultHold keeps a pause or a kill on for several source periods, so
	// the healthy nodes' sources have to run (and succeed) while it lasts.
	faultHold = 20 * time.Second
)

// TestNodeFaults breaks one node at a time under a running partmon — kill -9
// mid-cycle, SIGSTOP for longer than every timeout, a graceful restart of the
// first configured host — then restarts partmon itself. Each time the bad
// node is published stale with a stale_data finding within detectBound, the
// other nodes stay fresh and unblocked from the fault until partmon has
// recovered, and partmon recovers by itself within recoverBound of the
// node's return. partmon never exits or panics (it runs with the race
// detector).
func TestNodeFaults(t *testing.T) {
	c := ownCluster(t)
	if len(c.hosts) < 3 {
		t.Fatalf("the fault test needs 3 nodes, the cluster has %d", len(c.hosts))
	}
	c.seedTraffic(t)
	creds := c.readOnlyRole(t, "partmon_faults")
	state := filepath.Join(t.TempDir(), "state.json")
	opts := options{creds: creds, stateFile: state, sourceEvery: sourcePeriod}
	d := c.startPartmon(t, "partmon-faults", opts)
	t.Logf("ready after %s", d.waitReady(60*time.Second).Round(time.Millisecond))
	t.Logf("every node fresh after %s", c.waitHealthy(d, 60*time.Second).Round(time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()

	step := func(name string, fn func()) {
		t.Logf("== %s", name)
		start := time.Now()
		fn()
		t.Logf("== %s took %s", name, time.Since(start).Round(100*time.Millisecond))
		if t.Failed() {
			t.FailNow()
		}
	}

	step("kill -9 node 3 mid-cycle, then start it", func() {
		c.fault(t, d, 3,
			func() time.Time { return c.killMidCycle(ctx, t, d, 3) },
			func() error { return c.Start(ctx, 3) })
	})

	step("SIGSTOP node 2 for longer than every timeout, then SIGCONT", func() {
		c.fault(t, d, 2,
			func() time.Time {
				if err := c.Pause(ctx, 2); err != nil {
					t.Fatal(err)
				}
				return time.Now()
			},
			func() error { return c.Resume(ctx, 2) })
	})

	step("graceful restart of node 1, the first configured host", func() {
		bad := c.hosts[0]
		c.settle(d)
		start := time.Now()
		others := newOthersTracker(c, bad, start, sourcePeriod)
		var seen, clusterRead bool
		err := d.during(others, func() error { return c.Restart(ctx, 1) }, func(h health) {
			if ok, _ := h.markedBad(bad); ok {
				seen = true
				// With node 1 down, the cluster-wide sources come from another node.
				recent := float64(time.Now().Add(-2*sourcePeriod).UnixNano()) / 1e9
				if h.lastOK[""]["topology"] > recent && h.lastOK[""]["schema"] > recent {
					clusterRead = true
				}
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("node 1 restarted in %s", time.Since(start).Round(100*time.Millisecond))
		if !seen {
			t.Errorf("node 1 was down during a %s restart and partmon never published it stale", time.Since(start).Round(time.Second))
		}
		if !clusterRead {
			t.Errorf("topology and schema were not read from another node while node 1 was down")
		}
		c.recover(t, d, others, time.Now())
	})

	step("SIGTERM partmon, start it again on the same state file", func() {
		d = c.restartPartmon(t, d, opts)
	})

	d.alive()
	if fi, err := os.Stat(state); err != nil || fi.Size() == 0 {
		t.Errorf("state file %s missing or empty: %v", state, err)
	}
}

// fault injects a fault on node n, holds it until partmon has published the
// node stale and faultHold has passed, heals it and waits for partmon to
// recover; the other nodes are tracked the whole time.
func (c *cluster) fault(t *testing.T, d *daemon, n int, inject func() time.Time, heal func() error) {
	t.Helper()
	bad := c.hosts[n-1]
	c.settle(d)
	at := inject()
	others := newOthersTracker(c, bad, at, sourcePeriod)
	var detected time.Duration
	for time.Since(at) < faultHold || detected == 0 {
		d.alive()
		h, err := d.health()
		if err != nil {
			t.Fatalf("partmon stopped answering during the fault: %v", err)
		}
		others.observe(h)
		ok, why := h.markedBad(bad)
		switch {
		case ok && detected == 0:
			detected = time.Since(at)
			f := h.findings[bad]
			t.Logf("%s published stale %s after the fault: %s: %s", bad, detected.Round(time.Millisecond), f.Severity, f.Summary)
		case !ok && detected > 0:
			t.Errorf("%s published fresh again while still down: %s", bad, why)
		case !ok && time.Since(at) > detectBound:
			t.Fatalf("%s not published stale %s after the fault: %s", bad, detectBound, why)
		}
		time.Sleep(500 * time.Millisecond)
	}
	healStart := time.Now()
	if err := d.during(others, heal, nil); err != nil {
		t.Fatal(err)
	}
	t.Logf("node %d healed in %s", n, time.Since(healStart).Round(100*time.Millisecond))
	c.recover(t, d, others, time.Now())
}

// settle waits until every node has been fresh for two source periods in a
// row, so that each fault starts from a steady cluster: a node that has just
// come back still has cold caches (Cassandra's auth caches among them) and
// a JVM that is still compiling.
func (c *cluster) settle(d *daemon) {
	d.t.Helper()
	var since time.Time
	d.waitFor(recoverBound+2*sourcePeriod, "every node fresh for two source periods", func() (bool, string) {
		h, err := d.health()
		if err != nil {
			since = time.Time{}
			return false, err.Error()
		}
		if ok, why := h.healthy(c.hosts); !ok {
			since = time.Time{}
			return false, why
		}
		if since.IsZero() {
			since = time.Now()
		}
		return time.Since(since) >= 2*sourcePeriod, fmt.Sprintf("fresh for %s", time.Since(since).Round(time.Second))
	})
}

// recover waits until partmon publishes every node fresh again (bound
// recoverBound from back, when the node returned), still tracking the
// others, then checks them.
func (c *cluster) recover(t *testing.T, d *daemon, others *othersTracker, back time.Time) {
	t.Helper()
	took := d.waitFor(recoverBound, "every node fresh after the node returned", func() (bool, string) {
		h, err := d.health()
		if err != nil {
			return false, err.Error()
		}
		others.observe(h)
		return h.healthy(c.hosts)
	})
	t.Logf("partmon recovered by itself %s after the node returned", took.Round(time.Millisecond))
	others.check(t)
}

// killMidCycle kills node n 150 ms after one of partmon's source ticks, while
// that tick's sources are still running on it, and returns when it did.
func (c *cluster) killMidCycle(ctx context.Context, t *testing.T, d *daemon, n int) time.Time {
	t.Helper()
	node := c.hosts[n-1]
	tick, longest := d.nextSourceTick(node)
	at := tick.Add(150 * time.Millisecond)
	time.Sleep(time.Until(at))
	t.Logf("killing node %d at tick + 150 ms; at the last tick its sources ran for %.0f ms", n, longest*1000)
	if err := c.Kill(ctx, n); err != nil {
		t.Fatal(err)
	}
	return at
}

// nextSourceTick is when partmon's sources next start, from node's last
// successes (at least 100 ms from now), and how long its longest run took at
// the last tick. Every source runs @every sourcePeriod from the scheduler's
// start, on whole seconds (robfig/cron rounds @every), and a source's last
// success is the start of its run — once a scheduled run has happened: the
// first cycle runs before the scheduler starts, so it first waits for a
// last success to advance.
func (d *daemon) nextSourceTick(node string) (time.Time, float64) {
	d.t.Helper()
	latest := func() (health, float64) {
		h, err := d.health()
		if err != nil {
			d.t.Fatal(err)
		}
		var last float64
		for _, ts := range h.lastOK[node] {
			last = math.Max(last, ts)
		}
		return h, last
	}
	_, first := latest()
	var h health
	var last float64
	d.waitFor(3*sourcePeriod, "a scheduled source run on "+node, func() (bool, string) {
		h, last = latest()
		return last > first, "no new success yet"
	})
	var longest float64
	for _, dur := range h.duration[node] {
		longest = math.Max(longest, dur)
	}
	tick := time.Unix(int64(math.Floor(last)), 0)
	for !tick.After(time.Now().Add(100 * time.Millisecond)) {
		tick = tick.Add(sourcePeriod)
	}
	return tick, longest
}

// restartPartmon stops d with SIGTERM (exit 0 within the shutdown bound, the
// state saved on the way out), starts partmon again on the same state file
// and checks that the history carried over: "history restored" is logged
// and every series of the saved history keeps its oldest point in the first
// state the new process saves. It returns the new daemon.
func (c *cluster) restartPartmon(t *testing.T, d *daemon, opts options) *daemon {
	t.Helper()
	state := opts.stateFile
	d.waitFor(30*time.Second, "traffic history of every node in the state file", func() (bool, string) {
		doc, err := readState(state)
		if err != nil {
			return false, err.Error()
		}
		return len(doc.History.Traffic) >= len(c.hosts), fmt.Sprintf("traffic history of %d hosts", len(doc.History.Traffic))
	})
	sent := time.Now()
	code, took := d.terminate()
	if code != 0 {
		t.Fatalf("partmon exited %d after SIGTERM:\n%s", code, tail(d.proc.Output(), 30))
	}
	if took > shutdownGrace+shutdownSlack {
		t.Errorf("partmon took %s to exit after SIGTERM (bound %s)", took, shutdownGrace+shutdownSlack)
	}
	t.Logf("partmon exited 0 %s after SIGTERM", took.Round(time.Millisecond))
	before, err := readState(state)
	if err != nil {
		t.Fatal(err)
	}
	if before.Saved.Before(sent.Add(-time.Second)) {
		t.Errorf("state file saved at %s, before SIGTERM at %s: not saved on shutdown", before.Saved, sent)
	}
	kept := firstPoints(before.History)

	d2 := c.startPartmon(t, d.proc.Name+"-restarted", opts)
	d2.waitFor(30*time.Second, `log line "history restored"`, func() (bool, string) {
		for _, rec := range logLines(d2.proc.Output()) {
			if rec["msg"] == "history restored" {
				return true, ""
			}
		}
		return false, "not logged"
	})
	t.Logf("restarted partmon ready after %s", d2.waitReady(60*time.Second).Round(time.Millisecond))
	var after stateDoc
	d2.waitFor(30*time.Second, "the restarted partmon to save its state", func() (bool, string) {
		after, err = readState(state)
		return err == nil && after.Saved.After(before.Saved), "not saved again yet"
	})
	now := firstPoints(after.History)
	var lost []string
	for series, first := range kept {
		if now[series] != first {
			lost = append(lost, series)
		}
	}
	if len(lost) > 0 {
		t.Errorf("%d of %d history series lost their pre-restart points: %s", len(lost), len(kept), strings.Join(lost, ", "))
	}
	t.Logf("%d history series carried over the restart", len(kept))
	c.waitHealthy(d2, recoverBound)
	return d2
}

// TestNodePausedAtStart starts partmon while a node accepts connections and
// never answers (SIGSTOP): the first cycle must still finish within a
// bound — the hung node costs connect timeouts, TLS handshake included, not
// the whole cluster's view — with the paused node published stale and the
// others fresh; after SIGCONT partmon recovers by itself.
func TestNodePausedAtStart(t *testing.T) {
	c := ownCluster(t)
	creds := c.readOnlyRole(t, "partmon_paused_start")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := c.Pause(ctx, 2); err != nil {
		t.Fatal(err)
	}
	bad := c.hosts[1]
	d := c.startPartmon(t, "partmon-paused-at-start", options{creds: creds, sourceEvery: sourcePeriod})
	t.Logf("ready after %s with node 2 paused", d.waitReady(detectBound).Round(time.Millisecond))
	took := d.waitFor(detectBound, "node 2 stale and the others fresh", func() (bool, string) {
		h, err := d.health()
		if err != nil {
			return false, err.Error()
		}
		if ok, why := h.markedBad(bad); !ok {
			return false, why
		}
		var others []string
		for _, n := range c.hosts {
			if n != bad {
				others = append(others, n)
			}
		}
		return h.healthy(others)
	})
	t.Logf("node 2 published stale and the others fresh %s after ready", took.Round(time.Millisecond))
	if err := c.Resume(ctx, 2); err != nil {
		t.Fatal(err)
	}
	t.Logf("partmon recovered by itself %s after node 2 resumed", c.waitHealthy(d, recoverBound).Round(time.Millisecond))
}
