package web

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/keyadvice"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/tools/reporttest"
)

// TestCardQuotesTheMeasuredKey: a card whose advice proposes a key gives
// the command that measures it; once the advisor has answered for that
// table with that key (written any way CQL allows), the card, on the
// overview and on the table's page, shows the sampled projection instead;
// an answer about another key leaves the command.
func TestCardQuotesTheMeasuredKey(t *testing.T) {
	const suggested = "((sensor, bucket(ts, 1d)), ts)"
	advise := func(_ context.Context, table string, keys []string) (*keyadvice.Advice, error) {
		ks, tb, _ := strings.Cut(table, ".")
		a := &keyadvice.Advice{Keyspace: ks, Table: tb, Sample: keyadvice.Sample{Node: "10.0.0.1", Taken: time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC), Partitions: 412, Rows: 9031, Ranges: 42, Requests: 60, RowsRead: 9500, RingShare: 0.05}}
		for _, k := range keys {
			a.Keys = append(a.Keys, keyadvice.Projection{Key: k, Method: keyadvice.MethodRefines, WrittenToday: -1,
				Partitions: keyadvice.Estimate{Value: 15900, Low: 14100, High: 17700, Known: true, Why: "token density × buckets"}})
		}
		return a, nil
	}
	tests := []struct {
		name, ask string
		want, not []string
	}{
		{name: "not measured", want: []string{"Measure it first:", "partmon advise --hosts HOST --table iot.series --key &#34;((sensor, bucket(ts, 1d)), ts)&#34;"},
			not: []string{"measured by the key advisor"}},
		{name: "measured, written with other spacing", ask: "/api/v1/advise/iot/series?key=((sensor,bucket(ts,1d)),ts)",
			want: []string{"The proposed key, measured by the key advisor", "sampled on 10.0.0.1: 412 whole partitions", "15,900 (95 %: 14,100 to 17,700)"},
			not:  []string{"Measure it first:"}},
		{name: "another key measured", ask: "/api/v1/advise/iot/series?key=((sensor,bucket(ts,1h)),ts)",
			want: []string{"Measure it first:"}, not: []string{"The proposed key, measured by the key advisor"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := reporttest.Cluster()
			r.Findings = append(r.Findings, finding.Finding{ID: "f-bucket", Kind: "oversized_partition", Severity: finding.SeverityWarning,
				Keyspace: "iot", Table: "series", Summary: "largest partition 480 MiB", Advice: "add a day bucket of ts to the partition key (sensor)",
				Value: 480 << 20, Threshold: 100 << 20, Unit: finding.UnitBytes, SuggestedKey: suggested})
			latest := &publish.Latest{}
			latest.Publish(r)
			h, err := NewHandler(latest, exporter.New(latest, exporter.Options{}), nil, HandlerOptions{Advise: advise})
			if err != nil {
				t.Fatal(err)
			}
			if tt.ask != "" {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, tt.ask, nil))
				if w.Code != http.StatusOK {
					t.Fatalf("%s: %d %s", tt.ask, w.Code, w.Body)
				}
			}
			for _, path := range []string{"/", "/tables/iot/series"} {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
				body, _ := io.ReadAll(w.Result().Body)
				page := string(body)
				for _, s := range tt.want {
					if !strings.Contains(page, s) {
						t.Errorf("%s lacks %q", path, s)
					}
				}
				for _, s := range tt.not {
					if strings.Contains(page, s) {
						t.Errorf("%s has %q", path, s)
					}
				}
			}
		})
	}
}
