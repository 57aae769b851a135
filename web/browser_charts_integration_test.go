//go:build integration

package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/gocql/gocql"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/tools/promtest"
	"github.com/partmon/partmon/tools/testcluster"
)

const growKeyspace, growTable = "pm_growchart", "t"

// TestChartsInBrowser runs the real daemon on the fixture cluster while the
// test grows one partition of a scratch table: half a MiB, flushed on every
// node (max_partition_size reads 1 MiB), the daemon records it, then 3 MiB
// more in one sstable (it reads 4 MiB), so the history has two real sizes
// within a minute or two (no state file is made up). In Chromium, with
// JavaScript on and off: no console errors; the table's growth chart with
// its threshold lines and, the history being minutes long, no forecast line
// but the sentence why; the replica rings of the RF-3 keyspaces (the pm_*
// fixtures and the scratch one share one replication) with three rings of
// one arc per token range; no sideways scrolling at 1,280 px or on a phone.
// PARTMON_SCREENSHOTS=DIR saves growth.png and replicas.png there.
func TestChartsInBrowser(t *testing.T) {
	chromium := needChromium(t)
	hosts := testcluster.Hosts()
	s := testcluster.Session(t, hosts[0])
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	dc := createGrowTable(t, s, len(hosts))
	growAndFlush(ctx, t, s, len(hosts), 64) // 64 rows of 8 KiB: 0.5 MiB

	url := startDaemon(t, hosts)
	waitForFirstSize(t, url)
	growAndFlush(ctx, t, s, len(hosts), 384) // 3 MiB more, in a second sstable
	r := waitForGrowth(t, url)
	ranges := 0
	for _, n := range r.Nodes {
		ranges += len(n.TokenValues)
	}

	inBrowser(t, chromium, url, func(bctx context.Context, t *testing.T, js bool) {
		openPage(bctx, t, url, js, 1280, 900)
		checkGrowthChart(bctx, t)
		checkReplicaRings(bctx, t, dc, ranges)
		if dir := os.Getenv("PARTMON_SCREENSHOTS"); dir != "" && js {
			elementShot(bctx, t, filepath.Join(dir, "growth.png"), `figure.chart[data-table="`+growKeyspace+"."+growTable+`"]`)
			elementShot(bctx, t, filepath.Join(dir, "replicas.png"), `figure.replicas[data-rings="3"]`)
		}
	})
}

// createGrowTable makes the scratch keyspace (RF 3 in the first node's DC,
// as the fixtures place theirs) and drops it when the test ends.
func createGrowTable(t *testing.T, s *gocql.Session, nodes int) string {
	t.Helper()
	var dc string
	if err := s.Query("SELECT data_center FROM system.local").Scan(&dc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Query("DROP KEYSPACE IF EXISTS " + growKeyspace).Exec(); err != nil {
			t.Errorf("dropping %s: %v", growKeyspace, err)
		}
	})
	for _, q := range []string{
		"DROP KEYSPACE IF EXISTS " + growKeyspace,
		fmt.Sprintf("CREATE KEYSPACE %s WITH replication = {'class': 'NetworkTopologyStrategy', '%s': %d}", growKeyspace, dc, min(3, nodes)),
		fmt.Sprintf("CREATE TABLE %s.%s (id text, seq int, payload blob, PRIMARY KEY ((id), seq))", growKeyspace, growTable),
	} {
		if err := s.Query(q).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return dc
}

// growAndFlush appends rows of 8 KiB to one partition at CL ALL and
// flushes the table on every node, so each replica's new sstable holds
// the new fragment.
func growAndFlush(ctx context.Context, t *testing.T, s *gocql.Session, nodes, rows int) {
	t.Helper()
	var start int
	if err := s.Query(fmt.Sprintf("SELECT count(*) FROM %s.%s WHERE id = 'g'", growKeyspace, growTable)).Scan(&start); err != nil {
		t.Fatal(err)
	}
	payload := make([]byte, 8<<10)
	for i := range payload {
		payload[i] = byte(i * 31) // incompressible enough not to shrink the fragment
	}
	for i := start; i < start+rows; i++ {
		q := s.Query(fmt.Sprintf("INSERT INTO %s.%s (id, seq, payload) VALUES ('g', ?, ?)", growKeyspace, growTable), i, payload)
		if err := q.Consistency(gocql.All).Exec(); err != nil {
			t.Fatalf("writing row %d: %v", i, err)
		}
	}
	for n := 1; n <= nodes; n++ {
		if _, err := testcluster.Nodetool(ctx, n, "flush", growKeyspace, growTable); err != nil {
			t.Fatal(err)
		}
	}
}

// publishedReport is the daemon's latest report from /api/v1/report.
func publishedReport(url string) (*analyzer.Report, bool) {
	resp, err := http.Get(url + "/api/v1/report")
	if err != nil {
		return nil, false
	}
	defer resp.Body.Close()
	var r analyzer.Report
	if json.NewDecoder(resp.Body).Decode(&r) != nil {
		return nil, false
	}
	return &r, true
}

