//go:build integration

package analyzer_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"go.uber.org/zap/zaptest"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/collector"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/tools/testcluster"
)

// The message of replica_disk_usage's failure (Guardrails.java, 5.0.8), as
// the client's Invalid error carries it.
const diskRefusal = "disk usage exceeds failure threshold"

// diskStep is one step of the growing table: rows of random bytes (they
// do not compress) written by the ordinary role, then flushed. The steps
// start every diskPeriod, so the table grows at a steady pace in time.
const (
	diskRowBytes    = 256 << 10
	diskRowsPerStep = 8 // 2 MiB a step
	diskPeriod      = 8 * time.Second
	diskFlatReads   = 4 // reads before the growth: the node is far and flat
)

// On a real 5.0 node with authentication and data_disk_usage_percentage set
// (warn and fail, on a data_disk_usage_max_disk_size small enough to reach),
// an ordinary role writes a growing table in steps, flushed each step so
// the memtables partmon cannot see hold little. partmon, as a sidecar
// measuring the node's data directory, first stays silent while the node
// is far and flat, then forecasts the fail crossing as critical (the fail
// level refuses that role's writes); the writes go on until Cassandra
// refuses one. The forecasts made before it are held to the moment the node
// turned FULL (and the warn forecast to its turning STUFFED). A
// superuser's write is still accepted then (guardrails never check it).
func TestDiskGuardrailRefusalForecastOnRealNode(t *testing.T) {
	hosts := testcluster.Hosts()
	host := hosts[0]
	env, err := testcluster.Env()
	if err != nil {
		t.Fatal(err)
	}
	s := testcluster.Session(t, host)
	fail := guardrailSetting(t, s, "data_disk_usage_percentage_fail_threshold")
	maxSize := guardrailSetting(t, s, model.DataDiskMaxSizeSetting)
	_, ok := model.ParseGuardrailValue(fail, model.UnitPercent)
	if _, capped := model.ParseGuardrailValue(maxSize, model.UnitBytes); !ok || !capped || env["AUTH"] != "true" {
		t.Skipf("the node at %s runs without a disk guardrail to reach (fail %q, max size %q) or without --auth (%q): "+
			"scripts/test-side.sh's disk step starts one", host, fail, maxSize, env["AUTH"])
	}
	ks := fmt.Sprintf("pm_disk_%d", time.Now().Unix())
	writer := diskWriter(t, s, host, ks)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	t.Cleanup(func() {
		_ = s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec()
		_, _ = nodetoolRetried(context.Background(), 1, "clearsnapshot", "--all") // DROP's snapshot counts on the disk
	})

	coll, err := collector.New(collector.Config{Hosts: []string{host}, Mode: collector.ModeSidecar,
		Username: testcluster.SuperuserName, Password: testcluster.SuperuserPassword,
		DataDisk: collector.DataDiskConfig{Directories: []string{filepath.Join(testcluster.Dir(), "node1", "data")}}},
		zaptest.NewLogger(t).Named("collector"))
	if err != nil {
		t.Fatal(err)
	}
	defer coll.Close()
	th := analyzer.DefaultThresholds()
	th.ForecastMinPoints, th.ForecastMinSpan = 4, 3*diskPeriod
	h := history.New(history.Limits{})
	analyze := func() (*model.Snapshot, *analyzer.Report) {
		if err := coll.CollectAll(ctx); err != nil {
			t.Logf("collection incomplete: %v", err)
		}
		snap := coll.Snapshot()
		return snap, analyzer.Analyze(snap, h, th)
	}

	seen := watchDiskState(ctx, s, host)

	// Far and flat: nothing to forecast, nothing said.
	for i := 0; i < diskFlatReads; i++ {
		if _, r := analyze(); diskFinding(r, host) != nil {
			t.Fatalf("read %d, a flat disk far from %s %%: %+v", i, fail, diskFinding(r, host))
		}
		time.Sleep(diskPeriod / 2)
	}

	var first, last, warn *analyzer.GuardrailCrossing
	var firstAt, lastAt, warnAt, refused time.Time
	var refusal string
	blob := make([]byte, diskRowBytes)
	start, row := time.Now(), 0
	for step := 0; step < 60 && refused.IsZero(); step++ {
		time.Sleep(time.Until(start.Add(time.Duration(step) * diskPeriod)))
		for i := 0; i < diskRowsPerStep && refused.IsZero(); i++ {
			_, _ = rand.Read(blob)
			err := writer.Query("INSERT INTO "+ks+".grow (k, c, v) VALUES (?, ?, ?)", row%16, row, blob).Exec()
			switch {
			case err != nil && strings.Contains(err.Error(), diskRefusal):
				refused, refusal = time.Now(), err.Error()
			case err != nil:
				t.Fatalf("write %d: %v", row, err)
			}
			row++
		}
		nodetoolOrFail(ctx, t, "flush", ks)
		snap, r := analyze()
		if c := diskCrossing(r, host, "warn"); c != nil && c.At > 0 && warn == nil {
			warn, warnAt = c, snap.Taken
		}
		if c := diskCrossing(r, host, "fail"); c != nil && c.At > 0 && refused.IsZero() {
			if first == nil {
				first, firstAt = c, snap.Taken
				if f := diskFinding(r, host); f == nil || f.Severity != finding.SeverityCritical || !strings.Contains(f.Summary, "will refuse") {
					t.Errorf("the first forecast's finding %+v, want critical: the fail level refuses the ordinary role", f)
				}
			}
			last, lastAt = c, snap.Taken
			t.Logf("step %d (%d rows): %.0f %% of %s %%, fail crossing forecast for %s (range %s – %s)", step, row, c.Current, fail,
				time.Unix(c.At, 0).Format(time.TimeOnly), time.Unix(c.Earliest, 0).Format(time.TimeOnly), time.Unix(c.Latest, 0).Format(time.TimeOnly))
		}
	}
	if refused.IsZero() {
		t.Fatalf("no write refused after %d rows (%.0f MiB; fail %s %% of %s)", row, float64(row*diskRowBytes)/(1<<20), fail, maxSize)
	}
	t.Logf("refused at %s: %s", refused.Format(time.TimeOnly), refusal)
	if first == nil {
		t.Fatalf("the refusal at %s was not forecast before it happened", refused.Format(time.TimeOnly))
	}
	states := seen()
	stuffed, full := states["STUFFED"], states["FULL"]
	t.Logf("the node's gossip said SPACIOUS from %s, STUFFED from %s, FULL from %s; the first write refused at %s",
		states["SPACIOUS"].Format(time.TimeOnly), stuffed.Format(time.TimeOnly), full.Format(time.TimeOnly), refused.Format(time.TimeOnly))
	if full.IsZero() || full.After(refused) || states["SPACIOUS"].IsZero() {
		t.Errorf("disk_usage states %v: want SPACIOUS, then FULL before the refusal at %s", states, refused)
	}
	checkDiskForecast(t, "first fail", first, firstAt, full, refused)
	checkDiskForecast(t, "last fail", last, lastAt, full, refused)
	if warn == nil {
		t.Errorf("no forecast of the warn level's crossing (the node turned STUFFED at %s)", stuffed)
	} else {
		checkDiskForecast(t, "first warn", warn, warnAt, stuffed, stuffed)
	}
	// A superuser's write of a step's size: accepted, and it keeps the
	// node past the fail level (Cassandra counts its memtable), where the
	// refusal left it just at it and a system table's compaction could
	// take it back under.
	big := make([]byte, diskRowsPerStep*diskRowBytes)
	_, _ = rand.Read(big)
	if err := s.Query("INSERT INTO "+ks+".grow (k, c, v) VALUES (0, -1, ?)", big).Exec(); err != nil {
		t.Errorf("a superuser's write past the fail level: %v; guardrails never check superusers", err)
	}
	// partmon reads gossip_info.disk_usage, which the node updates on its
	// monitor's next check (every second here): read until FULL, 30 s at most.
	read := false
	for deadline := time.Now().Add(30 * time.Second); !read && time.Now().Before(deadline); {
		if snap, _ := analyze(); diskStateFull(snap, host) {
			read = true
		} else {
			time.Sleep(time.Second)
		}
	}
	if !read {
		t.Errorf("gossip_info.disk_usage of %s, as partmon read it, was not FULL within 30 s of the superuser's write past the fail level", host)
	}
}

