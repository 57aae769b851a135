package exporter

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/tools/reporttest"
)

// TestDownBeforeFirstReport: with the database unreachable from the start,
// the series the rules read for a blind start exist (partmon_up 0, when
// partmon started, the configured thresholds) and no last cycle: a 0
// there would read as a cycle in 1970.
func TestDownBeforeFirstReport(t *testing.T) {
	for _, published := range []bool{false, true} {
		latest := &publish.Latest{}
		e := New(latest, Options{Cluster: "prod", Thresholds: analyzer.DefaultThresholds(), BuildInfo: fixtureBuild, Started: reporttest.Time})
		if published {
			latest.Publish(reporttest.Failed()) // a failed cycle: sources, no report
		}
		got, err := testutil.CollectAndFormat(e, expfmt.TypeTextPlain,
			"partmon_last_cycle_timestamp_seconds", "partmon_threshold_stale_after_seconds", "partmon_up")
		if err != nil {
			t.Fatal(err)
		}
		process, err := testutil.CollectAndFormat(e.Process(), expfmt.TypeTextPlain, "partmon_start_time_seconds")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, process...)
		if strings.Contains(string(got), "partmon_last_cycle_timestamp_seconds") {
			t.Errorf("published a failed cycle: %v: a last cycle's timestamp before any cycle:\n%s", published, got)
		}
		for _, want := range []string{"\npartmon_start_time_seconds{cluster=\"prod\"} 1.7723664e+09\n", "\npartmon_threshold_stale_after_seconds{cluster=\"prod\"} 900\n", "\npartmon_up 0\n"} {
			if !strings.Contains(string(got), want) {
				t.Errorf("published a failed cycle: %v: no %q in\n%s", published, strings.TrimSpace(want), got)
			}
		}
	}
}

// TestDownAfterGoodReport: once the last good report is older than the
// latest (failed) cycle, every node it knew is stale and its data older.
func TestDownAfterGoodReport(t *testing.T) {
	latest := &publish.Latest{}
	e := New(latest, Options{BuildInfo: fixtureBuild})
	good := reporttest.Cluster()
	latest.Publish(good)
	if n := testutil.CollectAndCount(e, "partmon_node_stale"); n == 0 {
		t.Fatal("the fixture has no node")
	}
	latest.Publish(reporttest.Failed())
	stale, err := testutil.CollectAndFormat(e, expfmt.TypeTextPlain, "partmon_node_stale", "partmon_node_data_age_seconds")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(stale), "\n") {
		if strings.HasPrefix(l, "partmon_node_stale{") && !strings.HasSuffix(l, "} 1") {
			t.Errorf("a node not stale while the cycle failed: %s", l)
		}
	}
	if got, want := strings.Count(string(stale), "partmon_node_stale{"), len(good.Nodes); got != want {
		t.Errorf("%d node_stale series, want %d", got, want)
	}
}
