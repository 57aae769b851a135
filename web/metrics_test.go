package web

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/partmon/partmon/alertmanager"
	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/tools/reporttest"
)

// freshHandler is /metrics as promhttp would serve it (OpenMetrics on): gathering
// the exporter and the pusher on every scrape.
func freshHandler(t *testing.T, cs ...prometheus.Collector) http.Handler {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(cs...)
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError, EnableOpenMetrics: true})
}

type response struct {
	status                int
	contentType, encoding string
	vary                  []string
	body                  []byte // decompressed
	compressedLen         int
}

func serve(t *testing.T, h http.Handler, path, accept, acceptEncoding string) response {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if acceptEncoding != "" {
		req.Header.Set("Accept-Encoding", acceptEncoding)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	res := rec.Result()
	body := rec.Body.Bytes()
	return response{status: res.StatusCode, contentType: res.Header.Get("Content-Type"), encoding: res.Header.Get("Content-Encoding"),
		vary: res.Header.Values("Vary"), body: gunzipIf(t, body, res.Header.Get("Content-Encoding")), compressedLen: len(body)}
}

var accepts = map[string]string{
	"no Accept":  "",
	"text 0.0.4": "text/plain;version=0.0.4",
	"Prometheus 2 (OpenMetrics first)": "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75," +
		"text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
	"Prometheus 3 (UTF-8)": "text/plain;version=1.0.0;escaping=allow-utf-8;q=0.9,text/plain;version=0.0.4;q=0.3",
	"protobuf":             "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.7,text/plain;version=0.0.4;q=0.3",
}

// TestCachedPageEqualsFreshGather: for every format and compression the
// served page decodes to the bytes promhttp writes from a fresh gather,
// with the same Content-Type, Content-Encoding and Vary.
func TestCachedPageEqualsFreshGather(t *testing.T) {
	eLatest := &publish.Latest{}
	e := exporter.New(eLatest, exporter.Options{BuildInfo: fixtureBuild})
	am, err := alertmanager.New(alertmanager.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewHandler(eLatest, e, am, HandlerOptions{DisableExporterMetrics: true})
	if err != nil {
		t.Fatal(err)
	}
	eLatest.Publish(reporttest.Cluster())
	fresh := freshHandler(t, e, am)
	for name, accept := range accepts {
		for _, enc := range []string{"", "gzip", "gzip, identity", "br"} {
			t.Run(name+"/"+enc, func(t *testing.T) {
				got, want := serve(t, h, "/metrics", accept, enc), serve(t, fresh, "/metrics", accept, enc)
				if got.status != http.StatusOK || got.contentType != want.contentType || got.encoding != want.encoding ||
					strings.Join(got.vary, ",") != strings.Join(want.vary, ",") {
					t.Errorf("status %d, Content-Type %q, Content-Encoding %q, Vary %q; fresh: %d, %q, %q, %q",
						got.status, got.contentType, got.encoding, got.vary, want.status, want.contentType, want.encoding, want.vary)
				}
				if !bytes.Equal(got.body, want.body) {
					t.Errorf("cached page (%d bytes) differs from a fresh gather (%d bytes):\n%s", len(got.body), len(want.body), diffLines(got.body, want.body))
				}
				if !bytes.Contains(want.body, []byte("partmon_alerts_pushed_total")) {
					t.Error("the comparison lacks the live families")
				}
			})
		}
	}
}

// diffLines shows the first line where two pages part.
func diffLines(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d: got  %s\n want %s", i+1, al[i], bl[i])
		}
	}
	return "one is a prefix of the other"
}

