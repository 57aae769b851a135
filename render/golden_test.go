package render

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/tools/reporttest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/report/")

// TestRenderGolden holds the one-shot report byte for byte: every format,
// from a hand-built report and from the shared three-node fixture.
func TestRenderGolden(t *testing.T) {
	tests := []struct {
		name   string
		report *analyzer.Report
		format Format
		min    finding.Severity
	}{
		{"sample_info.txt", renderSample(), Text, finding.SeverityInfo},
		{"sample_warning.txt", renderSample(), Text, finding.SeverityWarning},
		{"sample_info.md", renderSample(), Markdown, finding.SeverityInfo},
		{"sample.json", renderSample(), JSON, finding.SeverityInfo},
		{"fixture_info.txt", reporttest.Cluster(), Text, finding.SeverityInfo},
		{"fixture_info.md", reporttest.Cluster(), Markdown, finding.SeverityInfo},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Report(&b, tc.report, tc.format, tc.min); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "report", tc.name)
			if *update {
				if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("reading golden file (go test -update writes it): %v", err)
			}
			if !bytes.Equal(b.Bytes(), want) {
				t.Errorf("report differs from %s (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", path, b.Bytes(), want)
			}
		})
	}
}
