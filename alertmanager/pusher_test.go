package alertmanager

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/tools/reporttest"
)

// amReceiver is a stand-in Alertmanager endpoint on loopback that records
// every POST /api/v2/alerts body and answers with scripted status codes
// (200 once the script runs out).
type amReceiver struct {
	srv *httptest.Server

	mu       sync.Mutex
	bodies   []string
	statuses []int
	times    []time.Time // when each request arrived
	got      chan string // every accepted body, for Run tests
}

func (rc *amReceiver) arrivals() []time.Time {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.times)
}

func newAMReceiver(t *testing.T, statuses ...int) *amReceiver {
	rc := &amReceiver{statuses: statuses, got: make(chan string, 100)}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/v2/alerts" || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "unexpected request "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.times = append(rc.times, time.Now())
		status := http.StatusOK
		if len(rc.statuses) > 0 {
			status, rc.statuses = rc.statuses[0], rc.statuses[1:]
		}
		rc.bodies = append(rc.bodies, string(body))
		rc.mu.Unlock()
		if status != http.StatusOK {
			http.Error(w, "scripted failure", status)
			return
		}
		rc.got <- string(body)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *amReceiver) last(t *testing.T) string {
	t.Helper()
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.bodies) == 0 {
		t.Fatal("the receiver got nothing")
	}
	return rc.bodies[len(rc.bodies)-1]
}

func (rc *amReceiver) count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.bodies)
}

// fakeClock is a settable clock for the pusher's timestamps.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// alertReport has findings of every kind of pushing decision.
func alertReport(findings ...finding.Finding) *analyzer.Report {
	r := reporttest.Cluster()
	r.Findings = findings
	return r
}

var (
	findingBigKey = finding.Finding{ID: "big", Kind: analyzer.KindOversizedPartition, Severity: finding.SeverityCritical, Cluster: "demo",
		DC: "dc1", Rack: "r1", Node: "127.0.0.1", Keyspace: "shop", Table: "orders", PartitionKey: "customer|42",
		Value: 209715200, Threshold: 104857600, Unit: "bytes", Summary: "partition customer|42 is 200 MiB",
		Advice: "add a month bucket to the partition key: 200 MiB → 17 MiB", Source: "top_partitions"}
	findingHotKey = finding.Finding{ID: "hot", Kind: analyzer.KindHotPartition, Severity: finding.SeverityWarning, Cluster: "demo",
		DC: "dc1", Rack: "r2", Node: "127.0.0.2", Keyspace: "shop", Table: "orders", PartitionKey: "customer|9",
		Value: 0.4, Threshold: 0.1, Unit: "ratio", Summary: "customer|9 takes 40% of reads"}
	findingTombTable = finding.Finding{ID: "tomb", Kind: analyzer.KindTombstoneHeavy, Severity: finding.SeverityWarning, Cluster: "demo",
		Keyspace: "shop", Table: "queue", Value: 0.5, Threshold: 0.2, Unit: "ratio", Summary: "half of what shop.queue reads is tombstones",
		Advice: "stop using the table as a queue"}
	findingSkew = finding.Finding{ID: "skew", Kind: analyzer.KindOwnershipSkew, Severity: finding.SeverityWarning, Cluster: "demo",
		DC: "dc1", Node: "127.0.0.3", Keyspace: "shop", Value: 1.25, Threshold: 1.2, Unit: "ratio", Summary: "skewed", IDNamesDC: true}
	findingInfoKey = finding.Finding{ID: "small", Kind: analyzer.KindOversizedPartition, Severity: finding.SeverityInfo, Cluster: "demo",
		Node: "127.0.0.1", Keyspace: "shop", Table: "orders", PartitionKey: "customer|1", Value: 1, Threshold: 2, Unit: "bytes", Summary: "info only"}
)

