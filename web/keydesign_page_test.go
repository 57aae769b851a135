package web

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/keyadvice"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/tools/reporttest"
)

// The status page's Key design section: off, on with nothing asked yet,
// and the answer to an advise request shown for its table.
func TestStatusPageKeyDesign(t *testing.T) {
	taken := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	advise := func(_ context.Context, table string, keys []string) (*keyadvice.Advice, error) {
		ks, tb, _ := strings.Cut(table, ".")
		a := &keyadvice.Advice{Keyspace: ks, Table: tb, Sample: keyadvice.Sample{Node: "10.0.0.1", Taken: taken, Partitions: 412, Rows: 9031, Ranges: 42, Requests: 60, RowsRead: 9500, RingShare: 0.05}}
		a.Keys = append(a.Keys, keyadvice.Projection{Key: "((sensor), ts)", Current: true, Method: keyadvice.MethodCurrent,
			Partitions: keyadvice.Estimate{Value: 1157, Low: 857, High: 1458, Known: true, Why: "token density"},
			Rows:       keyadvice.Sizes{P50: 60, P99: 60, Max: 60, Known: true, P99Draws: 9}, WrittenToday: -1,
			Warnings: []string{"partitions grow without bound: bucket ts"}})
		for _, k := range keys {
			a.Keys = append(a.Keys, keyadvice.Projection{Key: k, Method: keyadvice.MethodRegroups, WrittenToday: -1,
				Partitions: keyadvice.Estimate{Why: "unknown: Good-Turing coverage 0.15, under 0.95"}})
		}
		return a, nil
	}
	tests := []struct {
		name      string
		f         AdviseFunc
		ask       string // an advise request before the page
		want, not []string
	}{
		{name: "off", want: []string{`id="key-design"`, "The key advisor is off", "--advise.enabled"}, not: []string{"No table has been advised"}},
		{name: "on, nothing asked", f: advise, want: []string{`id="key-design"`, "No table has been advised on since partmon started", "/api/v1/advise/"},
			not: []string{"The key advisor is off", `class="key-design"`}},
		{name: "on, one table advised", f: advise, ask: "/api/v1/advise/iot/series?key=((sensor,%20bucket(ts,%201d)),%20ts)",
			want: []string{`href="/tables/iot/series">iot.series</a>`, "sampled 2026-12-07T12:00:00Z", "sampled on 10.0.0.1: 412 whole partitions",
				"<code>((sensor), ts)</code> (current)", `<span class="sev warning">warning</span>`, "1,157 (95 %: 857 to 1,458)",
				"partitions grow without bound: bucket ts", "<code>((sensor, bucket(ts, 1d)), ts)</code>", "Good-Turing coverage 0.15"},
			not: []string{"The key advisor is off", "No table has been advised"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			latest := &publish.Latest{}
			latest.Publish(reporttest.Cluster())
			h, err := NewHandler(latest, exporter.New(latest, exporter.Options{}), nil, HandlerOptions{Advise: tt.f})
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
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
			body, _ := io.ReadAll(w.Result().Body)
			page := string(body)
			for _, s := range tt.want {
				if !strings.Contains(page, s) {
					t.Errorf("page lacks %q", s)
				}
			}
			for _, s := range tt.not {
				if strings.Contains(page, s) {
					t.Errorf("page has %q", s)
				}
			}
		})
	}
}

// heldAdvice keeps one answer a table, the newest first, and forgets the
// oldest past heldAdviceTables.
func TestHeldAdvice(t *testing.T) {
	var h heldAdvice
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range heldAdviceTables + 2 {
		h.put(&keyadvice.Advice{Keyspace: "ks", Table: string(rune('a' + i)), Sample: keyadvice.Sample{Taken: t0.Add(time.Duration(i) * time.Minute)}})
	}
	h.put(&keyadvice.Advice{Keyspace: "ks", Table: "c", Sample: keyadvice.Sample{Taken: t0.Add(time.Hour)}})
	all := h.all()
	if len(all) != heldAdviceTables {
		t.Fatalf("%d held, want %d", len(all), heldAdviceTables)
	}
	if all[0].Table != "c" {
		t.Errorf("newest first: got %s, want c (asked again last)", all[0].Table)
	}
	for _, a := range all {
		if a.Table == "a" || a.Table == "b" {
			t.Errorf("%s.%s held: the oldest go first", a.Keyspace, a.Table)
		}
	}
	var none *heldAdvice
	none.put(all[0])
	if none.all() != nil {
		t.Error("a nil store holds nothing")
	}
}
