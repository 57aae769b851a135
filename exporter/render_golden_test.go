package exporter

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/partmon/partmon/analyzer"
)

// TestRenderGolden holds the one-shot report byte for byte: every format,
// from a hand-built report and from the exporter fixture.
func TestRenderGolden(t *testing.T) {
	tests := []struct {
		name   string
		report *analyzer.Report
		format Format
		min    analyzer.Severity
	}{
		{"sample_info.txt", renderSample(), FormatText, analyzer.SeverityInfo},
		{"sample_warning.txt", renderSample(), FormatText, analyzer.SeverityWarning},
		{"sample_info.md", renderSample(), FormatMarkdown, analyzer.SeverityInfo},
		{"sample.json", renderSample(), FormatJSON, analyzer.SeverityInfo},
		{"fixture_info.txt", exporterReport(), FormatText, analyzer.SeverityInfo},
		{"fixture_info.md", exporterReport(), FormatMarkdown, analyzer.SeverityInfo},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Render(&b, tc.report, tc.format, tc.min); err != nil {
				t.Fatal(err)
			}
			compareGolden(t, filepath.Join("testdata", "report", tc.name), b.Bytes())
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