func newTestPusher(t *testing.T, clock *fakeClock, opts Options, receivers ...*amReceiver) *Pusher {
	t.Helper()
	for _, rc := range receivers {
		opts.URLs = append(opts.URLs, rc.srv.URL)
	}
	opts.Now = clock.Now
	p, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func compactJSON(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatalf("expected JSON does not parse: %v", err)
	}
	return b.String()
}

// TestAlertPayloadExactJSON: key-level findings and the default kinds are
// pushed with Alertmanager's postableAlert shape; skew and info are not.
func TestAlertPayloadExactJSON(t *testing.T) {
	rc := newAMReceiver(t)
	clock := &fakeClock{t: reporttest.Time}
	p := newTestPusher(t, clock, Options{
		ExternalURL: "http://partmon:9180/", RunbookURL: "https://runbooks.example/partmon#{kind}",
	}, rc)
	p.Update(alertReport(findingBigKey, findingHotKey, findingTombTable, findingSkew, findingInfoKey))
	if err := p.PushOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := compactJSON(t, `[
	{"labels":{"alertname":"PartmonOversizedPartition","cluster":"demo","dc":"dc1","finding_id":"big","keyspace":"shop","node":"127.0.0.1","severity":"critical","table":"orders"},
	 "annotations":{"description":"add a month bucket to the partition key: 200 MiB → 17 MiB","partition_key":"customer|42","runbook_url":"https://runbooks.example/partmon#oversized_partition",
	   "summary":"partition customer|42 is 200 MiB","threshold":"104857600","unit":"bytes","value":"209715200"},
	 "startsAt":"2026-03-01T12:00:00Z","endsAt":"2026-03-01T12:03:00Z","generatorURL":"http://partmon:9180/#finding-big"},
	{"labels":{"alertname":"PartmonHotPartition","cluster":"demo","dc":"dc1","finding_id":"hot","keyspace":"shop","node":"127.0.0.2","severity":"warning","table":"orders"},
	 "annotations":{"description":"customer|9 takes 40% of reads","partition_key":"customer|9","runbook_url":"https://runbooks.example/partmon#hot_partition",
	   "summary":"customer|9 takes 40% of reads","threshold":"0.1","unit":"ratio","value":"0.4"},
	 "startsAt":"2026-03-01T12:00:00Z","endsAt":"2026-03-01T12:03:00Z","generatorURL":"http://partmon:9180/#finding-hot"},
	{"labels":{"alertname":"PartmonTombstoneHeavy","cluster":"demo","finding_id":"tomb","keyspace":"shop","severity":"warning","table":"queue"},
	 "annotations":{"description":"stop using the table as a queue","runbook_url":"https://runbooks.example/partmon#tombstone_heavy",
	   "summary":"half of what shop.queue reads is tombstones","threshold":"0.2","unit":"ratio","value":"0.5"},
	 "startsAt":"2026-03-01T12:00:00Z","endsAt":"2026-03-01T12:03:00Z","generatorURL":"http://partmon:9180/#finding-tomb"}
	]`)
	if got := rc.last(t); got != want {
		t.Errorf("body\n got %s\nwant %s", got, want)
	}
	if got := testutil.ToFloat64(p.pushed); got != 3 {
		t.Errorf("alerts pushed = %v, want 3", got)
	}
}

// sentAlert is the part of a pushed alert the lifecycle tests look at.
type sentAlert struct {
	ID       string
	Severity string
	StartsAt time.Time
	EndsAt   time.Time
}

func decodeAlerts(t *testing.T, body string) []sentAlert {
	t.Helper()
	var raw []postableAlert
	if err := json.Unmarshal([]byte(body), &raw); err != nil {
		t.Fatalf("decoding %s: %v", body, err)
	}
	out := make([]sentAlert, 0, len(raw))
	for _, a := range raw {
		out = append(out, sentAlert{ID: a.Labels["finding_id"], Severity: a.Labels["severity"], StartsAt: a.StartsAt, EndsAt: a.EndsAt})
	}
	return out
}

