package web

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/tools/reporttest"
)

// BenchmarkExposition1000Tables3Nodes is one /metrics scrape of a cluster-mode
// partmon watching 1,000 tables on 3 nodes, through the real handler (no
// Go/process collectors), plain and gzip-encoded as Prometheus asks. The
// exporter package's benchmark of the same name is the same scrape gathered
// and encoded afresh, as every scrape was before the cache.
func BenchmarkExposition1000Tables3Nodes(b *testing.B) {
	eLatest := &publish.Latest{}
	e := exporter.New(eLatest, exporter.Options{Mode: publish.ModeCluster, BuildInfo: fixtureBuild})
	handler, err := NewHandler(eLatest, e, nil, HandlerOptions{DisableExporterMetrics: true})
	if err != nil {
		b.Fatal(err)
	}
	eLatest.Publish(reporttest.Large(1000))
	// As in the daemon after its first cycle: the page has been served in
	// both encodings once, so Publish has encoded and deflated it already
	// (BenchmarkExpositionPublish1000Tables3Nodes measures that part).
	// OpenMetrics (what Prometheus asks for first) is cached as text is.
	for _, name := range []string{"identity", "gzip", "openmetrics-identity", "openmetrics-gzip"} {
		accept, enc := "", name
		if e, ok := strings.CutPrefix(name, "openmetrics-"); ok {
			accept, enc = openMetricsAccept, e
		}
		scrapeAs(b, handler, accept, enc)
		b.Run(name, func(b *testing.B) {
			var body []byte
			b.ReportAllocs()
			for b.Loop() {
				body = scrapeAs(b, handler, accept, enc)
			}
			b.StopTimer()
			b.ReportMetric(float64(len(body)), "bytes/scrape")
			series, tableNode := reporttest.CountExposition(gunzipIf(b, body, enc))
			b.ReportMetric(float64(series), "series")
			b.ReportMetric(float64(tableNode)/(1000*3), "table_series/table/node")
		})
	}
}

// openMetricsAccept is Prometheus 2's Accept header, OpenMetrics first.
const openMetricsAccept = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"

func scrape(b *testing.B, h http.Handler, encoding string) []byte {
	return scrapeAs(b, h, "", encoding)
}

func scrapeAs(b *testing.B, h http.Handler, accept, encoding string) []byte {
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	req.Header.Set("Accept-Encoding", encoding)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		b.Fatalf("status %d: %s", rec.Code, rec.Body.String())
	}
	return rec.Body.Bytes()
}

func gunzipIf(tb testing.TB, body []byte, encoding string) []byte {
	tb.Helper()
	if encoding != "gzip" {
		return body
	}
	r, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	text, err := io.ReadAll(r)
	if err != nil {
		tb.Fatal(err)
	}
	return text
}

// BenchmarkExpositionPublish1000Tables3Nodes is what the cache costs the
// publishing goroutine per cycle: after a page was served plain and gzipped,
// each Publish gathers the exporter once and encodes and deflates its part.
func BenchmarkExpositionPublish1000Tables3Nodes(b *testing.B) {
	eLatest := &publish.Latest{}
	e := exporter.New(eLatest, exporter.Options{Mode: publish.ModeCluster, BuildInfo: fixtureBuild})
	handler, err := NewHandler(eLatest, e, nil, HandlerOptions{DisableExporterMetrics: true})
	if err != nil {
		b.Fatal(err)
	}
	r := reporttest.Large(1000)
	eLatest.Publish(r)
	scrape(b, handler, "identity")
	scrape(b, handler, "gzip")
	b.ReportAllocs()
	for b.Loop() {
		eLatest.Publish(r)
	}
}

// BenchmarkExpositionDuringRebuild1000Tables3Nodes is a gzip scrape that
// arrives while the next Publish's rebuild is under way (held for the whole
// benchmark): it is served the previous page, so it costs what
// BenchmarkExposition1000Tables3Nodes/gzip does, not the rebuild.
func BenchmarkExpositionDuringRebuild1000Tables3Nodes(b *testing.B) {
	eLatest := &publish.Latest{}
	e := exporter.New(eLatest, exporter.Options{Mode: publish.ModeCluster, BuildInfo: fixtureBuild})
	m := newMetricsHandler(eLatest, e, prometheus.NewRegistry(), prometheus.NewCounterVec(prometheus.CounterOpts{Name: "errs"}, []string{"cause"}),
		zapPrintln{}, 0)
	r := reporttest.Large(1000)
	eLatest.Publish(r)
	scrape(b, m, "gzip")
	held := holdRebuilds(m)
	published := make(chan struct{})
	go func() { eLatest.Publish(r); close(published) }()
	<-held.started
	b.ReportAllocs()
	for b.Loop() {
		scrape(b, m, "gzip")
	}
	b.StopTimer()
	close(held.release)
	<-published
}

// BenchmarkExpositionPromhttp1000Tables3Nodes is the same scrape served by
// promhttp.HandlerFor over the families gathered once per report (the
// handler's fallback): what /metrics would cost with promhttp's own
// negotiation and gzip instead of the bytes encoded once per report.
func BenchmarkExpositionPromhttp1000Tables3Nodes(b *testing.B) {
	eLatest := &publish.Latest{}
	e := exporter.New(eLatest, exporter.Options{Mode: publish.ModeCluster, BuildInfo: fixtureBuild})
	m := newMetricsHandler(eLatest, e, prometheus.NewRegistry(), prometheus.NewCounterVec(prometheus.CounterOpts{Name: "errs"}, []string{"cause"}),
		zapPrintln{}, 0)
	eLatest.Publish(reporttest.Large(1000))
	m.current() // gathered once, as after a Publish
	for _, enc := range []string{"identity", "gzip"} {
		b.Run(enc, func(b *testing.B) {
			var body []byte
			b.ReportAllocs()
			for b.Loop() {
				body = scrape(b, m.fallback, enc)
			}
			b.StopTimer()
			b.ReportMetric(float64(len(body)), "bytes/scrape")
		})
	}
}
