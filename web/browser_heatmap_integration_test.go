//go:build integration

package web_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/gocql/gocql"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/tools/promtest"
	"github.com/partmon/partmon/tools/testcluster"
	"github.com/partmon/partmon/tools/testkit"
)

// hotTable is the fixture table the test reads hot, and heatID its map's id.
const (
	hotTable = "pm_hot.kv"
	heatID   = "heat-pm_hot-kv"
)

// TestHeatmapInBrowser runs the real daemon, with the real nodetool
// sampler, on the fixture cluster while the test reads pm_hot.kv's hot key,
// and opens the status page in headless Chromium with JavaScript on and
// off: no console errors; pm_hot.kv's heatmap has three columns or more and
// one band per range of the ring the report names, each labelled by the
// node whose token ends it (on a vnode ring one band per node); the hot key
// is marked at the token Cassandra's own token() gives it; the map's
// sentence names the key's replica; the ring section lists the key's range
// by its token bounds with its replicas, on screen, and points at it.
// PARTMON_SCREENSHOTS=DIR saves the screenshots (heatmapScreenshots).
func TestHeatmapInBrowser(t *testing.T) {
	chromium := needChromium(t)
	hosts := testcluster.Hosts()
	key, token := hotKeyToken(t, hosts[0])
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	reads := readHot(ctx, t, hosts, key)

	root, err := testkit.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	sampler := fmt.Sprintf("    nodetool_sampler: {schedule: \"@every 20s\", timeout: 5m}\n  nodetool_sampler:\n    command: [%q, \"nodetool\", \"--dir\", %q, \"{address}\"]\n    duration: 10s\n",
		filepath.Join(root, "deploy", "local", "cluster"), testcluster.Dir())
	url := startDaemonWith(t, hosts, "@every 10s", sampler) // the floor check-config enforces
	ring := waitForHeatmap(t, url, token)
	t.Logf("%d reads of %q sent; the ring has %d tokens", reads.Load(), key, len(ring))

	inBrowser(t, chromium, url, func(ctx context.Context, t *testing.T, js bool) {
		openPage(ctx, t, url, js, 1280, 900)
		checkHeatmap(ctx, t, ring, token)
		checkHotRange(ctx, t, ring, key, token)
		if dir := os.Getenv("PARTMON_SCREENSHOTS"); dir != "" && js {
			heatmapScreenshots(ctx, t, url, dir, ring, key, token)
		}
	})
}