func assertAlerts(t *testing.T, step string, got, want []sentAlert) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: sent %+v, want %+v", step, got, want)
	}
	for i := range want {
		if got[i].ID != want[i].ID || got[i].Severity != want[i].Severity ||
			!got[i].StartsAt.Equal(want[i].StartsAt) || !got[i].EndsAt.Equal(want[i].EndsAt) {
			t.Errorf("%s: alert %d = %+v, want %+v", step, i, got[i], want[i])
		}
	}
}

// TestAlertLifecycle walks one pusher through re-sends, a resolve, a failed
// resolve delivery, a severity change and reports that must change nothing.
func TestAlertLifecycle(t *testing.T) {
	t0 := reporttest.Time
	crit := findingHotKey
	crit.Severity = finding.SeverityCritical
	failed := &analyzer.Report{Sources: []model.SourceStatus{{Source: "topology", State: model.StateError}}}

	type step struct {
		name    string
		advance time.Duration
		update  *analyzer.Report // nil: no Update call
		nilCall bool             // call Update(nil)
		status  int              // receiver answer for this push; 0 = 200
		want    []sentAlert      // nil with wantNone: nothing sent
		wantErr bool
	}
	steps := []step{
		{name: "two findings become active", update: alertReport(findingBigKey, findingHotKey),
			want: []sentAlert{{"big", "critical", t0, t0.Add(3 * time.Minute)}, {"hot", "warning", t0, t0.Add(3 * time.Minute)}}},
		{name: "re-send keeps startsAt, moves endsAt", advance: time.Minute,
			want: []sentAlert{{"big", "critical", t0, t0.Add(4 * time.Minute)}, {"hot", "warning", t0, t0.Add(4 * time.Minute)}}},
		{name: "a nil report changes nothing", advance: time.Minute, nilCall: true,
			want: []sentAlert{{"big", "critical", t0, t0.Add(5 * time.Minute)}, {"hot", "warning", t0, t0.Add(5 * time.Minute)}}},
		{name: "a failed report resolves nothing", advance: time.Minute, update: failed,
			want: []sentAlert{{"big", "critical", t0, t0.Add(6 * time.Minute)}, {"hot", "warning", t0, t0.Add(6 * time.Minute)}}},
		{name: "vanished finding is resolved, delivery fails", advance: 30 * time.Second, update: alertReport(findingBigKey), status: http.StatusServiceUnavailable,
			want:    []sentAlert{{"big", "critical", t0, t0.Add(6*time.Minute + 30*time.Second)}, {"hot", "warning", t0, t0.Add(3*time.Minute + 30*time.Second)}},
			wantErr: true},
		{name: "resolve is retried with its first endsAt", advance: 10 * time.Second,
			want: []sentAlert{{"big", "critical", t0, t0.Add(6*time.Minute + 40*time.Second)}, {"hot", "warning", t0, t0.Add(3*time.Minute + 30*time.Second)}}},
		{name: "resolve is sent once", advance: 10 * time.Second,
			want: []sentAlert{{"big", "critical", t0, t0.Add(6*time.Minute + 50*time.Second)}}},
		{name: "a finding that comes back starts anew", advance: 10 * time.Second, update: alertReport(findingBigKey, findingHotKey),
			want: []sentAlert{{"big", "critical", t0, t0.Add(7 * time.Minute)}, {"hot", "warning", t0.Add(4 * time.Minute), t0.Add(7 * time.Minute)}}},
		{name: "severity change resolves the old labels", advance: time.Minute, update: alertReport(findingBigKey, crit),
			want: []sentAlert{{"big", "critical", t0, t0.Add(8 * time.Minute)}, {"hot", "critical", t0.Add(5 * time.Minute), t0.Add(8 * time.Minute)},
				{"hot", "warning", t0.Add(4 * time.Minute), t0.Add(5 * time.Minute)}}},
		{name: "everything resolved", advance: time.Minute, update: alertReport(),
			want: []sentAlert{{"big", "critical", t0, t0.Add(6 * time.Minute)}, {"hot", "critical", t0.Add(5 * time.Minute), t0.Add(6 * time.Minute)}}},
		{name: "nothing left to send", advance: time.Minute, want: nil},
	}
	var statuses []int
	for _, s := range steps {
		if s.want != nil {
			statuses = append(statuses, max(s.status, http.StatusOK))
		}
	}
	rc := newAMReceiver(t, statuses...)
	clock := &fakeClock{t: t0}
	p := newTestPusher(t, clock, Options{}, rc)
	wantErrors := 0.0
	for _, s := range steps {
		clock.Advance(s.advance)
		if s.nilCall {
			p.Update(nil)
		}
		if s.update != nil {
			p.Update(s.update)
		}
		before := rc.count()
		err := p.PushOnce(context.Background())
		if (err != nil) != s.wantErr {
			t.Fatalf("%s: PushOnce error = %v, want error %v", s.name, err, s.wantErr)
		}
		if s.wantErr {
			wantErrors++
		}
		if s.want == nil {
			if rc.count() != before {
				t.Fatalf("%s: sent %s, want nothing", s.name, rc.last(t))
			}
			continue
		}
		assertAlerts(t, s.name, decodeAlerts(t, rc.last(t)), s.want)
	}
	if got := testutil.ToFloat64(p.errors); got != wantErrors {
		t.Errorf("alertmanager errors = %v, want %v", got, wantErrors)
	}
}