// checkDiskForecast holds a forecast made at madeAt, before the write it
// is about (refused), to the moment the node's state crossed (polled from
// gossip_info: Cassandra's own log line is rate-limited, one per message
// per 10 minutes, so a second run on a node would miss it).
// Tolerance: partmon's used bytes miss the memtables (up to one step's
// rows before its flush; Cassandra counts them, so it crosses up to a
// period sooner), Cassandra's check runs every monitor interval (1 s in the
// test), and the fit of a staircase (2 MiB a period) passes the level up to
// a period away from the step that does: two periods, or a quarter of the
// lead when the forecast was made further ahead.
func checkDiskForecast(t *testing.T, which string, c *analyzer.GuardrailCrossing, madeAt, crossed, refused time.Time) {
	t.Helper()
	forecast := time.Unix(c.At, 0)
	lead, miss := crossed.Sub(madeAt), forecast.Sub(crossed)
	tol := max(lead/4, 2*diskPeriod)
	t.Logf("%s forecast %s, made %s before the node's state crossed at %s: off by %s (tolerance %s)", which,
		forecast.Format(time.TimeOnly), lead.Round(time.Second), crossed.Format(time.TimeOnly), miss.Round(time.Second), tol)
	if crossed.IsZero() || !madeAt.Before(refused) || miss < -tol || miss > tol {
		t.Errorf("%s forecast %s (made %s), crossed %s, refused %s: off by %s, beyond %s", which, forecast, madeAt, crossed, refused, miss, tol)
	}
}

