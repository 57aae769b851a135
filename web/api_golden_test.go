package web

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/tools/reporttest"
)

// TestAPIGolden holds the JSON API byte for byte.
func TestAPIGolden(t *testing.T) {
	eLatest := &publish.Latest{}
	e := exporter.New(eLatest, exporter.Options{})
	eLatest.Publish(reporttest.Cluster())
	srv := newTestHandler(t, eLatest, e, nil)
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

// compareGolden compares got with a golden file; go test -update rewrites it.
func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run go test -update to create it): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