func TestAlertResolveDeliveredToEachAlertmanager(t *testing.T) {
	healthy := newAMReceiver(t)
	flaky := newAMReceiver(t, http.StatusOK, http.StatusInternalServerError)
	clock := &fakeClock{t: reporttest.Time}
	p := newTestPusher(t, clock, Options{}, healthy, flaky)

	p.Update(alertReport(findingBigKey))
	if err := p.PushOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	p.Update(alertReport())
	if err := p.PushOnce(context.Background()); err == nil {
		t.Fatal("PushOnce hid the flaky Alertmanager's error")
	}
	resolvedAt := reporttest.Time.Add(time.Minute)
	want := []sentAlert{{"big", "critical", reporttest.Time, resolvedAt}}
	assertAlerts(t, "healthy got the resolve", decodeAlerts(t, healthy.last(t)), want)

	clock.Advance(time.Minute)
	healthyBefore := healthy.count()
	if err := p.PushOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if healthy.count() != healthyBefore {
		t.Errorf("healthy Alertmanager got the resolve twice: %s", healthy.last(t))
	}
	assertAlerts(t, "flaky got the retried resolve", decodeAlerts(t, flaky.last(t)), want)
}

func TestAlertSelection(t *testing.T) {
	all := alertReport(findingBigKey, findingHotKey, findingTombTable, findingSkew, findingInfoKey)
	tests := []struct {
		name string
		opts Options
		want []string // finding IDs pushed, sorted
	}{
		{name: "defaults", want: []string{"big", "hot", "tomb"}},
		{name: "critical only", opts: Options{MinSeverity: finding.SeverityCritical}, want: []string{"big"}},
		{name: "info and up", opts: Options{MinSeverity: finding.SeverityInfo}, want: []string{"big", "hot", "small", "tomb"}},
		{name: "key-level only", opts: Options{Kinds: []string{}}, want: []string{"big", "hot"}},
		{name: "skew added", opts: Options{Kinds: []string{analyzer.KindOwnershipSkew}}, want: []string{"big", "hot", "skew"}},
		// Node .1 is the Targeted node: a sidecar pushes its findings and node-less ones.
		{name: "sidecar", opts: Options{Mode: publish.ModeSidecar}, want: []string{"big", "tomb"}},
		{name: "sidecar speaking for .2", opts: Options{Mode: publish.ModeSidecar, SpeakFor: []string{"127.0.0.2"}}, want: []string{"hot", "tomb"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rc := newAMReceiver(t)
			p := newTestPusher(t, &fakeClock{t: reporttest.Time}, tc.opts, rc)
			p.Update(all)
			if err := p.PushOnce(context.Background()); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range decodeAlerts(t, rc.last(t)) {
				got = append(got, a.ID)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("pushed %v, want %v", got, tc.want)
			}
		})
	}
}