// TestCachedPageRebuiltOnPublish: the exporter's part is built once per
// Publish, not per scrape, and the next Publish replaces it, already
// encoded in the formats the previous page was served in.
func TestCachedPageRebuiltOnPublish(t *testing.T) {
	eLatest := &publish.Latest{}
	e := exporter.New(eLatest, exporter.Options{BuildInfo: fixtureBuild})
	m := newMetricsHandler(eLatest, e, prometheus.NewRegistry(), prometheus.NewCounterVec(prometheus.CounterOpts{Name: "errs"}, []string{"cause"}),
		zapPrintln{}, 0)
	fresh := freshHandler(t, e)

	first := reporttest.Cluster()
	eLatest.Publish(first)
	if got := m.builds.Load(); got != 1 {
		t.Fatalf("%d builds after the first Publish, want 1", got)
	}
	var a response
	for range 3 {
		a = serve(t, m, "/metrics", "", "gzip")
	}
	if got := m.builds.Load(); got != 1 {
		t.Errorf("%d builds after 3 scrapes, want 1", got)
	}
	if want := serve(t, fresh, "/metrics", "", "gzip"); !bytes.Equal(a.body, want.body) {
		t.Error("page after the first Publish differs from a fresh gather")
	}

	second := reporttest.Cluster()
	second.Findings = second.Findings[:1]
	second.Generated = second.Generated.Add(60e9)
	eLatest.Publish(second)
	if got := m.builds.Load(); got != 2 {
		t.Fatalf("%d builds after the second Publish, want 2", got)
	}
	x := m.page.Load()
	if p := x.encoded[expfmt.NegotiateAccept(http.Header{}, expfmt.DefaultAcceptedFormats()...)]; p == nil || p.deflate == nil {
		t.Error("the new page is not encoded and deflated in advance for the format the last one was served in")
	}
	b := serve(t, m, "/metrics", "", "gzip")
	if want := serve(t, fresh, "/metrics", "", "gzip"); !bytes.Equal(b.body, want.body) {
		t.Error("page after the second Publish differs from a fresh gather")
	}
	if bytes.Equal(a.body, b.body) || !bytes.Contains(a.body, []byte(`kind="hot_token_range"`)) {
		t.Error("the second report's page did not replace the first's")
	}
	if got := m.builds.Load(); got != 2 {
		t.Errorf("%d builds, want 2", got)
	}
}

// With Go and process metrics on, the page holds the same families as a
// fresh gather of all collectors, and the exporter's bytes unchanged.
func TestCachedPageWithExporterMetrics(t *testing.T) {
	eLatest := &publish.Latest{}
	e := exporter.New(eLatest, exporter.Options{BuildInfo: fixtureBuild})
	h, err := NewHandler(eLatest, e, nil, HandlerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eLatest.Publish(reporttest.Cluster())
	page := serve(t, h, "/metrics", "", "gzip")
	got := parseFamilies(t, page.body)
	for _, n := range []string{"go_goroutines", "process_cpu_seconds_total", "promhttp_metric_handler_requests_total",
		"promhttp_metric_handler_errors_total", "partmon_up"} {
		if got[n] == nil {
			t.Errorf("page lacks %s", n)
		}
	}
	ownPage := serve(t, freshHandler(t, e), "/metrics", "", "")
	for name, mf := range parseFamilies(t, ownPage.body) {
		var a, b bytes.Buffer
		_, _ = expfmt.MetricFamilyToText(&a, mf)
		if got[name] != nil {
			_, _ = expfmt.MetricFamilyToText(&b, got[name])
		}
		if a.String() != b.String() {
			t.Errorf("family %s differs from a fresh gather", name)
		}
	}
}

func parseFamilies(t *testing.T, text []byte) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		t.Fatalf("page does not parse: %v", err)
	}
	return mfs
}

// A name[] filter, which the cache does not serve, gets promhttp's answer.
func TestCachedPageNameFilter(t *testing.T) {
	eLatest := &publish.Latest{}
	e := exporter.New(eLatest, exporter.Options{BuildInfo: fixtureBuild})
	h, err := NewHandler(eLatest, e, nil, HandlerOptions{DisableExporterMetrics: true})
	if err != nil {
		t.Fatal(err)
	}
	eLatest.Publish(reporttest.Cluster())
	path := "/metrics?name[]=partmon_up&name[]=partmon_node_tokens"
	got, want := serve(t, h, path, "", ""), serve(t, freshHandler(t, e), path, "", "")
	if !bytes.Equal(got.body, want.body) || !bytes.HasPrefix(got.body, []byte("# HELP partmon_node_tokens")) {
		t.Errorf("filtered page:\n%s\nwant:\n%s", got.body, want.body)
	}
}

