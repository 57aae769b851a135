//go:build integration

package e2e

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/partmon/partmon/alertmanager"
	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/tools/promtest"
)

// Counters of partmon's alert pusher.
const (
	pushErrorsMetric = "partmon_alertmanager_errors_total"
	pushedMetric     = "partmon_alerts_pushed_total"
)

// checkAlertmanagerRestart: the real Alertmanager dies while a finding is
// active (the planted oversized partition); partmon keeps collecting and
// serving and counts its failed sends; a new Alertmanager on the same
// address, with empty storage, then receives the alert again from the same
// partmon process, with no restart of partmon.
func checkAlertmanagerRestart(t *testing.T, e *env) {
	big := problems(t, e.truth, analyzer.KindOversizedPartition)[0]
	selector := map[string]string{"alertname": alertmanager.AlertName(analyzer.KindOversizedPartition), "finding_id": "*",
		"keyspace": big.Keyspace, "table": big.Table}
	alerts, err := e.am.Alerts()
	if err != nil {
		t.Fatal(err)
	}
	before := matching(alerts, selector)
	if len(before) == 0 {
		t.Fatalf("no pushed alert %v in Alertmanager before the restart: %s", selector, describe(alerts))
	}
	ids := map[string]bool{}
	for _, a := range before {
		ids[a.Labels["finding_id"]] = true
	}
	pid := e.proc.Cmd.Process.Pid
	errorsBefore := scrapeCounter(t, e.partmon, pushErrorsMetric)
	cycleBefore := scrapeCounter(t, e.partmon, "partmon_last_cycle_timestamp_seconds")

	stopped := time.Now()
	e.am.Process.Stop()
	if exited, _ := e.am.Process.Exited(); !exited {
		t.Fatal("Alertmanager still runs after SIGKILL")
	}
	checkServesWhileAlertmanagerDown(t, e, ids, errorsBefore, max(cycleBefore, float64(stopped.Unix())))
	pushedBefore := scrapeCounter(t, e.partmon, pushedMetric)
	down := time.Since(stopped)

	e.am.Restart()
	restarted := time.Now()
	var got []promtest.Alert
	delivered := promtest.Eventually(90*time.Second, func() bool {
		alerts, err := e.am.Alerts()
		if err != nil {
			return false
		}
		got = nil
		for _, a := range matching(alerts, selector) {
			if ids[a.Labels["finding_id"]] {
				got = append(got, a)
			}
		}
		return len(got) == len(ids)
	})
	if !delivered {
		t.Fatalf("the restarted Alertmanager has %d of the %d pushed alerts %v after 90 s: %s", len(got), len(ids), selector, describe(got))
	}
	took := time.Since(restarted)
	if exited, err := e.proc.Exited(); exited || e.proc.Cmd.Process.Pid != pid {
		t.Fatalf("partmon exited (%v) or was replaced (pid %d, was %d)", err, e.proc.Cmd.Process.Pid, pid)
	}
	if after := scrapeCounter(t, e.partmon, pushedMetric); after <= pushedBefore {
		t.Errorf("%s is %v after the re-delivery, was %v", pushedMetric, after, pushedBefore)
	}
	for _, a := range got {
		if a.Status.State != "active" || !a.EndsAt.After(time.Now()) {
			t.Errorf("re-delivered alert %v is %s, ends %s", a.Labels, a.Status.State, a.EndsAt)
		}
	}
	t.Logf("Alertmanager down %s (%v failed sends counted); %d alerts re-delivered %s after it came back, same partmon (pid %d)",
		down.Round(100*time.Millisecond), scrapeCounter(t, e.partmon, pushErrorsMetric)-errorsBefore, len(got), took.Round(100*time.Millisecond), pid)
}

// checkServesWhileAlertmanagerDown: every send fails and partmon counts it,
// its cycles go on, and it still serves the findings whose alerts it must
// deliver later.
func checkServesWhileAlertmanagerDown(t *testing.T, e *env, ids map[string]bool, errorsBefore, cycleAfter float64) {
	t.Helper()
	promtest.WaitFor(t, 60*time.Second, "partmon to count failed sends to the stopped Alertmanager", func() bool {
		return scrapeCounter(t, e.partmon, pushErrorsMetric) >= errorsBefore+2
	})
	promtest.WaitFor(t, 30*time.Second, "a partmon cycle finished while Alertmanager is down", func() bool {
		return scrapeCounter(t, e.partmon, "partmon_last_cycle_timestamp_seconds") > cycleAfter
	})
	fr, err := fetchFindings(e.partmon)
	if err != nil {
		t.Fatalf("partmon does not serve its findings while Alertmanager is down: %v", err)
	}
	still := 0
	for _, f := range fr.Findings {
		if ids[f.ID] {
			still++
		}
	}
	if still == 0 {
		t.Fatalf("the findings of the pushed alerts %v are gone while Alertmanager is down; nothing left to re-deliver", ids)
	}
}

// scrapeCounter reads partmon's /metrics and sums the samples of one
// family (0 when it has none yet); it fails the test when partmon does not
// answer.
func scrapeCounter(t *testing.T, base, name string) float64 {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(base + "/metrics")
	if err != nil {
		t.Fatalf("partmon does not serve /metrics: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s, %v", resp.Status, err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	sum := 0.0
	if mf, ok := fams[name]; ok {
		for _, m := range mf.GetMetric() {
			switch {
			case m.Counter != nil:
				sum += m.GetCounter().GetValue()
			case m.Gauge != nil:
				sum += m.GetGauge().GetValue()
			case m.Untyped != nil:
				sum += m.GetUntyped().GetValue()
			}
		}
	}
	return sum
}
