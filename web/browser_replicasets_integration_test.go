//go:build integration

package web_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/web"
)

// TestReplicaSetsInBrowser opens the status page of in-memory reports of
// real-shaped vnode rings (no cluster: a 256-token ring takes ten minutes
// to start on this box) in headless Chromium, with JavaScript on and off,
// at 1,280 px and on a phone: no console errors, no sideways scrolling; the
// first replication's ranges grouped by replica set, the hot key's set the
// first row, marked 1 and on screen once scrolled to; the hot ranges list
// links to it. PARTMON_SCREENSHOTS=DIR saves replica-sets-Ntokens.png and
// replica-sets-Ntokens-phone.png there.
func TestReplicaSetsInBrowser(t *testing.T) {
	chromium := needChromium(t)
	hot := []analyzer.HeatKey{
		{Keyspace: "ks", Table: "t", Key: "hot", Token: 1234567890123456789, OK: true, Share: 0.9},
		{Keyspace: "ks", Table: "t", Key: "warm", Token: -8000000000000000000, OK: true, Share: 0.3},
	}
	nts := func(dcs ...string) map[string]string {
		m := map[string]string{"class": "org.apache.cassandra.locator.NetworkTopologyStrategy"}
		for _, dc := range dcs {
			name, rf, _ := strings.Cut(dc, ":")
			m[name] = rf
		}
		return m
	}
	for _, c := range []struct {
		nodes, tokens, dcs int
		replication        map[string]string
		shot               bool
	}{
		{3, 16, 1, nts("dc1:3"), false},
		{6, 16, 1, nts("dc1:3"), true},
		{6, 256, 2, nts("dc1:3", "dc2:2"), true},
	} {
		t.Run(fmt.Sprintf("%d nodes × %d tokens, %d DCs", c.nodes, c.tokens, c.dcs), func(t *testing.T) {
			latest := &publish.Latest{}
			e := exporter.New(latest, exporter.Options{})
			latest.Publish(web.ShapedReport(c.nodes, c.tokens, c.dcs, c.replication, hot))
			h, err := web.NewHandler(latest, e, nil, web.HandlerOptions{})
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(h)
			defer srv.Close()
			inBrowser(t, chromium, srv.URL, func(ctx context.Context, t *testing.T, js bool) {
				openPage(ctx, t, srv.URL, js, 1280, 900)
				checkReplicaSets(ctx, t, c.dcs)
				if dir := os.Getenv("PARTMON_SCREENSHOTS"); dir != "" && js && c.shot {
					replicaSetShots(ctx, t, srv.URL, dir, c.tokens, c.dcs)
				}
				checkHotSetLink(ctx, t)
			})
		})
	}
}

const readReplicaSets = `(() => {
	const fig = document.getElementById('replicas-1');
	const groups = Array.from(fig.querySelectorAll('div.replica-sets'));
	return groups.map(g => {
		const rows = Array.from(g.querySelectorAll('tr.replica-set'));
		const first = rows[0], mark = first && first.querySelector('.hot-number');
		const box = mark ? mark.getBoundingClientRect() : {width: 0, height: 0};
		const table = g.querySelector('table.replica-sets');
		return {DC: g.dataset.dc, Rows: rows.length, FirstHot: first ? first.dataset.hot : '',
			FirstText: first ? first.innerText : '', Mark: box.width > 0 && box.height > 0,
			Fits: table.scrollWidth <= g.clientWidth, Bars: g.querySelectorAll('svg.share-bar rect').length};
	});
})()`

// checkReplicaSets: a group per DC, the hot key's set first and marked 1
// (the hottest), every row with its share bar, each table as wide as the
// page allows at most.
func checkReplicaSets(ctx context.Context, t *testing.T, dcs int) {
	t.Helper()
	var got []struct {
		DC, FirstHot, FirstText string
		Rows, Bars              int
		Mark, Fits              bool
	}
	if err := chromedp.Run(ctx, chromedp.ScrollIntoView("#replicas-1", chromedp.ByQuery), chromedp.Evaluate(readReplicaSets, &got)); err != nil {
		t.Fatalf("reading the replica sets: %v", err)
	}
	if len(got) != dcs {
		t.Fatalf("%d replica-set groups, want one per DC (%d)", len(got), dcs)
	}
	for _, g := range got {
		if g.Rows == 0 || g.Bars != g.Rows || !strings.HasPrefix(g.FirstHot, "1") || !g.Mark || !g.Fits {
			t.Errorf("DC %q: %d sets, %d bars, first row hot %q (%q), mark drawn %v, fits %v; want the hottest key's set first, marked",
				g.DC, g.Rows, g.Bars, g.FirstHot, g.FirstText, g.Mark, g.Fits)
		}
		t.Logf("DC %q: %d replica sets; first: %s", g.DC, g.Rows, strings.Join(strings.Fields(g.FirstText), " "))
	}
}

// checkHotSetLink: the hot ranges list's first item links to the set row
// marked 1, which is on screen after the click below the page's top
// (scroll-margin: its table header shows), a plain anchor: no script.
func checkHotSetLink(ctx context.Context, t *testing.T) {
	t.Helper()
	var href string
	var at struct {
		Top, Bottom, Height float64
		Hot                 string
	}
	err := chromedp.Run(ctx,
		chromedp.ScrollIntoView("ol.hot-ranges li.hot-range a", chromedp.ByQuery),
		chromedp.AttributeValue("ol.hot-ranges li.hot-range a", "href", &href, nil, chromedp.ByQuery),
		chromedp.Click("ol.hot-ranges li.hot-range a", chromedp.ByQuery),
		chromedp.Sleep(300*time.Millisecond),
		chromedp.Evaluate(`(() => { const e = document.getElementById(location.hash.slice(1)), r = e.getBoundingClientRect();
			return {Top: r.top, Bottom: r.bottom, Height: window.innerHeight, Hot: e.dataset.hot}; })()`, &at),
	)
	if err != nil {
		t.Fatalf("following the hot range's link to its replica set: %v", err)
	}
	if !strings.HasPrefix(href, "#replicas-1-sets-1-") || at.Top < 1 || at.Bottom > at.Height || !strings.HasPrefix(at.Hot, "1") {
		t.Errorf("the hottest range links to %q; after the click the row is at %.0f-%.0f px of %.0f, marked %q: want on screen, marked 1",
			href, at.Top, at.Bottom, at.Height, at.Hot)
	}
}

// replicaSetShots saves the first replication's figure at 1,280 px and on
// a phone.
func replicaSetShots(ctx context.Context, t *testing.T, url, dir string, tokens, dcs int) {
	t.Helper()
	shot := func(name string) {
		var png []byte
		if err := chromedp.Run(ctx, chromedp.ScrollIntoView("#replicas-1", chromedp.ByQuery),
			chromedp.Screenshot("#replicas-1", &png, chromedp.ByQuery)); err != nil {
			t.Fatalf("screenshot of #replicas-1: %v", err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shot(fmt.Sprintf("replica-sets-%dtokens.png", tokens))
	openPage(ctx, t, url, true, 390, 844)
	checkReplicaSets(ctx, t, dcs) // on a phone too
	shot(fmt.Sprintf("replica-sets-%dtokens-phone.png", tokens))
	openPage(ctx, t, url, true, 1280, 900)
}
