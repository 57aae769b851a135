//go:build integration

package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/tools/testcluster"
)

// TestOverviewAndTablePages runs the daemon on the fixture cluster and
// reads its pages in Chromium as a paged person would, at 1,400 × 900 and
// on a 390 px phone: every critical and warning problem on the first
// screen (its card's heading and number; on a phone, its line in the list
// of urgent problems above the cards), every figure in words (a guardrail
// crossing as "crossed" or a date, a low cardinality against its threshold
// per node), every mention of a table a link to its page, the ownership
// and suggested-value tables with no word broken, no collector row that
// only says the engine lacks it; and a page for every table with a
// finding, holding that table's cards. PARTMON_SCREENSHOTS=DIR saves what
// it looked at.
func TestOverviewAndTablePages(t *testing.T) {
	chromium := needChromium(t)
	truth, err := testcluster.LoadTruth()
	if err != nil {
		t.Fatal(err)
	}
	base := startDaemon(t, testcluster.Hosts())
	waitForFindings(t, base, truth)
	problems := apiProblems(t, base)

	alloc, cancel := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.UserDataDir(browserProfile(t)),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true))...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 3*time.Minute)
	defer cancelT()
	shots := os.Getenv("PARTMON_SCREENSHOTS")

	for _, screen := range []struct {
		name   string
		w, h   int64
		mobile bool
	}{{"1400", 1400, 900, false}, {"390", 390, 844, true}} {
		t.Run("overview at "+screen.name, func(t *testing.T) {
			view := []chromedp.EmulateViewportOption{}
			if screen.mobile {
				view = append(view, chromedp.EmulateMobile)
			}
			var o overview
			if err := chromedp.Run(ctx, emulation.SetScriptExecutionDisabled(false), chromedp.EmulateViewport(screen.w, screen.h, view...),
				chromedp.Navigate(base+"/"), chromedp.WaitVisible("#state", chromedp.ByQuery), chromedp.Evaluate(readOverview, &o)); err != nil {
				t.Fatalf("reading the overview: %v", err)
			}
			checkOverview(t, o, problems)
			if shots != "" {
				shot(ctx, t, filepath.Join(shots, "overview-"+screen.name+".png"))
			}
		})
	}

	t.Run("table pages", func(t *testing.T) {
		if err := chromedp.Run(ctx, chromedp.EmulateViewport(1400, 900)); err != nil {
			t.Fatal(err)
		}
		for table := range problemsByTable(problems) {
			ks, tbl, _ := strings.Cut(table, ".")
			page := base + "/tables/" + url.PathEscape(ks) + "/" + url.PathEscape(tbl)
			// The report changes every cycle (a hot range comes and goes with
			// traffic): the page is judged against the API read just before
			// it, a few times before the mismatch counts.
			var got tablePage
			var ids []string
			for try := 0; try < 4; try++ {
				ids = problemsByTable(apiProblems(t, base))[table]
				got = readTablePage(ctx, t, page)
				slices.Sort(got.Cards)
				slices.Sort(ids)
				if slices.Equal(got.Cards, ids) {
					break
				}
			}
			if got.Status != http.StatusOK || !strings.Contains(got.Title, table) || !got.Back {
				t.Errorf("%s: HTTP %d, title %q (want the table), link to the overview %v", page, got.Status, got.Title, got.Back)
			}
			if !slices.Equal(got.Cards, ids) {
				t.Errorf("%s shows cards %v, want the table's problems %v", page, got.Cards, ids)
			}
			if shots != "" {
				shot(ctx, t, filepath.Join(shots, "table-"+ks+"-"+tbl+".png"))
			}
		}
		resp, err := http.Get(base + "/tables/no_such/table")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("a table the report lacks: HTTP %d, want 404", resp.StatusCode)
			}
		}
	})
}

// tablePage is what the check reads off a table's page.
type tablePage struct {
	Status int
	Title  string
	Cards  []string
	Back   bool
}

func readTablePage(ctx context.Context, t *testing.T, page string) tablePage {
	t.Helper()
	var got tablePage
	resp, err := http.Get(page)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got.Status = resp.StatusCode
	if err := chromedp.Run(ctx, chromedp.Navigate(page), chromedp.WaitVisible("#state", chromedp.ByQuery), chromedp.Evaluate(`({
		Title: document.querySelector('h1').innerText,
		Cards: Array.from(document.querySelectorAll('section.card')).map(c => c.id),
		Back: !!document.querySelector('a[href="/"]')})`, &got)); err != nil {
		t.Fatalf("reading %s: %v", page, err)
	}
	return got
}

// overview is what the check reads off the rendered overview.
type overview struct {
	ViewHeight   float64
	Cards        []overviewCard
	BrokenCells  []string // ownership and suggested-value cells whose words wrap
	Unsupported  int      // collector rows that only say the engine lacks the source
	ScrollsSides bool
}

type overviewCard struct {
	ID, Severity, Kind, Text, Link string
	Bottom                         float64 // of the heading and the number, whichever is lower
	// ListBottom is where the problem's line in the phone's list of urgent
	// problems ends (0: no line shown).
	ListBottom float64
}

