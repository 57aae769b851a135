package exporter

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/tools/reporttest"
)

// BenchmarkExposition1000Tables3Nodes is one /metrics scrape of a cluster-mode
// partmon watching 1,000 tables on 3 nodes when every scrape collects the
// exporter afresh: promhttp over a registry holding only the Exporter, plain
// and gzip-encoded as Prometheus asks. The web package's benchmark of the
// same name measures the served page, which encodes this part once per Publish.
func BenchmarkExposition1000Tables3Nodes(b *testing.B) {
	eLatest := &publish.Latest{}
	e := New(eLatest, Options{Mode: publish.ModeCluster, BuildInfo: fixtureBuild})
	eLatest.Publish(reporttest.Large(1000))
	reg := prometheus.NewRegistry()
	reg.MustRegister(e)
	handler := promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
	for _, enc := range []string{"identity", "gzip"} {
		b.Run(enc, func(b *testing.B) {
			var body []byte
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
				req.Header.Set("Accept-Encoding", enc)
				rec := httptest.NewRecorder()
				handler.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("status %d: %s", rec.Code, rec.Body.String())
				}
				body = rec.Body.Bytes()
			}
			b.StopTimer()
			b.ReportMetric(float64(len(body)), "bytes/scrape")
			text := body
			if enc == "gzip" {
				r, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				if text, err = io.ReadAll(r); err != nil {
					b.Fatal(err)
				}
			}
			series, tableNode := reporttest.CountExposition(text)
			b.ReportMetric(float64(series), "series")
			b.ReportMetric(float64(tableNode)/(1000*3), "table_series/table/node")
		})
	}
}
