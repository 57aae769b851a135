package metriccontract

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/partmon/partmon/alertmanager"
	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/tools/reporttest"
)

// TestMetricNamesCoverCollected: the full fixture behind the exporter and a
// pusher produces exactly the families MetricNames lists (what /metrics serves besides the go_, process_ and promhttp_ families).
func TestMetricNamesCoverCollected(t *testing.T) {
	eLatest := &publish.Latest{}
	e := exporter.New(eLatest, exporter.Options{Started: reporttest.Time, Config: exporter.NewConfigStatus(reporttest.Time)})
	eLatest.Publish(reporttest.Cluster())
	am, err := alertmanager.New(alertmanager.Options{})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(e, e.Process(), am)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, mf := range mfs {
		got = append(got, mf.GetName())
	}
	if strings.Join(got, "\n") != strings.Join(MetricNames(), "\n") {
		t.Errorf("collected:\n%s\nMetricNames:\n%s", strings.Join(got, "\n"), strings.Join(MetricNames(), "\n"))
	}
}
