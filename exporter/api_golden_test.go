package exporter

import (
	"net/http"
	"path/filepath"
	"testing"
)

// TestAPIGolden holds the JSON API byte for byte.
func TestAPIGolden(t *testing.T) {
	e := New(Options{})
	e.Publish(exporterReport())
	srv := newTestHandler(t, e, nil)
	tests := []struct{ name, path string }{
		{"findings.json", "/api/v1/findings"},
		{"findings_filtered.json", "/api/v1/findings?severity=warning&table=orders"},
		{"report.json", "/api/v1/report"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := get(t, srv.URL+tc.path)
			if res.status != http.StatusOK || res.contentType != "application/json" {
				t.Fatalf("status %d, Content-Type %q", res.status, res.contentType)
			}
			compareGolden(t, filepath.Join("testdata", "api", tc.name), []byte(res.body))
		})
	}
}
