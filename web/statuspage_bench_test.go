package web

import (
	"net/http/httptest"
	"testing"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/publish"
)

// vnodePage is the status page of 6 nodes × 256 random tokens over two
// DCs (NTS dc1:3 dc2:2, 1,536 ranges) with two hot keys: the largest ring
// the page is asked to draw range by range.
func vnodePage(tb testing.TB) *statusPage {
	tb.Helper()
	latest := &publish.Latest{}
	latest.Publish(ShapedReport(6, 256, 2, map[string]string{"class": "org.apache.cassandra.locator.NetworkTopologyStrategy", "dc1": "3", "dc2": "2"},
		[]analyzer.HeatKey{{Keyspace: "ks", Table: "t", Key: "hot", Token: 1234567890123456789, OK: true, Share: 0.9},
			{Keyspace: "ks", Table: "t", Key: "warm", Token: -8000000000000000000, OK: true, Share: 0.3}}))
	p, err := newStatusPage(latest, exporter.New(latest, exporter.Options{}))
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// BenchmarkStatusPage6x256 renders that page; bytes/page is its size.
func BenchmarkStatusPage6x256(b *testing.B) {
	p := vnodePage(b)
	var size int
	for b.Loop() {
		w := httptest.NewRecorder()
		p.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
		size = w.Body.Len()
	}
	b.ReportMetric(float64(size), "bytes/page")
}
