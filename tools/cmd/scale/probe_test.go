package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestScrapeSumAddsEveryIngester: a store of several ingesting processes
// (Thanos receivers, one TSDB head per tenant each) holds the sum of their
// heads; a process that does not answer fails the measurement.
func TestScrapeSumAddsEveryIngester(t *testing.T) {
	serve := func(body string) string {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, body) }))
		t.Cleanup(s.Close)
		return s.URL + "/metrics"
	}
	a := serve("# TYPE prometheus_tsdb_head_series gauge\nprometheus_tsdb_head_series{tenant=\"default-tenant\"} 300\n" +
		"# TYPE prometheus_tsdb_head_samples_appended_total counter\nprometheus_tsdb_head_samples_appended_total{tenant=\"default-tenant\",type=\"float\"} 1000\n" +
		"prometheus_tsdb_head_samples_appended_total{tenant=\"default-tenant\",type=\"histogram\"} 5\n")
	b := serve("# TYPE prometheus_tsdb_head_series gauge\nprometheus_tsdb_head_series{tenant=\"default-tenant\"} 200\n" +
		"# TYPE prometheus_tsdb_head_samples_appended_total counter\nprometheus_tsdb_head_samples_appended_total{tenant=\"default-tenant\",type=\"float\"} 500\n")
	for _, tc := range []struct {
		name             string
		urls             []string
		series, appended float64
	}{
		{"one process (Prometheus)", []string{b}, 200, 500},
		{"two receivers", []string{a, b}, 500, 1505},
	} {
		got, err := scrapeSum(tc.urls, "prometheus_tsdb_head_series", "prometheus_tsdb_head_samples_appended_total")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got["prometheus_tsdb_head_series"] != tc.series || got["prometheus_tsdb_head_samples_appended_total"] != tc.appended {
			t.Errorf("%s: %v, want %v series and %v appended", tc.name, got, tc.series, tc.appended)
		}
	}
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	if _, err := scrapeSum([]string{a, gone.URL + "/metrics"}, "prometheus_tsdb_head_series"); err == nil {
		t.Error("a receiver that does not answer: no error")
	}
}

func TestUnrecorded(t *testing.T) {
	var groups []vmalertGroup
	if err := json.Unmarshal([]byte(`[{"name":"g","interval":120,"rules":[
		{"name":"node_table:x:rate5m","type":"recording","lastSamples":0},
		{"name":"table:y:max","type":"recording","lastSamples":12},
		{"name":"PartmonHotPartition","type":"alerting","lastSamples":0}]}]`), &groups); err != nil {
		t.Fatal(err)
	}
	if got := unrecorded(groups); len(got) != 1 || got[0] != "node_table:x:rate5m" {
		t.Errorf("unrecorded = %v, want the one recording rule that recorded nothing", got)
	}
}