// heatmapScreenshots saves the heatmap section as DIR/heatmap.png (on a
// vnode ring of N tokens a node, heatmap-Ntokens.png) and the ring section
// at 1,280 px and on a phone as ring-Ntokens.png and ring-Ntokens-phone.png.
func heatmapScreenshots(ctx context.Context, t *testing.T, url, dir string, ring map[string]string, key string, token int64) {
	t.Helper()
	nodes := map[string]bool{}
	for _, n := range ring {
		nodes[n] = true
	}
	perNode := len(ring) / max(len(nodes), 1)
	shot := func(sel, name string) {
		var png []byte
		if err := chromedp.Run(ctx, chromedp.ScrollIntoView(sel, chromedp.ByQuery),
			chromedp.Screenshot(sel, &png, chromedp.ByQuery)); err != nil {
			t.Fatalf("screenshot of %s: %v", sel, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if perNode <= 1 {
		shot("#heatmaps", "heatmap.png") // the whole section: its legend, all tables, then pm_hot.kv
		return
	}
	shot("#heatmaps", fmt.Sprintf("heatmap-%dtokens.png", perNode))
	shot("#ring-section", fmt.Sprintf("ring-%dtokens.png", perNode))
	openPage(ctx, t, url, true, 390, 844)
	checkHotRange(ctx, t, ring, key, token) // on a phone too
	shot("#ring-section", fmt.Sprintf("ring-%dtokens-phone.png", perNode))
	openPage(ctx, t, url, true, 1280, 900)
}

// hotKeyToken is the planted hot key and its token as Cassandra computes it.
func hotKeyToken(t *testing.T, host string) (string, int64) {
	key := "hot"
	if truth, err := testcluster.LoadTruth(); err == nil {
		for _, p := range truth.Problems {
			if p.Kind == analyzer.KindHotPartition && p.Keyspace+"."+p.Table == hotTable && p.Key != "" {
				key = p.Key
			}
		}
	}
	var token int64
	if err := testcluster.Session(t, host).Query("SELECT token(k) FROM pm_hot.kv WHERE k = ?", key).Scan(&token); err != nil {
		t.Fatalf("token of %q: %v", key, err)
	}
	return key, token
}

// readHot reads key at CL ONE (and a cold key one time in ten) until ctx
// ends, a few hundred reads a second at most: the cluster is shared.
func readHot(ctx context.Context, t *testing.T, hosts []string, key string) *atomic.Int64 {
	cfg := testcluster.NewClusterConfig(hosts...)
	cfg.Consistency = gocql.One
	s, err := cfg.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	var n atomic.Int64
	for w := 0; w < 2; w++ {
		go func() {
			var v []byte
			for i := 0; ctx.Err() == nil; i++ {
				k := key
				if i%10 == 9 {
					k = fmt.Sprintf("cold-%d", i%1000)
				}
				if err := s.Query("SELECT v FROM pm_hot.kv WHERE k = ?", k).WithContext(ctx).Scan(&v); err == nil || errors.Is(err, gocql.ErrNotFound) {
					n.Add(1)
				}
				time.Sleep(5 * time.Millisecond)
			}
		}()
	}
	return &n
}

// waitForHeatmap waits until the page draws pm_hot.kv over three columns
// or more with the hot key marked, and returns the ring's tokens (from the
// report) with their nodes.
func waitForHeatmap(t *testing.T, url string, token int64) map[string]string {
	var ring map[string]string
	mark := fmt.Sprintf(`class="hotkey" data-token="%d"`, token)
	promtest.WaitFor(t, 8*time.Minute, "pm_hot.kv's heatmap over 3 columns with its hot key marked", func() bool {
		page, err := httpGet(url + "/")
		if err != nil {
			return false
		}
		i := strings.Index(page, `id="`+heatID+`"`)
		if i < 0 {
			return false
		}
		fig := page[i:]
		fig = fig[:strings.Index(fig, "</figure>")]
		if !strings.Contains(fig, mark) {
			return false
		}
		ring = reportRing(t, url)
		// Three columns: the first panel's cells, one per band and column;
		// a band is a range, or on a vnode ring a node (checkBands).
		nodes := map[string]bool{}
		for _, n := range ring {
			nodes[n] = true
		}
		perColumn := len(ring)
		if len(nodes) < len(ring) {
			perColumn = len(nodes) // a vnode ring: one band per node
		}
		cells := fig[strings.Index(fig, `<g class="cells">`):]
		cells = cells[:strings.Index(cells, "</g>")]
		return len(ring) > 0 && strings.Count(cells, "<rect ") >= 3*perColumn
	})
	return ring
}

func httpGet(url string) (string, error) {
	resp, err := http.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// reportRing is every token of the report's nodes, with its node's address.
func reportRing(t *testing.T, url string) map[string]string {
	body, err := httpGet(url + "/api/v1/report")
	if err != nil {
		return nil
	}
	var r analyzer.Report
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("the report is not JSON: %v", err)
	}
	ring := map[string]string{}
	for _, n := range r.Nodes {
		for _, tok := range n.TokenValues {
			ring[strconv.FormatInt(tok, 10)] = n.Address
		}
	}
	return ring
}

type pageBand struct{ Node, Start, End string }

const readHeatmap = `(() => {
	const fig = document.getElementById('` + heatID + `');
	const svg = fig.querySelector('svg.heat-panel[data-op="reads"]');
	return {
		Bands: Array.from(svg.querySelectorAll('g.band')).map(b => ({Node: b.dataset.node, Start: b.dataset.start, End: b.dataset.end})),
		Columns: new Set(Array.from(svg.querySelectorAll('g.cells rect')).map(r => r.getAttribute('x'))).size,
		Marks: Array.from(svg.querySelectorAll('g.hotkey')).map(m => m.dataset.token),
		Sentence: fig.querySelector('.heat-text').innerText,
		Width: svg.getBoundingClientRect().width,
		Titles: Array.from(svg.querySelectorAll('g.cells rect')).filter(r => r.querySelector('title')).length,
		Cells: svg.querySelectorAll('g.cells rect').length,
	};
})()`

func checkHeatmap(ctx context.Context, t *testing.T, ring map[string]string, token int64) {
	t.Helper()
	var got struct {
		Bands         []pageBand
		Columns       int
		Marks         []string
		Sentence      string
		Width         float64
		Titles, Cells int
	}
	if err := chromedp.Run(ctx, chromedp.Evaluate(readHeatmap, &got)); err != nil {
		t.Fatalf("reading the heatmap: %v", err)
	}
	bands := checkBands(t, got.Bands, ring)
	if got.Columns < 3 {
		t.Errorf("%d time columns, want 3 or more", got.Columns)
	}
	if got.Titles != got.Cells || got.Cells < bands*got.Columns {
		t.Errorf("%d cells, %d with a title; want every one of %d bands × %d columns titled", got.Cells, got.Titles, bands, got.Columns)
	}
	if len(got.Marks) == 0 || got.Marks[0] != strconv.FormatInt(token, 10) {
		t.Errorf("hot key marks %v, want one at Cassandra's token %d", got.Marks, token)
	}
	if replica := ownerOf(ring, token); !strings.Contains(got.Sentence, replica) {
		t.Errorf("the sentence %q does not name the hot key's replica %s", got.Sentence, replica)
	}
	if got.Width < 500 {
		t.Errorf("the reads panel is %.0f px wide at 1,280 px: too small to read", got.Width)
	}
}

// checkBands: one band per range in token order, each labelled by the node
// whose token ends it; on a vnode ring one band per node, each node once.
// It returns the number of bands expected.
func checkBands(t *testing.T, bands []pageBand, ring map[string]string) int {
	t.Helper()
	nodes := map[string]bool{}
	for _, n := range ring {
		nodes[n] = true
	}
	if len(ring) > len(nodes) {
		seen := map[string]bool{}
		for _, b := range bands {
			if !nodes[b.Node] || seen[b.Node] {
				t.Errorf("band of %q: not a node of the ring, or its second band", b.Node)
			}
			seen[b.Node] = true
		}
		if len(bands) != len(nodes) {
			t.Errorf("%d bands, want one per node on a vnode ring of %d tokens and %d nodes", len(bands), len(ring), len(nodes))
		}
		return len(nodes)
	}
	if len(bands) != len(ring) {
		t.Errorf("%d bands, want one per range: %d tokens in the report", len(bands), len(ring))
	}
	ends := make([]string, 0, len(bands))
	for _, b := range bands {
		if ring[b.End] != b.Node {
			t.Errorf("band (%s, %s] is labelled %s; the report's token %s is %q's", b.Start, b.End, b.Node, b.End, ring[b.End])
		}
		ends = append(ends, b.End)
	}
	if !sort.SliceIsSorted(ends, func(i, j int) bool { return atoi(ends[i]) < atoi(ends[j]) }) {
		t.Errorf("bands out of token order: %v", ends)
	}
	return len(ring)
}

const readHotRange = `(() => {
	const vis = e => { if (!e) return false; const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
	const rows = Array.from(document.querySelectorAll('ol.hot-ranges li.hot-range'));
	const marks = Array.from(document.querySelectorAll('svg.ring g.hot-mark'));
	return {
		Rows: rows.map(r => ({Key: r.dataset.key, Start: r.dataset.start, End: r.dataset.end, Replicas: r.querySelector('.replicas').innerText, Visible: vis(r)})),
		Marks: marks.map(m => ({Title: m.querySelector('title').textContent, Visible: vis(m.querySelector('line'))})),
		Ranges: document.querySelectorAll('svg.ring path.vnode-arc').length,
	};
})()`

// checkHotRange: the ring section lists key's range, (previous token,
// token] by the report's ring, with its first replica (the owner) named,
// the row on screen; a pointer on the ring names the same range.
func checkHotRange(ctx context.Context, t *testing.T, ring map[string]string, key string, token int64) {
	t.Helper()
	var got struct {
		Rows []struct {
			Key, Start, End, Replicas string
			Visible                   bool
		}
		Marks []struct {
			Title   string
			Visible bool
		}
		Ranges int
	}
	if err := chromedp.Run(ctx, chromedp.ScrollIntoView("#ring", chromedp.ByQuery), chromedp.Evaluate(readHotRange, &got)); err != nil {
		t.Fatalf("reading the ring section: %v", err)
	}
	start, end := rangeOf(ring, token)
	owner := ring[strconv.FormatInt(end, 10)]
	want := fmt.Sprintf("(%d, %d]", start, end)
	for i, r := range got.Rows {
		if r.Key != key {
			continue
		}
		if r.Start != strconv.FormatInt(start, 10) || r.End != strconv.FormatInt(end, 10) {
			t.Errorf("hot range of %q is (%s, %s], want %s", key, r.Start, r.End, want)
		}
		if !strings.Contains(r.Replicas, "replica 1 "+owner) {
			t.Errorf("hot range of %q names replicas %q, want replica 1 %s first", key, r.Replicas, owner)
		}
		if !r.Visible {
			t.Errorf("hot range row of %q is not on screen", key)
		}
		if i >= len(got.Marks) || !strings.Contains(got.Marks[i].Title, want) || !got.Marks[i].Visible {
			t.Errorf("no visible pointer on the ring naming %s: %+v", want, got.Marks)
		}
		t.Logf("hot range %s of %q on %s: replicas %s (%d tokens, %d inner arcs)", want, key, owner, r.Replicas, len(ring), got.Ranges)
		return
	}
	t.Errorf("no hot range row for %q among %+v", key, got.Rows)
}

// rangeOf is the ring range holding t: (previous token, first token ≥ t].
func rangeOf(ring map[string]string, t int64) (int64, int64) {
	var toks []int64
	for s := range ring {
		toks = append(toks, atoi(s))
	}
	sort.Slice(toks, func(i, j int) bool { return toks[i] < toks[j] })
	i := sort.Search(len(toks), func(i int) bool { return toks[i] >= t })
	if i == len(toks) {
		i = 0
	}
	return toks[(i+len(toks)-1)%len(toks)], toks[i]
}

// ownerOf is the node of the first token at or after t (RF 1: the replica).
func ownerOf(ring map[string]string, t int64) string {
	var toks []int64
	for s := range ring {
		toks = append(toks, atoi(s))
	}
	sort.Slice(toks, func(i, j int) bool { return toks[i] < toks[j] })
	for _, tok := range toks {
		if tok >= t {
			return ring[strconv.FormatInt(tok, 10)]
		}
	}
	return ring[strconv.FormatInt(toks[0], 10)]
}

func atoi(s string) int64 {
	v, _ := strconv.ParseInt(s, 10, 64)
	return v
}
