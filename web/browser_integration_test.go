//go:build integration

package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/tools/promtest"
	"github.com/partmon/partmon/tools/testcluster"
	"github.com/partmon/partmon/tools/testkit"
)

// notCarded are the planted problems partmon cannot see in this test's run,
// and why; every other planted problem must have its card.
var notCarded = map[string]string{
	analyzer.KindHotPartition:  "needs `nodetool profileload` sampling during live traffic on pm_hot; this run starts none",
	analyzer.KindHotTokenRange: "needs live traffic on pm_hot within the analysis window; the fixtures' load ran when they were loaded",
	analyzer.KindWidePartition: "Cassandra counts rows only through reads that scan the partition (rows_per_read); none is run here",
	analyzer.KindUnbucketedTimeSeries: "judged from the largest partition's growth over the history or a size of 10 MiB; " +
		"the fixture's partitions are smaller and a fresh daemon has no history",
}

// keyedKinds name their partition key on Cassandra 5.0 (system.top_partitions),
// so their card must carry the planted key.
var keyedKinds = map[string]bool{analyzer.KindOversizedPartition: true, analyzer.KindTombstoneHeavy: true}

// TestStatusPageInBrowser runs the real daemon on the fixture cluster and
// opens its status page in Debian's headless Chromium (chromedp): no console
// errors, one card per planted problem with its table and key, no card for a
// clean keyspace, no sideways scrolling at 1,280 px or on a phone, and the
// same cards with JavaScript off, their evidence one click away.
// PARTMON_SCREENSHOTS=DIR saves the screenshots of docs/screenshots there.
func TestStatusPageInBrowser(t *testing.T) {
	chromium := needChromium(t)
	truth, err := testcluster.LoadTruth()
	if err != nil {
		t.Fatal(err)
	}
	url := startDaemon(t, testcluster.Hosts())
	waitForFindings(t, url, truth)

	inBrowser(t, chromium, url, func(ctx context.Context, t *testing.T, js bool) {
		cards := openPage(ctx, t, url, js, 1280, 900)
		checkCards(t, cards, truth)
		checkOneClick(ctx, t)
		if shots := os.Getenv("PARTMON_SCREENSHOTS"); shots != "" && js {
			screenshots(ctx, t, url, shots)
		}
	})
}

// needChromium is Debian's chromium, or the end of the test: a failure
// under make test and in CI, a skip that says so elsewhere.
func needChromium(t *testing.T) string {
	t.Helper()
	return testkit.NeedTool(t, "apt-get install chromium", "chromium")
}

// inBrowser runs check in headless Chromium twice, with JavaScript on and
// off, each in a fresh tab bounded to two minutes; then the page on a phone,
// and no console errors.
func inBrowser(t *testing.T, chromium, url string, check func(ctx context.Context, t *testing.T, js bool)) {
	t.Helper()
	alloc, cancel := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.UserDataDir(browserProfile(t)),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true))...)
	defer cancel()
	for _, js := range []bool{true, false} {
		t.Run(fmt.Sprintf("javascript=%v", js), func(t *testing.T) {
			ctx, cancel := chromedp.NewContext(alloc)
			defer cancel()
			ctx, cancelT := context.WithTimeout(ctx, 2*time.Minute)
			defer cancelT()
			errs := listenConsole(ctx)
			check(ctx, t, js)
			checkPhone(ctx, t, url)
			if e := errs(); len(e) > 0 {
				t.Errorf("the page logged %d console errors: %s", len(e), strings.Join(e, "; "))
			}
		})
	}
}

