package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"
	"go.uber.org/zap"

	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/tools/snapfuzz"
)

// TestCycleDurationIsTheCyclesOwn: a scheduled cycle analyses sources that
// last ran a minute ago (each on its own schedule); the cycle itself takes
// milliseconds, and partmon_cycle_duration_seconds says so, not the minute
// since the newest source run (which is the schedule's interval).
func TestCycleDurationIsTheCyclesOwn(t *testing.T) {
	cfg := defaultConfig()
	cfg.Collector.Mode, cfg.Collector.Hosts = "cluster", []string{closedLoopback(t, "127.0.0.1")}
	cfg.State.File = filepath.Join(t.TempDir(), "state.json")
	d, err := newDaemon(cfg, zap.NewNop(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.collector.Close()
	snap := snapfuzz.ViewWithoutSchema()
	snap.Taken = time.Now().Add(-time.Minute)
	d.snapshot = func() *model.Snapshot { return snap }

	start := time.Now()
	d.analyze(start)
	took := time.Since(start).Seconds()
	if d.latest.Report() == nil {
		t.Fatal("no report published")
	}
	text, err := testutil.CollectAndFormat(d.exporter, expfmt.TypeTextPlain, "partmon_cycle_duration_seconds")
	if err != nil {
		t.Fatal(err)
	}
	var got float64
	for _, l := range strings.Split(string(text), "\n") {
		if v, ok := strings.CutPrefix(l, "partmon_cycle_duration_seconds "); ok {
			got, _ = strconv.ParseFloat(v, 64)
		}
	}
	if got <= 0 || got > took {
		t.Errorf("partmon_cycle_duration_seconds %g, want the cycle's own time: above 0 and at most the %g s analyze took", got, took)
	}
}
