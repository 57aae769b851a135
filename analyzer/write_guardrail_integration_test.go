//go:build integration

package analyzer_test

import (
	"context"
	"fmt"
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

// The growing collection: an ordinary role rewrites one row's whole set
// (each write carries all of it, as the request path measures) every
// writePeriod, writeStepItems more items each time, from writeFirstItems
// (under the warn level) on.
const (
	writePeriod     = 1500 * time.Millisecond
	writeStepItems  = 8
	writeFirstItems = 70
	writeMaxSteps   = 80
)

// growColumn is new each run: the node's log keeps an earlier run's lines
// for a column of the same name, and the lines name no table.
var growColumn = fmt.Sprintf("items_%d", time.Now().Unix()%1_000_000)

// On a real 5.0 or 4.1 node with authentication and collection_size set
// (warn, fail), an ordinary role writes a set growing at a steady pace until
// Cassandra refuses the write. partmon, reading only the node's own log
// (system_views.system_logs on 5.0, its system.log as a sidecar on 4.1,
// which has no such table) in a loop of its own, forecasts the refusal
// before it happens as a critical guardrail_crossing naming the column
// and the table (the one table holding a collection of that name) and no
// key; the refused write is then a crossing of its own. A table whose sets
// stay small is silent throughout. Default thresholds.
func TestWriteGuardrailRefusalForecastOnRealNode(t *testing.T) {
	hosts := testcluster.Hosts()
	host := hosts[0]
	env, err := testcluster.Env()
	if err != nil {
		t.Fatal(err)
	}
	s := testcluster.Session(t, host)
	fail := guardrailSetting(t, s, "collection_size_fail_threshold")
	if _, ok := model.ParseGuardrailValue(fail, model.UnitBytes); !ok || env["AUTH"] != "true" {
		t.Skipf("the node at %s runs without collection_size_fail_threshold (%q) or without --auth (%q): "+
			"scripts/test-side.sh's write guardrail step starts one", host, fail, env["AUTH"])
	}
	ks := fmt.Sprintf("pm_wguard_%d", time.Now().Unix())
	t.Cleanup(func() { _ = s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec() })
	writer := ordinaryWriter(t, s, host, ks, "pm_wguard_writer", []string{
		"CREATE TABLE " + ks + ".grow (id text PRIMARY KEY, " + growColumn + " set<text>)",
		"CREATE TABLE " + ks + ".calm (k int PRIMARY KEY, tags set<text>)",
	})
	for i := 0; i < 50; i++ {
		if err := writer.Query("UPDATE "+ks+".calm SET tags = ? WHERE k = ?", []string{"a", "b", "c"}, i).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	coll, err := collector.New(writeGuardrailCollector(t, s, host), zaptest.NewLogger(t).Named("collector"))
	if err != nil {
		t.Fatal(err)
	}
	defer coll.Close()
	h := history.New(history.Limits{})
	analyze := func() (*model.Snapshot, *analyzer.Report) {
		if err := coll.CollectAll(ctx); err != nil {
			t.Logf("collection incomplete: %v", err)
		}
		snap := coll.Snapshot()
		return snap, analyzer.Analyze(snap, h, analyzer.DefaultThresholds())
	}

	// One read before the set grows: the first connects and reads the
	// schema, which on a busy box took longer than the set takes to reach
	// the refusal; a sidecar watching the node has long done it.
	if _, r := analyze(); writeCrossing(r) != nil {
		t.Fatalf("a crossing of %s before the set grew: %+v", growColumn, writeCrossing(r))
	}
	refused := growSet(ctx, t, writer, ks)
	var first *analyzer.GuardrailCrossing
	var firstAt time.Time
	var firstFinding *finding.Finding
	for reads := 0; ; reads++ {
		snap, r := analyze()
		checkWriteCalm(t, r, ks)
		done, at, msg := refused()
		c := writeCrossing(r)
		if c != nil && c.At > 0 && first == nil && (!done || snap.Taken.Before(at)) {
			first, firstAt, firstFinding = c, snap.Taken, writeFinding(r, ks)
			t.Logf("read %d at %s: %.0f of %.0f bytes, fail crossing forecast for %s (range %s – %s)", reads, snap.Taken.Format(time.TimeOnly),
				c.Current, c.Threshold, time.Unix(c.At, 0).Format(time.TimeOnly), time.Unix(c.Earliest, 0).Format(time.TimeOnly), time.Unix(c.Latest, 0).Format(time.TimeOnly))
		}
		if done {
			t.Logf("refused at %s: %s", at.Format(time.StampMilli), msg)
			break
		}
		if ctx.Err() != nil {
			t.Fatal("no write refused in time")
		}
		time.Sleep(writePeriod / 4)
	}
	_, at, _ := refused()
	if first == nil {
		t.Fatalf("the refusal at %s was not forecast before it happened", at.Format(time.TimeOnly))
	}
	if first.Keyspace != ks || first.Table != "grow" || first.Column != growColumn || first.Key != "" || first.Refuses == "" {
		t.Errorf("forecast %+v: want column %s of %s.grow, no key, refusing", first, growColumn, ks)
	}
	if firstFinding == nil || firstFinding.Severity != finding.SeverityCritical || !strings.Contains(firstFinding.Summary, "will refuse") {
		t.Errorf("the forecast's finding %+v, want critical: the fail level refuses the ordinary role", firstFinding)
	}
	// Tolerance, written before the first run: the set grows in steps, so
	// the fitted line passes the level up to a period from the write that
	// does; the lines' times are whole seconds; the forecast is made from
	// what the log held at the read, up to a read's length stale. Two
	// periods, or a quarter of the lead when the forecast was made further
	// ahead.
	forecast := time.Unix(first.At, 0)
	lead, miss := at.Sub(firstAt), forecast.Sub(at)
	tol := max(lead/4, 2*writePeriod)
	t.Logf("forecast %s, made %s before the refusal at %s: off by %s (tolerance %s)", forecast.Format(time.TimeOnly),
		lead.Round(time.Millisecond), at.Format(time.TimeOnly), miss.Round(time.Millisecond), tol)
	if miss < -tol || miss > tol {
		t.Errorf("forecast %s, refused %s: off by %s, beyond %s", forecast, at, miss, tol)
	}

	_, r := analyze()
	checkWriteCalm(t, r, ks)
	if c := writeCrossing(r); c == nil || !c.Crossed || c.Refused < 1 || c.Table != "grow" {
		t.Errorf("after the refusal: %+v, want crossed with the refused write counted", c)
	}
	if f := writeFinding(r, ks); f == nil || f.Severity != finding.SeverityCritical || !strings.Contains(f.Summary, "refused") {
		t.Errorf("after the refusal: finding %+v, want critical, refused", f)
	}
}

// writeGuardrailCollector reads the node's log where its version keeps
// it: system_views.system_logs (5.0), else its system.log as its sidecar.
func writeGuardrailCollector(t *testing.T, s *gocql.Session, host string) collector.Config {
	t.Helper()
	var version string
	if err := s.Query("SELECT release_version FROM system.local").Scan(&version); err != nil {
		t.Fatal(err)
	}
	cfg := collector.Config{Hosts: []string{host}, Mode: collector.ModeCluster,
		Username: testcluster.SuperuserName, Password: testcluster.SuperuserPassword}
	if strings.HasPrefix(version, "4.") {
		cfg.Mode = collector.ModeSidecar
		cfg.Logs = collector.LogsConfig{File: filepath.Join(testcluster.Dir(), "node1", "logs", "system.log"), Timezone: "Local"}
	}
	t.Logf("Cassandra %s: the log read %s", version, map[bool]string{true: "from " + cfg.Logs.File, false: "from system_views.system_logs"}[cfg.Logs.File != ""])
	return cfg
}

// growSet writes the growing set in a goroutine of its own until a write
// is refused; refused says whether, when and with what message.
func growSet(ctx context.Context, t *testing.T, writer *gocql.Session, ks string) (refused func() (bool, time.Time, string)) {
	var mu sync.Mutex
	var done bool
	var at time.Time
	var msg string
	go func() {
		start := time.Now()
		items := make([]string, 0, writeFirstItems+writeMaxSteps*writeStepItems)
		for step := 0; step < writeMaxSteps && ctx.Err() == nil; step++ {
			time.Sleep(time.Until(start.Add(time.Duration(step) * writePeriod)))
			for len(items) < writeFirstItems+step*writeStepItems {
				items = append(items, fmt.Sprintf("item-%05d-%s", len(items), strings.Repeat("x", 18)))
			}
			err := writer.Query("UPDATE "+ks+".grow SET "+growColumn+" = ? WHERE id = 'hot'", items).WithContext(ctx).Exec()
			if err != nil {
				mu.Lock()
				done, at, msg = true, time.Now(), err.Error()
				mu.Unlock()
				if !strings.Contains(msg, "collection_size") {
					t.Errorf("write of %d items: %v, want collection_size's refusal", len(items), err)
				}
				return
			}
		}
	}()
	return func() (bool, time.Time, string) {
		mu.Lock()
		defer mu.Unlock()
		return done, at, msg
	}
}

// ordinaryWriter creates ks with the tables and an ordinary role (no
// superuser: guardrails check it) that may modify it, and returns that
// role's session. The disk guardrail's test writes through it too.
func ordinaryWriter(t *testing.T, s *gocql.Session, host, ks, role string, tables []string) *gocql.Session {
	t.Helper()
	password := role + "_pw"
	qs := append([]string{"CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"}, tables...)
	qs = append(qs, "DROP ROLE IF EXISTS "+role,
		"CREATE ROLE "+role+" WITH LOGIN = true AND SUPERUSER = false AND PASSWORD = '"+password+"'",
		"GRANT MODIFY ON KEYSPACE "+ks+" TO "+role)
	for _, q := range qs {
		if err := s.Query(q).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	cfg := testcluster.NewClusterConfig(host)
	cfg.HostFilter = gocql.WhiteListHostFilter(host)
	cfg.Authenticator = gocql.PasswordAuthenticator{Username: role, Password: password}
	var w *gocql.Session
	var err error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(time.Second) {
		if w, err = cfg.CreateSession(); err == nil {
			t.Cleanup(w.Close)
			return w
		}
	}
	t.Fatalf("logging in as %s: %v", role, err)
	return nil
}

// writeCrossing is collection_size's fail crossing of growColumn.
func writeCrossing(r *analyzer.Report) *analyzer.GuardrailCrossing {
	if r.Guardrails == nil {
		return nil
	}
	for i, c := range r.Guardrails.Crossings {
		if c.Column == growColumn && c.Guardrail == "collection_size" && c.Level == "fail" {
			return &r.Guardrails.Crossings[i]
		}
	}
	return nil
}

func writeFinding(r *analyzer.Report, ks string) *finding.Finding {
	for i, f := range r.Findings {
		if f.Kind == analyzer.KindGuardrailCrossing && f.Keyspace == ks && f.Table == "grow" {
			return &r.Findings[i]
		}
	}
	return nil
}

// checkWriteCalm: the table of small sets has no finding and no crossing.
func checkWriteCalm(t *testing.T, r *analyzer.Report, ks string) {
	t.Helper()
	for _, f := range r.Findings {
		if f.Keyspace == ks && f.Table == "calm" {
			t.Errorf("the calm table has a finding: %s %s", f.Kind, f.Summary)
		}
	}
	if r.Guardrails == nil {
		return
	}
	for _, c := range r.Guardrails.Crossings {
		if (c.Keyspace == ks && c.Table == "calm") || c.Column == "tags" {
			t.Errorf("the calm table crosses: %+v", c)
		}
	}
}