// waitForFirstSize waits until the daemon has read the scratch table's
// largest partition (and so recorded its first size point).
func waitForFirstSize(t *testing.T, url string) {
	t.Helper()
	promtest.WaitFor(t, 3*time.Minute, "a size of "+growKeyspace+"."+growTable, func() bool {
		r, ok := publishedReport(url)
		if !ok {
			return false
		}
		for _, tb := range r.Tables {
			if tb.Keyspace == growKeyspace && tb.Table == growTable && tb.MaxPartitionBytes > 0 {
				return true
			}
		}
		return false
	})
}

// waitForGrowth waits until the scratch table's size history has two
// points or more, rising, and returns that report.
func waitForGrowth(t *testing.T, url string) *analyzer.Report {
	t.Helper()
	var last *analyzer.Report
	promtest.WaitFor(t, 3*time.Minute, "a rising size history of "+growKeyspace+"."+growTable, func() bool {
		r, ok := publishedReport(url)
		if !ok {
			return false
		}
		for _, h := range r.SizeHistory {
			if h.Keyspace == growKeyspace && h.Table == growTable && len(h.Points) >= 2 && h.Points[len(h.Points)-1][1] > h.Points[0][1] {
				last = r
				return true
			}
		}
		return false
	})
	return last
}

// checkGrowthChart: the scratch table's chart with both threshold lines, its
// points, no forecast line over minutes of history, and the text saying why.
func checkGrowthChart(ctx context.Context, t *testing.T) {
	t.Helper()
	var got struct {
		Found                      bool
		Thresholds, Points, Fitted int
		Labels, Text               string
	}
	sel := `figure.chart[data-table="` + growKeyspace + "." + growTable + `"]`
	err := chromedp.Run(ctx, chromedp.Evaluate(`(() => {
		const f = document.querySelector('`+sel+`');
		if (!f) return {Found: false};
		return {Found: true, Thresholds: f.querySelectorAll('line.threshold').length,
			Points: f.querySelectorAll('circle.point').length, Fitted: f.querySelectorAll('polyline.forecast').length,
			Labels: Array.from(f.querySelectorAll('text.threshold-label')).map(e => e.textContent).join('|'),
			Text: f.querySelector('.chart-text').innerText};
	})()`, &got))
	if err != nil {
		t.Fatal(err)
	}
	if !got.Found {
		t.Fatalf("no growth chart for %s.%s", growKeyspace, growTable)
	}
	th := analyzer.DefaultThresholds()
	wantLabels := fmt.Sprintf("warning %d MiB|critical %d MiB", th.PartitionWarningBytes>>20, th.PartitionCriticalBytes>>20)
	if got.Thresholds != 2 || got.Labels != wantLabels {
		t.Errorf("threshold lines %d labelled %q, want 2: %q", got.Thresholds, got.Labels, wantLabels)
	}
	if got.Points < 2 || got.Fitted != 0 || !strings.Contains(got.Text, "No forecast:") || !strings.Contains(got.Text, "not enough history") {
		t.Errorf("%d points, %d fitted lines, text %q: want two points or more, no line and why", got.Points, got.Fitted, got.Text)
	}
	if !strings.Contains(got.Text, "≤ ") {
		t.Errorf("the sizes are not written as bucket bounds: %q", got.Text)
	}
}

// checkReplicaRings: the picture of the RF-3 replication that holds the
// scratch keyspace and the pm_* fixtures has three rings of one arc per range.
func checkReplicaRings(ctx context.Context, t *testing.T, dc string, ranges int) {
	t.Helper()
	var pics []struct {
		Keyspaces, Replication string
		Arcs                   []int
		Rows                   int
	}
	err := chromedp.Run(ctx, chromedp.Evaluate(`Array.from(document.querySelectorAll('figure.replicas')).map(f => ({
		Keyspaces: f.dataset.keyspaces, Replication: f.querySelector('figcaption').innerText,
		Arcs: Array.from(f.querySelectorAll('g.replica-ring')).map(g => g.querySelectorAll('path.replica-arc').length),
		Rows: f.querySelectorAll('tr.replica-row-text').length}))`, &pics))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pics {
		ks := strings.Split(p.Keyspaces, ", ")
		if !contains(ks, growKeyspace) {
			continue
		}
		if !strings.Contains(p.Replication, dc+":3") || !containsPrefix(ks, "pm_b") {
			t.Errorf("the scratch keyspace is drawn with %q (%s), want the RF-3 fixtures' replication %s:3", p.Keyspaces, p.Replication, dc)
		}
		if len(p.Arcs) != 3 || p.Rows != ranges {
			t.Errorf("%d rings and %d text rows, want 3 rings and %d rows", len(p.Arcs), p.Rows, ranges)
		}
		for k, n := range p.Arcs {
			if n != ranges {
				t.Errorf("ring %d has %d arcs, want one per range (%d)", k+1, n, ranges)
			}
		}
		return
	}
	t.Fatalf("no replica picture holds %s: %+v", growKeyspace, pics)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func containsPrefix(list []string, prefix string) bool {
	for _, v := range list {
		if strings.HasPrefix(v, prefix) {
			return true
		}
	}
	return false
}

// elementShot saves a PNG of the first element matching sel.
func elementShot(ctx context.Context, t *testing.T, path, sel string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var png []byte
	if err := chromedp.Run(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Screenshot(sel, &png, chromedp.ByQuery)); err != nil {
		t.Fatalf("screenshot of %s: %v", sel, err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}