// watchDiskState polls the node's gossiped disk_usage (the state its
// DiskUsageMonitor sets, gossiped at once for itself) every 250 ms until
// ctx ends; seen says when each state was first seen.
func watchDiskState(ctx context.Context, s *gocql.Session, host string) (seen func() map[string]time.Time) {
	var mu sync.Mutex
	first := map[string]time.Time{}
	go func() {
		for tick := time.NewTicker(250 * time.Millisecond); ; {
			select {
			case <-ctx.Done():
				tick.Stop()
				return
			case <-tick.C:
			}
			var addr, state string
			iter := s.Query("SELECT address, disk_usage FROM system_views.gossip_info").WithContext(ctx).Iter()
			for iter.Scan(&addr, &state) {
				mu.Lock()
				if _, ok := first[state]; !ok && addr == host {
					first[state] = time.Now()
				}
				mu.Unlock()
			}
			_ = iter.Close()
		}
	}()
	return func() map[string]time.Time {
		mu.Lock()
		defer mu.Unlock()
		return maps.Clone(first)
	}
}

// diskWriter creates the test's keyspace and its growing table (no
// compaction: a compaction's copy would double the bytes for a moment; no
// compression: the bytes written are the bytes on disk) and an ordinary
// role that may write it, and returns that role's session.
func diskWriter(t *testing.T, s *gocql.Session, host, ks string) *gocql.Session {
	t.Helper()
	return ordinaryWriter(t, s, host, ks, "pm_disk_writer", []string{
		"CREATE TABLE " + ks + ".grow (k int, c int, v blob, PRIMARY KEY (k, c)) WITH compaction = " +
			"{'class': 'SizeTieredCompactionStrategy', 'enabled': 'false'} AND compression = {'enabled': 'false'}",
	})
}

// diskCrossing is the node's data disk against one level.
func diskCrossing(r *analyzer.Report, host, level string) *analyzer.GuardrailCrossing {
	if r.Guardrails == nil {
		return nil
	}
	for i, c := range r.Guardrails.Crossings {
		if c.Node == host && c.Guardrail == "data_disk_usage_percentage" && c.Level == level {
			return &r.Guardrails.Crossings[i]
		}
	}
	return nil
}

// diskFinding is the guardrail_crossing finding of the node's data disk.
func diskFinding(r *analyzer.Report, host string) *finding.Finding {
	for i, f := range r.Findings {
		if f.Kind == analyzer.KindGuardrailCrossing && f.Table == "" && f.Node == host {
			return &r.Findings[i]
		}
	}
	return nil
}

func diskStateFull(snap *model.Snapshot, host string) bool {
	for _, nd := range snap.PerNode {
		if nd != nil && nd.DiskUsageStates[host] == "FULL" {
			return true
		}
	}
	return false
}