// browserProfile is a profile directory for one Chromium, removed after
// the test. Not t.TempDir: Chromium's helper processes can still be writing
// into it for a moment after the browser exits, and t.TempDir fails the test
// when its removal meets a file that appeared meanwhile (CI failed on that).
func browserProfile(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "partmon-chromium-")
	if err != nil {
		t.Fatalf("a Chromium profile directory: %v", err)
	}
	t.Cleanup(func() {
		for try := 0; ; try++ {
			err := os.RemoveAll(dir)
			if err == nil {
				return
			}
			if try == 20 {
				t.Logf("Chromium's profile %s stays behind: %v", dir, err)
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	return dir
}

func startDaemon(t *testing.T, hosts []string) string {
	return startDaemonWith(t, hosts, "@every 10s", "")
}

// startDaemonWith starts the daemon with its node-local sources on
// schedule and extra appended to the collector section of its config.
func startDaemonWith(t *testing.T, hosts []string, schedule, extra string) string {
	dir := t.TempDir()
	bin, err := testkit.BuildPartmon(context.Background(), dir, "partmon", false)
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "partmon.yml")
	var config strings.Builder
	fmt.Fprintf(&config, "state:\n  file: %s\nanalysis:\n  schedule: \"@every 5s\"\ncollector:\n  sources:\n", filepath.Join(dir, "state.json"))
	for _, s := range []string{"topology", "schema", "size_estimates", "max_partition_size", "disk_usage", "local_read_latency",
		"local_write_latency", "tombstones_per_read", "rows_per_read", "top_partitions"} {
		fmt.Fprintf(&config, "    %s: {schedule: %q}\n", s, schedule)
	}
	config.WriteString(extra)
	if err := os.WriteFile(cfg, []byte(config.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := testkit.FreeAddr(t)
	p := promtest.Start(t, "partmon", promtest.Options{}, bin, "run", "--mode", "cluster", "--hosts", strings.Join(hosts, ","),
		"--web.listen-address", addr, "--config.file", cfg)
	url := "http://" + addr
	// The first cycle waits for every source, the nodetool sampler's JVM too:
	// minutes on a loaded box (203 s at load 90: each nodetool run starts a JVM).
	promtest.WaitFor(t, 4*time.Minute, "partmon /readyz/cycle", func() bool {
		if exited, err := p.Exited(); exited {
			t.Fatalf("partmon exited: %v\n%s", err, p.Output())
		}
		resp, err := http.Get(url + "/readyz/cycle")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return url
}

// waitForFindings waits until the API reports every planted problem the
// page must show, so the page is judged on a complete report.
func waitForFindings(t *testing.T, url string, truth *testcluster.Truth) {
	promtest.WaitFor(t, 2*time.Minute, "a finding for every planted problem", func() bool {
		resp, err := http.Get(url + "/api/v1/findings")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var body struct{ Findings []finding.Finding }
		if json.NewDecoder(resp.Body).Decode(&body) != nil {
			return false
		}
		fs := body.Findings
		for _, p := range truth.Problems {
			if _, skip := notCarded[p.Kind]; skip {
				continue
			}
			found := false
			for _, f := range fs {
				found = found || (f.Kind == p.Kind && f.Keyspace == p.Keyspace && f.Table == p.Table)
			}
			if !found {
				return false
			}
		}
		return true
	})
}

// listenConsole collects console errors and uncaught exceptions.
func listenConsole(ctx context.Context) func() []string {
	ch := make(chan string, 64)
	chromedp.ListenTarget(ctx, func(ev any) {
		var msg string
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			msg = "exception: " + e.ExceptionDetails.Text
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError || e.Type == runtime.APITypeWarning {
				msg = "console." + string(e.Type)
			}
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.LevelError || e.Entry.Level == cdplog.LevelWarning {
				msg = string(e.Entry.Level) + ": " + e.Entry.Text + " " + e.Entry.URL
			}
		}
		if msg != "" {
			select {
			case ch <- msg:
			default:
			}
		}
	})
	return func() []string {
		var out []string
		for {
			select {
			case m := <-ch:
				out = append(out, m)
			default:
				return out
			}
		}
	}
}

// pageCard is what a person reads on a card, taken from the rendered DOM.
type pageCard struct {
	Kind, Kinds, Table, Key, Severity, Text string
	Details                                 bool
}

const readCards = `Array.from(document.querySelectorAll('section.card')).map(c => ({
	Kind: c.dataset.kind, Kinds: c.dataset.kinds || '', Table: c.dataset.table, Key: c.dataset.key || '',
	Severity: c.classList[1], Text: c.innerText, Details: !!c.querySelector('details > summary')}))`

func openPage(ctx context.Context, t *testing.T, url string, js bool, w, h int64) []pageCard {
	t.Helper()
	var cards []pageCard
	var scrollW, clientW int64
	err := chromedp.Run(ctx,
		cdplog.Enable(), runtime.Enable(),
		emulation.SetScriptExecutionDisabled(!js),
		chromedp.EmulateViewport(w, h),
		chromedp.Navigate(url+"/"),
		chromedp.WaitVisible("#state", chromedp.ByQuery),
		// Evaluate runs even with page scripts disabled (DevTools is not the page).
		chromedp.Evaluate(readCards, &cards),
		chromedp.Evaluate(`document.documentElement.scrollWidth`, &scrollW),
		chromedp.Evaluate(`document.documentElement.clientWidth`, &clientW),
	)
	if err != nil {
		t.Fatalf("loading %s in chromium: %v", url, err)
	}
	if scrollW > clientW {
		t.Errorf("at %d px the page is %d px wide: it scrolls sideways", clientW, scrollW)
	}
	return cards
}

func checkCards(t *testing.T, cards []pageCard, truth *testcluster.Truth) {
	t.Helper()
	if len(cards) == 0 {
		t.Fatal("the page shows no problem cards")
	}
	for _, p := range truth.Problems {
		if reason, skip := notCarded[p.Kind]; skip {
			t.Logf("no card required for %s %s.%s: %s", p.Kind, p.Keyspace, p.Table, reason)
			continue
		}
		var match []pageCard
		for _, c := range cards {
			// A card is one problem: the kinds its partition shows are in it.
			if slices.Contains(strings.Fields(c.Kinds), p.Kind) && c.Table == p.Keyspace+"."+p.Table {
				match = append(match, c)
			}
		}
		if len(match) != 1 {
			t.Errorf("%d cards hold %s on %s.%s, want one (replicas and kinds of one partition folded)", len(match), p.Kind, p.Keyspace, p.Table)
			continue
		}
		c := match[0]
		if keyedKinds[p.Kind] && c.Key != p.Key {
			t.Errorf("the %s card of %s names key %q, want the planted %q", p.Kind, c.Table, c.Key, p.Key)
		}
		if !strings.Contains(c.Text, c.Table) || !strings.Contains(strings.ToUpper(c.Text), strings.ToUpper(c.Severity)) || !c.Details {
			t.Errorf("the %s card does not show its table, its severity in words and a details element: %q", p.Kind, c.Text)
		}
		if strings.Contains(c.Text, "Advice:") {
			t.Errorf("the %s card shows its advice before a click: %q", p.Kind, c.Text)
		}
	}
	for _, ks := range truth.CleanKeyspaces {
		for _, c := range cards {
			if strings.HasPrefix(c.Table, ks+".") || c.Table == ks {
				t.Errorf("a card names clean keyspace %s: %+v", ks, c)
			}
		}
	}
}

// checkOneClick: the first card's advice appears after one click on its
// summary (a native <details>: no script needed).
func checkOneClick(ctx context.Context, t *testing.T) {
	t.Helper()
	var text string
	err := chromedp.Run(ctx,
		chromedp.Click("section.card details > summary", chromedp.ByQuery),
		chromedp.WaitVisible("section.card details[open] > div", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('section.card details[open] > div').innerText`, &text),
	)
	if err != nil {
		t.Fatalf("opening the first card's evidence: %v", err)
	}
	if !strings.Contains(text, "Advice:") || !strings.Contains(text, "Measured:") || !strings.Contains(text, "Sources:") {
		t.Errorf("the opened evidence lacks advice, measurement or sources: %q", text)
	}
}

// checkPhone: at 390 px the page does not scroll sideways either.
func checkPhone(ctx context.Context, t *testing.T, url string) {
	t.Helper()
	var scrollW, clientW int64
	err := chromedp.Run(ctx,
		chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile),
		chromedp.Navigate(url+"/"),
		chromedp.WaitVisible("#state", chromedp.ByQuery),
		chromedp.Evaluate(`document.documentElement.scrollWidth`, &scrollW),
		chromedp.Evaluate(`document.documentElement.clientWidth`, &clientW),
	)
	if err != nil {
		t.Fatalf("loading the page on a phone-sized screen: %v", err)
	}
	if scrollW > clientW {
		t.Errorf("on a phone (%d px) the page is %d px wide: it scrolls sideways", clientW, scrollW)
	}
}

// screenshots writes the overview (first screen at 1,280 px), one card
// opened, and the phone view as PNGs into dir.
func screenshots(ctx context.Context, t *testing.T, url, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	shot := func(name string, actions ...chromedp.Action) {
		var png []byte
		actions = append(actions, chromedp.CaptureScreenshot(&png))
		if err := chromedp.Run(ctx, actions...); err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shot("overview.png", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(url+"/"), chromedp.WaitVisible("#state", chromedp.ByQuery))
	shot("problem-opened.png", chromedp.Click("section.card details > summary", chromedp.ByQuery),
		chromedp.WaitVisible("section.card details[open] > div", chromedp.ByQuery))
	shot("phone.png", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Navigate(url+"/"),
		chromedp.WaitVisible("#state", chromedp.ByQuery))
	// The guardrail panel (suggested values from the fixtures' own
	// partitions) and the key history, each as the fixture cluster gives it.
	for _, panel := range []struct{ sel, name string }{{"#guardrails-panel", "guardrails.png"}, {"#keys-panel", "keys.png"}} {
		var png []byte
		if err := chromedp.Run(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(url+"/"),
			chromedp.ScrollIntoView(panel.sel, chromedp.ByQuery), chromedp.Screenshot(panel.sel, &png, chromedp.ByQuery)); err != nil {
			t.Fatalf("screenshot of %s: %v", panel.sel, err)
		}
		if err := os.WriteFile(filepath.Join(dir, panel.name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