// TestAlertRunRetriesWithBackoff: Alertmanager fails four times, Run keeps
// retrying in its goroutine and delivers. Each retry waits the logged
// delay, doubling from MinBackoff and capped at MaxBackoff: a retry loop
// without backoff or without the cap fails.
func TestAlertRunRetriesWithBackoff(t *testing.T) {
	const minBackoff, maxBackoff = 50 * time.Millisecond, 100 * time.Millisecond
	wantDelays := []time.Duration{minBackoff, 2 * minBackoff, maxBackoff, maxBackoff}
	rc := newAMReceiver(t, http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusInternalServerError)
	core, logs := observer.New(zap.WarnLevel)
	p := newTestPusher(t, &fakeClock{t: reporttest.Time},
		Options{MinBackoff: minBackoff, MaxBackoff: maxBackoff, Logger: zap.New(core)}, rc)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.Run(ctx); close(done) }()

	p.Update(alertReport(findingBigKey))
	select {
	case body := <-rc.got:
		assertAlerts(t, "delivered after retries", decodeAlerts(t, body),
			[]sentAlert{{"big", "critical", reporttest.Time, reporttest.Time.Add(3 * time.Minute)}})
	case <-time.After(30 * time.Second):
		t.Fatal("no alert delivered")
	}
	// The receiver saw the body before the pusher read the answer: wait
	// for the count before cancelling, or the cancel would fail that request.
	for deadline := time.Now().Add(30 * time.Second); testutil.ToFloat64(p.pushed) < 1; {
		if time.Now().After(deadline) {
			t.Fatal("the delivered alert was never counted")
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	<-done
	if got := testutil.ToFloat64(p.errors); got != 4 {
		t.Errorf("alertmanager errors = %v, want 4", got)
	}
	if got := testutil.ToFloat64(p.pushed); got != 1 {
		t.Errorf("alerts pushed = %v, want 1", got)
	}
	var delays []time.Duration
	for _, e := range logs.FilterMessage("sending alerts failed, retrying").All() {
		for _, f := range e.Context {
			if f.Key == "duration" {
				delays = append(delays, time.Duration(f.Integer))
			}
		}
	}
	if !slices.Equal(delays, wantDelays) {
		t.Errorf("retry delays %v, want %v (doubling from %s, capped at %s)", delays, wantDelays, minBackoff, maxBackoff)
	}
	// Each retry came at least its delay after the failure before it.
	arrivals := rc.arrivals()
	if len(arrivals) != len(wantDelays)+1 {
		t.Fatalf("%d requests, want %d", len(arrivals), len(wantDelays)+1)
	}
	for i, want := range wantDelays {
		if gap := arrivals[i+1].Sub(arrivals[i]); gap < want {
			t.Errorf("retry %d came %s after the failure before it, want at least %s", i+1, gap, want)
		}
	}
}

// TestAlertUpdateNeverBlocks: with a POST to Alertmanager hanging, Update
// still returns at once, and Run stops when its context ends. A deadline
// makes a blocking Update fail here instead of hanging to go test's timeout.
func TestAlertUpdateNeverBlocks(t *testing.T) {
	const deadline = 5 * time.Second
	release := make(chan struct{})
	inFlight := make(chan struct{}, 100)
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inFlight <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hang.Close()
	defer close(release)
	p, err := New(Options{URLs: []string{hang.URL}, Now: (&fakeClock{t: reporttest.Time}).Now})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { p.Run(ctx); close(done) }()

	p.Update(alertReport(findingBigKey))
	within(t, deadline, "the first POST to reach Alertmanager", func() { <-inFlight })
	within(t, deadline, "ten Updates while a POST hangs", func() {
		for range 5 {
			p.Update(alertReport(findingBigKey))
			p.Update(alertReport())
		}
	})
	cancel()
	within(t, deadline, "Run to stop after its context ended", func() { <-done })
}

// within fails the test when f has not returned after d.
func within(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	finished := make(chan struct{})
	go func() { f(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(d):
		t.Fatalf("waited %s for %s", d, what)
	}
}

func TestNewRejectsBadURLs(t *testing.T) {
	for _, u := range []string{"alertmanager:9093", "ftp://am:21", "http://", "http://[::1"} {
		if _, err := New(Options{URLs: []string{u}}); err == nil {
			t.Errorf("New accepted %q", u)
		}
	}
	p, err := New(Options{URLs: []string{"http://am:9093/", "https://am2/prefix"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.targets[0].url != "http://am:9093/api/v2/alerts" || p.targets[1].url != "https://am2/prefix/api/v2/alerts" {
		t.Errorf("targets %s, %s", p.targets[0].url, p.targets[1].url)
	}
}

func TestAlertRunbookURL(t *testing.T) {
	tests := []struct{ configured, want string }{
		{"", "https://github.com/partmon/partmon/blob/main/docs/runbooks/PartmonAnalyzerFinding.md#oversized_partition"},
		{"https://wiki/partmon/{kind}.html", "https://wiki/partmon/oversized_partition.html"},
		{"-", ""},
	}
	for _, tc := range tests {
		p, err := New(Options{RunbookURL: tc.configured})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.template.alertFor(findingBigKey, "demo").Annotations["runbook_url"]; got != tc.want {
			t.Errorf("RunbookURL %q: runbook_url %q, want %q", tc.configured, got, tc.want)
		}
	}
}

func TestAlertName(t *testing.T) {
	tests := map[string]string{
		analyzer.KindOversizedPartition:     "PartmonOversizedPartition",
		analyzer.KindSecondaryIndexHighCard: "PartmonSecondaryIndexHighCardinality",
		analyzer.KindStaleData:              "PartmonStaleData",
	}
	for kind, want := range tests {
		if got := AlertName(kind); got != want {
			t.Errorf("AlertName(%q) = %q, want %q", kind, got, want)
		}
	}
}

// TestMetricNamesCoverCollected: MetricNames lists exactly what the pusher collects.
func TestMetricNamesCoverCollected(t *testing.T) {
	p, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(p)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, mf := range mfs {
		got = append(got, mf.GetName())
	}
	if strings.Join(got, ",") != strings.Join(MetricNames(), ",") {
		t.Errorf("collected %v, MetricNames %v", got, MetricNames())
	}
}

// panicOnce is a transport that panics at its first request, then posts.
type panicOnce struct{ done atomic.Bool }

func (p *panicOnce) RoundTrip(r *http.Request) (*http.Response, error) {
	if p.done.CompareAndSwap(false, true) {
		panic("transport bug")
	}
	return http.DefaultTransport.RoundTrip(r)
}

// A panic while pushing (a partmon bug) is logged and the pusher goes on:
// the next push reaches Alertmanager, and the process is still there.
func TestPusherRecoversAPanic(t *testing.T) {
	got := make(chan struct{}, 10)
	am := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- struct{}{}
		w.WriteHeader(http.StatusOK)
	}))
	defer am.Close()
	core, logs := observer.New(zap.ErrorLevel)
	p, err := New(Options{URLs: []string{am.URL}, Client: &http.Client{Transport: &panicOnce{}}, Logger: zap.New(core),
		Now: (&fakeClock{t: reporttest.Time}).Now})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.Run(ctx); close(done) }()
	p.Update(alertReport(findingBigKey))
	within(t, 10*time.Second, "a push after the panic", func() { <-got })
	cancel()
	within(t, 10*time.Second, "Run to stop", func() { <-done })
	if logs.FilterMessageSnippet("panicked").Len() != 1 {
		t.Errorf("logged: %v, want one panic", logs.All())
	}
}
