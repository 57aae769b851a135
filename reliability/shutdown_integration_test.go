//go:build integration

package reliability

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// TestShutdownMidCycle sends SIGTERM while partmon's source runs are waiting
// on a node that has just been paused (its queries wait for their timeout,
// the node's other queries queue behind them): partmon exits 0 within
// shutdownGrace plus shutdownSlack, saves its state on the way out and logs
// the shutdown — and the log shows that runs on the paused node were still
// in flight when the signal came.
func TestShutdownMidCycle(t *testing.T) {
	c := ownCluster(t)
	creds := c.readOnlyRole(t, "partmon_shutdown")
	state := filepath.Join(t.TempDir(), "state.json")
	d := c.startPartmon(t, "partmon-shutdown", options{creds: creds, stateFile: state, sourceEvery: sourcePeriod})
	d.waitReady(60 * time.Second)
	c.waitHealthy(d, 60*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	// Pause node 2 just before a source tick, so the tick's runs find a
	// session that no longer answers; SIGTERM lands 300 ms into them.
	tick, _ := d.nextSourceTick(c.hosts[0])
	if time.Until(tick) < time.Second {
		tick = tick.Add(sourcePeriod)
	}
	time.Sleep(time.Until(tick.Add(-500 * time.Millisecond)))
	if err := c.Pause(ctx, 2); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Until(tick.Add(300 * time.Millisecond)))

	sent := time.Now()
	code, took := d.terminate()
	if code != 0 {
		t.Fatalf("partmon exited %d after SIGTERM:\n%s", code, tail(d.proc.Output(), 30))
	}
	if took > shutdownGrace+shutdownSlack {
		t.Errorf("partmon took %s to exit after SIGTERM with a paused node (bound %s)", took, shutdownGrace+shutdownSlack)
	}
	doc, err := readState(state)
	if err != nil {
		t.Fatalf("state after SIGTERM: %v", err)
	}
	if doc.Saved.Before(sent) {
		t.Errorf("state saved at %s, before SIGTERM at %s", doc.Saved.Format(time.RFC3339Nano), sent.Format(time.RFC3339Nano))
	}
	var shuttingDown, stopped bool
	inFlight := 0
	for _, rec := range logLines(d.proc.Output()) {
		switch {
		case rec["msg"] == "shutting down":
			shuttingDown = true
		case rec["msg"] == "partmon stopped":
			stopped = true
		case shuttingDown && rec["msg"] == "source failed" && rec["node"] == c.hosts[1]:
			inFlight++
		}
	}
	if !shuttingDown || !stopped {
		t.Errorf(`log lines "shutting down" (%v) and "partmon stopped" (%v) missing`, shuttingDown, stopped)
	}
	if inFlight == 0 {
		t.Errorf("no source run on the paused node ended after SIGTERM: the signal did not land mid-cycle")
	}
	t.Logf("SIGTERM 300 ms into a tick on a just-paused node: %d runs on it were in flight; exit 0 after %s, state saved %s after the signal",
		inFlight, took.Round(time.Millisecond), doc.Saved.Sub(sent).Round(time.Millisecond))
}