const readOverview = `(() => {
	// the lines a cell's text takes (a swatch beside it is no line)
	const lines = el => { const tops = new Set(), w = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
		for (let n = w.nextNode(); n; n = w.nextNode()) { if (!n.textContent.trim()) continue;
			const r = document.createRange(); r.selectNodeContents(n);
			for (const x of r.getClientRects()) tops.add(Math.round(x.top)); }
		return tops.size; };
	const own = Array.from(document.querySelectorAll('table')).find(t => t.innerText.includes('raw token ownership'));
	const broken = [];
	if (own) for (const tr of own.querySelectorAll('tr')) Array.from(tr.cells).slice(0, 4).forEach(td => {
		if (td.tagName === 'TD' && lines(td) > 1) broken.push('ownership: ' + td.innerText); });
	const sug = Array.from(document.querySelectorAll('table')).find(t => t.innerText.includes('evidence') && t.innerText.includes('partition_size'));
	if (sug) for (const tr of sug.querySelectorAll('tr')) if (tr.cells[0].tagName === 'TD' && lines(tr.cells[0]) > 1) broken.push('suggested: ' + tr.cells[0].innerText);
	const coll = Array.from(document.querySelectorAll('table')).find(t => t.innerText.includes('last success'));
	const unsupported = coll ? Array.from(coll.querySelectorAll('td')).filter(td => td.innerText.trim() === 'unsupported').length : 0;
	return {
		ViewHeight: window.innerHeight, BrokenCells: broken, Unsupported: unsupported,
		ScrollsSides: document.documentElement.scrollWidth > document.documentElement.clientWidth,
		Cards: Array.from(document.querySelectorAll('section.card')).map(c => {
			const h = c.querySelector('h3'), n = c.querySelector('.number'), a = h.querySelector('a');
			const li = document.querySelector('li[data-problem="' + c.id + '"]');
			const lb = li && li.offsetParent !== null ? li.getBoundingClientRect().bottom + window.scrollY : 0;
			return {ID: c.id, Severity: c.classList[1], Kind: c.dataset.kind, Text: c.innerText, Link: a ? a.getAttribute('href') : '',
				Bottom: Math.max(h.getBoundingClientRect().bottom, n ? n.getBoundingClientRect().bottom : 0) + window.scrollY, ListBottom: lb};
		})};
})()`

func checkOverview(t *testing.T, o overview, problems []analyzer.Problem) {
	t.Helper()
	cards := map[string]overviewCard{}
	for _, c := range o.Cards {
		cards[c.ID] = c
	}
	urgent := 0
	for _, p := range problems {
		c, ok := cards["problem-"+p.ID]
		if !ok {
			t.Errorf("no card for %s %s on %s.%s", p.Severity, p.Kind, p.Keyspace, p.Table)
			continue
		}
		if p.Severity >= finding.SeverityWarning {
			urgent++
			// The card, or on a phone its line in the list of urgent problems.
			if c.Bottom > o.ViewHeight && (c.ListBottom == 0 || c.ListBottom > o.ViewHeight) {
				t.Errorf("the %s %s card of %s.%s ends %.0f px down: past the first screen (%.0f px)", p.Severity, p.Kind, p.Keyspace, p.Table, c.Bottom, o.ViewHeight)
			}
		}
		if p.Table != "" && c.Link != "/tables/"+p.Keyspace+"/"+p.Table {
			t.Errorf("the %s card of %s.%s links to %q, not the table's page", p.Kind, p.Keyspace, p.Table, c.Link)
		}
		text := strings.Join(strings.Fields(c.Text), " ")
		switch p.Kind {
		case analyzer.KindGuardrailCrossing:
			if !strings.Contains(text, "crossed") && !strings.Contains(text, "crosses by") {
				t.Errorf("the guardrail crossing card of %s.%s says no crossing in words: %q", p.Keyspace, p.Table, text)
			}
			if strings.Contains(text, " s against") {
				t.Errorf("the guardrail crossing card of %s.%s counts seconds: %q", p.Keyspace, p.Table, text)
			}
		case analyzer.KindLowCardinalityKey:
			if !strings.Contains(text, "per node") {
				t.Errorf("the low-cardinality card of %s.%s does not say its threshold per node: %q", p.Keyspace, p.Table, text)
			}
		}
	}
	if urgent == 0 {
		t.Error("the fixtures gave no critical or warning problem: the first-screen check cannot fail")
	}
	for _, b := range o.BrokenCells {
		t.Errorf("a cell breaks its words: %q", b)
	}
	if o.Unsupported > 0 {
		t.Errorf("%d collector rows say only \"unsupported\" (a source this engine lacks)", o.Unsupported)
	}
	if o.ScrollsSides {
		t.Error("the overview scrolls sideways")
	}
}

func apiProblems(t *testing.T, base string) []analyzer.Problem {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/findings")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct{ Problems []analyzer.Problem }
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return body.Problems
}

// problemsByTable: each table's problem cards.
func problemsByTable(ps []analyzer.Problem) map[string][]string {
	out := map[string][]string{}
	for _, p := range ps {
		if p.Table != "" {
			k := p.Keyspace + "." + p.Table
			out[k] = append(out[k], "problem-"+p.ID)
		}
	}
	return out
}

func shot(ctx context.Context, t *testing.T, path string) {
	t.Helper()
	var png []byte
	if err := chromedp.Run(ctx, chromedp.CaptureScreenshot(&png)); err != nil {
		t.Fatalf("screenshot %s: %v", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(fmt.Errorf("writing %s: %w", path, err))
	}
}