func TestSplitAround(t *testing.T) {
	fam := func(names ...string) []*dto.MetricFamily {
		var out []*dto.MetricFamily
		for _, n := range names {
			out = append(out, &dto.MetricFamily{Name: &n})
		}
		return out
	}
	x := &exposition{families: fam("partmon_build_info", "partmon_up"), first: "partmon_build_info", last: "partmon_up"}
	tests := []struct {
		name          string
		live          []string
		before, after int
		ok            bool
	}{
		{name: "none", ok: true},
		{name: "around", live: []string{"go_goroutines", "partmon_alerts_pushed_total", "process_open_fds", "promhttp_x"}, before: 2, after: 2, ok: true},
		{name: "all after", live: []string{"zz"}, after: 1, ok: true},
		{name: "inside", live: []string{"go_goroutines", "partmon_node_tokens"}},
		{name: "same name as a cached family", live: []string{"partmon_up"}},
	}
	for _, tc := range tests {
		before, after, ok := splitAround(fam(tc.live...), x)
		if ok != tc.ok || len(before) != tc.before || len(after) != tc.after {
			t.Errorf("%s: %d before, %d after, %v; want %d, %d, %v", tc.name, len(before), len(after), ok, tc.before, tc.after, tc.ok)
		}
	}
}

// A metric the exporter cannot build is reported as promhttp reports it:
// logged, counted as a gathering error on every scrape, the rest served.
func TestCachedPageGatherError(t *testing.T) {
	eLatest := &publish.Latest{}
	e := exporter.New(eLatest, exporter.Options{Cluster: "bad\xff", BuildInfo: fixtureBuild})
	errCnt := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "errs"}, []string{"cause"})
	var logged []string
	m := newMetricsHandler(eLatest, e, prometheus.NewRegistry(), errCnt, printlnFunc(func(v ...any) { logged = append(logged, fmt.Sprint(v...)) }), 0)
	eLatest.Publish(reporttest.Cluster())
	for range 2 {
		page := serve(t, m, "/metrics", "", "")
		if page.status != http.StatusOK || !bytes.Contains(page.body, []byte("partmon_up 1")) {
			t.Fatalf("status %d, body lacks partmon_up 1", page.status)
		}
	}
	if got := testutil.ToFloat64(errCnt.WithLabelValues("gathering")); got != 2 {
		t.Errorf("gathering errors = %v, want 2", got)
	}
	if len(logged) != 2 || !strings.Contains(logged[0], "error gathering metrics:") || !strings.Contains(logged[0], `label value "bad\xff" is not valid UTF-8`) {
		t.Errorf("logged %d lines, want 2 naming the bad label value", len(logged))
	}
}

// printlnFunc is a promhttp.Logger.
type printlnFunc func(v ...any)

func (f printlnFunc) Println(v ...any) { f(v...) }

// heldGatherer is the exporter's gather with a gate: once held, each Gather
// says it started and waits for release, as a slow rebuild would.
type heldGatherer struct {
	prometheus.Gatherer
	started, release chan struct{}
}

func holdRebuilds(m *metricsHandler) heldGatherer {
	g := heldGatherer{Gatherer: m.own, started: make(chan struct{}, 1), release: make(chan struct{})}
	m.own = g
	return g
}

func (g heldGatherer) Gather() ([]*dto.MetricFamily, error) {
	g.started <- struct{}{}
	<-g.release
	return g.Gatherer.Gather()
}

// TestScrapeDuringRebuildServesPreviousPage: while a Publish's rebuild is
// held, a scrape is answered at once with the previous page; once the
// rebuild ends, scrapes get the new one.
func TestScrapeDuringRebuildServesPreviousPage(t *testing.T) {
	eLatest := &publish.Latest{}
	e := exporter.New(eLatest, exporter.Options{BuildInfo: fixtureBuild})
	m := newMetricsHandler(eLatest, e, prometheus.NewRegistry(), prometheus.NewCounterVec(prometheus.CounterOpts{Name: "errs"}, []string{"cause"}),
		zapPrintln{}, 0)
	eLatest.Publish(reporttest.Cluster())
	before := serve(t, m, "/metrics", "", "gzip")

	held := holdRebuilds(m)
	second := reporttest.Cluster()
	second.Findings = second.Findings[:1]
	published := make(chan struct{})
	go func() { eLatest.Publish(second); close(published) }()
	<-held.started

	answered := make(chan response, 1)
	go func() { answered <- serve(t, m, "/metrics", "", "gzip") }()
	select {
	case during := <-answered:
		if !bytes.Equal(during.body, before.body) {
			t.Error("a scrape during the rebuild was not served the previous page")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a scrape during a rebuild waited on it (no answer within 5 s)")
	}

	close(held.release)
	<-published
	after := serve(t, m, "/metrics", "", "gzip")
	if bytes.Equal(after.body, before.body) || !bytes.Contains(before.body, []byte(`kind="hot_token_range"`)) {
		t.Error("after the rebuild, scrapes are not served the new page")
	}
}
