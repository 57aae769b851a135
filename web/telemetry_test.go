package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/tools/reporttest"
)

// TestTelemetryPathAndExporterMetrics: --web.telemetry-path moves the
// exposition, --web.disable-exporter-metrics drops go_*, process_* and
// promhttp_* as node_exporter's does.
func TestTelemetryPathAndExporterMetrics(t *testing.T) {
	latest := &publish.Latest{}
	e := exporter.New(latest, exporter.Options{})
	latest.Publish(reporttest.Cluster())
	for _, disable := range []bool{false, true} {
		h, err := NewHandler(latest, e, nil, HandlerOptions{TelemetryPath: "/x/metrics", DisableExporterMetrics: disable})
		if err != nil {
			t.Fatal(err)
		}
		for path, want := range map[string]int{"/x/metrics": http.StatusOK, "/metrics": http.StatusNotFound} {
			rec := serve(t, h, path, "", "")
			if rec.status != want {
				t.Errorf("GET %s: %d, want %d", path, rec.status, want)
			}
		}
		if page := string(serve(t, h, "/", "", "").body); !strings.Contains(page, `<a href="/x/metrics">`) {
			t.Errorf("the status page does not link the telemetry path")
		}
		body := string(serve(t, h, "/x/metrics", "", "").body)
		if !strings.Contains(body, "\npartmon_up 1\n") {
			t.Errorf("no partmon_up at the telemetry path")
		}
		for _, prefix := range []string{"\ngo_", "\nprocess_", "\npromhttp_"} {
			if got := strings.Contains(body, prefix); got == disable {
				t.Errorf("disable-exporter-metrics %v: %s series present: %v", disable, prefix[1:], got)
			}
		}
	}
}

// TestOpenMetricsWhenAsked: Prometheus asks for OpenMetrics first and gets
// it, with its one "# EOF" at the end, plain and gzipped.
func TestOpenMetricsWhenAsked(t *testing.T) {
	latest := &publish.Latest{}
	e := exporter.New(latest, exporter.Options{})
	latest.Publish(reporttest.Cluster())
	h, err := NewHandler(latest, e, nil, HandlerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, enc := range []string{"identity", "gzip"} {
		res := serve(t, h, "/metrics", openMetricsAccept, enc)
		if !strings.HasPrefix(res.contentType, "application/openmetrics-text; version=1.0.0") {
			t.Errorf("%s: Content-Type %q", enc, res.contentType)
		}
		body := string(res.body)
		if !strings.HasSuffix(body, "\n# EOF\n") || strings.Count(body, "# EOF") != 1 {
			t.Errorf("%s: not one # EOF at the end: ...%s", enc, body[max(0, len(body)-200):])
		}
		if !strings.Contains(body, "\npartmon_up 1.0\n") { // OpenMetrics writes floats
			t.Errorf("%s: no partmon_up", enc)
		}
	}
}
