package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/partmon/partmon/alertmanager"
	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/tools/promtest"
	"github.com/partmon/partmon/tools/reporttest"
	"github.com/partmon/partmon/tools/testkit"
)

// TestPromtoolCheckMetrics lints the real /metrics page with Prometheus's own
// checker (Debian's prometheus package provides promtool), and shows that
// the check fails a broken page and a partmon family breaking the rules.
func TestPromtoolCheckMetrics(t *testing.T) {
	promtool := testkit.NeedTool(t, "apt-get install prometheus", "promtool")
	eLatest := &publish.Latest{}
	e := exporter.New(eLatest, exporter.Options{BuildInfo: fixtureBuild})
	eLatest.Publish(reporttest.Cluster())
	am, err := alertmanager.New(alertmanager.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := get(t, newTestHandler(t, eLatest, e, am).URL+"/metrics")
	if res.status != http.StatusOK || !strings.Contains(res.body, "go_goroutines") {
		t.Fatalf("/metrics status %d, without the Go collector's families", res.status)
	}
	tests := []struct {
		name     string
		page     string
		wantFail bool
	}{
		{name: "the served page", page: res.body},
		{name: "a line that does not parse", page: res.body + "partmon_up{ 1\n", wantFail: true},
		{name: "a partmon gauge named like a counter",
			page: res.body + "# HELP partmon_bogus_total x\n# TYPE partmon_bogus_total gauge\npartmon_bogus_total 1\n", wantFail: true},
		{name: "a foreign family's naming problem is excused",
			page: res.body + "# HELP other_requests x\n# TYPE other_requests counter\nother_requests 1\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			problems, err := promtest.CheckMetrics(promtool, tc.page)
			if err != nil {
				t.Fatal(err)
			}
			if (len(problems) > 0) != tc.wantFail {
				t.Errorf("problems %q; want a failure: %v", problems, tc.wantFail)
			}
		})
	}
}
