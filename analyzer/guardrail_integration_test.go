//go:build integration

package analyzer_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
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

// guardrailKeyspace is the test's own keyspace, new each run: the node's
// log keeps an earlier run's lines for the same key.
var guardrailKeyspace = fmt.Sprintf("pm_guard_%d", time.Now().Unix())

// The guardrail's failure line for the planted key, as 5.0.8 logs it at the
// sstable write (flush or compaction) that first holds it past the threshold.
var guardrailFailLine = regexp.MustCompile(`^ERROR \[[^\]]+\] (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),\d+ Guardrail - Guardrail partition_size violated: Partition ` +
	guardrailKeyspace + `\.grow:hot .* exceeds the failure threshold`)

// On a real 5.0 node whose partition_size guardrail is set (warn and fail),
// a key grows at a steady pace, compacted into one sstable each step (the
// guardrail judges a partition per sstable): partmon forecasts the fail
// crossing from the table's history before it happens, the forecast is
// held to the crossing Cassandra logs, and a small table stays silent. The
// fail level only logs, so the finding is a warning, never "will refuse".
func TestGuardrailCrossingForecastOnRealNode(t *testing.T) {
	hosts := testcluster.Hosts()
	s := testcluster.Session(t, hosts[0])
	warn, fail := guardrailSetting(t, s, "partition_size_warn_threshold"), guardrailSetting(t, s, "partition_size_fail_threshold")
	failBytes, ok := model.ParseGuardrailValue(fail, model.UnitBytes)
	if !ok {
		t.Skipf("the node at %s runs without partition_size_fail_threshold (warn %q, fail %q): start it with "+
			"PARTMON_NODE_JVM_OPTS='-Dcassandra.config.allow_system_properties=true -Dcassandra.settings.partition_size_warn_threshold=8MiB "+
			"-Dcassandra.settings.partition_size_fail_threshold=16MiB' deploy/local/cluster up --nodes 1", hosts[0], warn, fail)
	}
	t.Cleanup(func() { _ = s.Query("DROP KEYSPACE IF EXISTS " + guardrailKeyspace).Exec() })
	for _, q := range []string{
		"CREATE KEYSPACE " + guardrailKeyspace + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE " + guardrailKeyspace + ".grow (k text, c int, v blob, PRIMARY KEY (k, c))",
		"CREATE TABLE " + guardrailKeyspace + ".calm (k int PRIMARY KEY, v text)",
	} {
		if err := s.Query(q).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for i := 0; i < 200; i++ {
		if err := s.Query("INSERT INTO "+guardrailKeyspace+".calm (k, v) VALUES (?, ?)", i, "a small row").Exec(); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	coll, err := collector.New(collector.Config{Hosts: hosts, Mode: collector.ModeCluster}, zaptest.NewLogger(t).Named("collector"))
	if err != nil {
		t.Fatal(err)
	}
	defer coll.Close()

	th := analyzer.DefaultThresholds()
	th.ForecastMinPoints, th.ForecastMinSpan = 4, 30*time.Second
	h := history.New(history.Limits{})
	const rowBytes, rowsPerStep = 128 << 10, 4 // 512 KiB a step
	blob := make([]byte, rowBytes)
	var forecast, madeAt, crossed time.Time
	var forecastSev finding.Severity
	row := 0
	for step := 0; step < 80 && crossed.IsZero(); step++ {
		for i := 0; i < rowsPerStep; i++ {
			if err := s.Query("INSERT INTO "+guardrailKeyspace+".grow (k, c, v) VALUES ('hot', ?, ?)", row, blob).Exec(); err != nil {
				t.Fatal(err)
			}
			row++
		}
		nodetoolOrFail(ctx, t, "flush", guardrailKeyspace)
		nodetoolOrFail(ctx, t, "compact", guardrailKeyspace, "grow")
		crossed = failCrossing(t)
		if err := coll.CollectAll(ctx); err != nil {
			t.Logf("collection incomplete: %v", err)
		}
		snap := coll.Snapshot()
		r := analyzer.Analyze(snap, h, th)
		checkCalmSilent(t, r)
		time.Sleep(2 * time.Second) // a steady pace in time, as a real key grows
		if c, sev := growCrossing(r); forecast.IsZero() && crossed.IsZero() && c != nil && c.At > 0 {
			forecast, madeAt, forecastSev = time.Unix(c.At, 0), snap.Taken, sev
			t.Logf("step %d (%d rows, %.1f MiB): fail crossing forecast for %s (range %s – %s), made at %s",
				step, row, float64(row*rowBytes)/(1<<20), forecast.Format(time.TimeOnly),
				time.Unix(c.Earliest, 0).Format(time.TimeOnly), time.Unix(c.Latest, 0).Format(time.TimeOnly), madeAt.Format(time.TimeOnly))
		}
	}
	if crossed.IsZero() {
		t.Fatalf("no guardrail failure line for %s.grow:hot after %d rows (%.0f MiB; fail threshold %s)", guardrailKeyspace, row, float64(row*rowBytes)/(1<<20), fail)
	}
	if forecast.IsZero() {
		t.Fatalf("the crossing at %s (log) was not forecast before it happened", crossed.Format(time.TimeOnly))
	}
	lead := crossed.Sub(madeAt)
	miss := forecast.Sub(crossed)
	t.Logf("fail threshold %s (%.0f bytes): forecast %s made %s before the logged crossing at %s: off by %s",
		fail, failBytes, forecast.Format(time.TimeOnly), lead.Round(time.Second), crossed.Format(time.TimeOnly), miss.Round(time.Second))
	// Tolerance: the table's largest partition is read as max_partition_size,
	// whole MiB bucket bounds, so the fitted pace is off by up to one MiB over
	// the fitted span; half the lead time, and never less than 30 s, holds it.
	tol := max(lead/2, 30*time.Second)
	if miss < -tol || miss > tol {
		t.Errorf("forecast %s, logged crossing %s: off by %s, beyond the tolerance %s", forecast, crossed, miss, tol)
	}
	if forecastSev != finding.SeverityWarning {
		t.Errorf("severity %v, want warning: partition_size's fail level only logs", forecastSev)
	}
}

func guardrailSetting(t *testing.T, s *gocql.Session, name string) string {
	t.Helper()
	var v *string
	if err := s.Query("SELECT value FROM system_views.settings WHERE name = ?", name).Scan(&v); err != nil {
		t.Fatalf("reading %s: %v", name, err)
	}
	if v == nil {
		return ""
	}
	return *v
}

// growCrossing is the fail-level crossing of pm_guard.grow (the key when a
// source names it, else the table's largest partition) and the severity of
// the table's guardrail_crossing finding.
func growCrossing(r *analyzer.Report) (*analyzer.GuardrailCrossing, finding.Severity) {
	var sev finding.Severity
	for _, f := range r.Findings {
		if f.Kind == analyzer.KindGuardrailCrossing && f.Keyspace == guardrailKeyspace && f.Table == "grow" {
			sev = f.Severity
		}
	}
	if r.Guardrails == nil {
		return nil, sev
	}
	var found *analyzer.GuardrailCrossing
	for i, c := range r.Guardrails.Crossings {
		if c.Keyspace == guardrailKeyspace && c.Table == "grow" && c.Guardrail == "partition_size" && c.Level == "fail" && c.At > 0 {
			if found == nil || c.Key == "hot" {
				found = &r.Guardrails.Crossings[i]
			}
		}
	}
	return found, sev
}

func checkCalmSilent(t *testing.T, r *analyzer.Report) {
	t.Helper()
	for _, f := range r.Findings {
		if f.Keyspace == guardrailKeyspace && f.Table == "calm" {
			t.Errorf("the small table has a finding: %s %s", f.Kind, f.Summary)
		}
	}
	if r.Guardrails == nil {
		return
	}
	for _, c := range r.Guardrails.Crossings {
		if c.Keyspace == guardrailKeyspace && c.Table == "calm" && (c.At > 0 || c.Crossed) {
			t.Errorf("the small table crosses: %+v", c)
		}
	}
}

// failCrossing is the time of the first guardrail failure line for the
// planted key in node 1's system.log (zero when there is none yet).
func failCrossing(t *testing.T) time.Time {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testcluster.Dir(), "node1", "logs", "system.log"))
	if err != nil {
		t.Fatalf("reading node 1's log: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if m := guardrailFailLine.FindStringSubmatch(line); m != nil {
			at, err := time.ParseInLocation("2006-01-02 15:04:05", m[1], time.Local)
			if err != nil {
				t.Fatalf("log time %q: %v", m[1], err)
			}
			return at
		}
	}
	return time.Time{}
}

func nodetoolOrFail(ctx context.Context, t *testing.T, args ...string) {
	t.Helper()
	if out, err := nodetoolRetried(ctx, 1, args...); err != nil {
		t.Fatalf("nodetool %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}
