package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/tools/snapfuzz"
	"github.com/partmon/partmon/web"
)

// The daemon keeps serving /metrics when a rule panics (a view without schema: the
// first cycle died in the wide_partition rule): the report is published
// with the other rules' findings and partmon_analyzer_rule_failures says
// which rule failed; and when a cycle panics outside the analyzer, the
// last report stays served. The daemon is the one runDaemon builds, its
// collector pointed at a closed port; its snapshot is injected (the seam)
// and a panicking rule added to the kinds table.
func TestDaemonServesAfterARulePanics(t *testing.T) {
	remove := analyzer.AddKind(analyzer.KindFacts{Name: "test_panicking_rule", Label: "test",
		Rule: func(*model.Snapshot) []finding.Finding {
			var view *model.Table // the nil schema of the issue
			//nolint:govet // nilness: the nil dereference is the panic this test recovers from
			return []finding.Finding{{Table: view.Name}}
		}})
	defer remove()
	cfg := defaultConfig()
	cfg.Collector.Mode, cfg.Collector.Hosts = "cluster", []string{closedLoopback(t, "127.0.0.1")}
	cfg.State.File = filepath.Join(t.TempDir(), "state.json")
	d, err := newDaemon(cfg, zap.NewNop(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.collector.Close()
	snap := snapfuzz.ViewWithoutSchema()
	for _, nd := range snap.PerNode {
		nd.Tables["shop.orders"].MaxPartitionBytes = 124 << 20 // an oversized_partition finding of another rule
	}
	d.snapshot = func() *model.Snapshot { return snap }
	handler, err := web.NewHandler(d.latest, d.exporter, nil, web.HandlerOptions{Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	metrics := func() string {
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		body, _ := io.ReadAll(rec.Result().Body)
		if rec.Code != http.StatusOK {
			t.Fatalf("/metrics: %d %s", rec.Code, body)
		}
		return string(body)
	}
	want := []string{`partmon_analyzer_rule_failures{rule="test_panicking_rule"} 1`, `partmon_analyzer_rule_failures{rule="wide_partition"} 0`,
		`kind="oversized_partition"`, `table="orders"`}

	d.analyze(time.Now())
	got := metrics()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("/metrics after a rule panicked lacks %s", w)
		}
	}
	if r := d.latest.Report(); r == nil || !strings.Contains(strings.Join(r.Notes, "\n"), "rule test_panicking_rule failed") {
		t.Errorf("the published report has no note naming the failed rule")
	}

	d.snapshot = func() *model.Snapshot { panic("a bug on the way to the analyzer") }
	d.analyze(time.Now()) // must return: the test dies here otherwise
	if again := metrics(); !strings.Contains(again, want[0]) || !strings.Contains(again, want[2]) {
		t.Errorf("/metrics after a cycle panicked no longer serves the last report")
	}
}
