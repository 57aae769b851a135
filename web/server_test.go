package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/partmon/partmon/alertmanager"
	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/tools/reporttest"
	"github.com/partmon/partmon/tools/testkit"
)

func newTestHandler(t *testing.T, latest *publish.Latest, e *exporter.Exporter, am *alertmanager.Pusher) *httptest.Server {
	t.Helper()
	var alerts prometheus.Collector
	if am != nil {
		alerts = am
	}
	h, err := NewHandler(latest, e, alerts, HandlerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

type httpResult struct {
	status      int
	contentType string
	body        string
}

func get(t *testing.T, url string) httpResult {
	t.Helper()
	return do(t, http.MethodGet, url)
}

func do(t *testing.T, method, url string) httpResult {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return httpResult{resp.StatusCode, resp.Header.Get("Content-Type"), string(b)}
}

func TestRoutes(t *testing.T) {
	tests := []struct {
		name        string
		publish     bool
		failed      bool // a cycle published that reached nothing
		method      string
		path        string
		wantStatus  int
		wantType    string
		wantContain []string
	}{
		{name: "healthz before", path: "/healthz", wantStatus: 200, wantContain: []string{"ok"}},
		{name: "readyz before: serving is ready, whatever the database", path: "/readyz", wantStatus: 200, wantContain: []string{"ready"}},
		{name: "first cycle before", path: "/readyz/cycle", wantStatus: 503, wantContain: []string{"not ready"}},
		{name: "first cycle failed: it finished, and says so", failed: true, path: "/readyz/cycle", wantStatus: 503,
			wantContain: []string{"not ready: 1 collection cycle(s) finished without reaching the cluster"}},
		{name: "findings before", path: "/api/v1/findings", wantStatus: 503, wantType: "application/json",
			wantContain: []string{`"error": "no report yet`}},
		{name: "report before", path: "/api/v1/report", wantStatus: 503, wantType: "application/json", wantContain: []string{`"error"`}},
		{name: "metrics before", path: "/metrics", wantStatus: 200, wantContain: []string{"partmon_up 0", "partmon_build_info{", "go_goroutines"}},
		{name: "page before", path: "/", wantStatus: 200, wantType: "text/html; charset=utf-8",
			wantContain: []string{"Waiting for the first collection cycle"}},
		{name: "healthz after", publish: true, path: "/healthz", wantStatus: 200},
		{name: "readyz after", publish: true, path: "/readyz", wantStatus: 200, wantContain: []string{"ready"}},
		{name: "first cycle after", publish: true, path: "/readyz/cycle", wantStatus: 200, wantContain: []string{"first cycle done"}},
		{name: "metrics after", publish: true, path: "/metrics", wantStatus: 200, wantContain: []string{
			"partmon_up 1",
			`partmon_table_max_partition_size_bytes{cluster="demo",dc="dc1",keyspace="shop",node="127.0.0.1",rack="r1",table="orders"} 2.097152e+08`,
			"partmon_alerts_pushed_total 0", "partmon_alertmanager_errors_total 0", "process_cpu_seconds_total"}},
		{name: "report after", publish: true, path: "/api/v1/report", wantStatus: 200, wantType: "application/json",
			wantContain: []string{`"cluster":"demo"`, `"id":"f-oversized"`, `"token_values"`}},
		{name: "unknown path", path: "/nope", wantStatus: 404},
		{name: "post to findings", method: http.MethodPost, path: "/api/v1/findings", wantStatus: 405},
		{name: "report takes no parameters", publish: true, path: "/api/v1/report?x=1", wantStatus: 400, wantContain: []string{"no parameters"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			eLatest := &publish.Latest{}
			e := exporter.New(eLatest, exporter.Options{BuildInfo: fixtureBuild})
			am, err := alertmanager.New(alertmanager.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if tc.publish {
				eLatest.Publish(reporttest.Cluster())
			}
			if tc.failed {
				eLatest.Publish(reporttest.Failed())
			}
			srv := newTestHandler(t, eLatest, e, am)
			method := tc.method
			if method == "" {
				method = http.MethodGet
			}
			res := do(t, method, srv.URL+tc.path)
			if res.status != tc.wantStatus {
				t.Fatalf("status %d, want %d; body %s", res.status, tc.wantStatus, res.body)
			}
			if tc.wantType != "" && res.contentType != tc.wantType {
				t.Errorf("Content-Type %q, want %q", res.contentType, tc.wantType)
			}
			for _, w := range tc.wantContain {
				if !strings.Contains(res.body, w) {
					t.Errorf("body lacks %q:\n%s", w, truncate(res.body, 2000))
				}
			}
		})
	}
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func TestFindingsFilters(t *testing.T) {
	eLatest := &publish.Latest{}
	e := exporter.New(eLatest, exporter.Options{})
	eLatest.Publish(reporttest.Cluster())
	srv := newTestHandler(t, eLatest, e, nil)
	tests := []struct {
		query   string
		wantIDs []string // report order
	}{
		{query: "", wantIDs: []string{"f-oversized", "f-hotrange", "f-skew", "f-lowcard"}},
		{query: "severity=warning", wantIDs: []string{"f-oversized", "f-hotrange", "f-skew"}},
		{query: "severity=CRITICAL", wantIDs: []string{"f-oversized"}},
		{query: "kind=ownership_skew,hot_token_range", wantIDs: []string{"f-hotrange", "f-skew"}},
		{query: "kind=ownership_skew&kind=low_cardinality_key", wantIDs: []string{"f-skew", "f-lowcard"}},
		{query: "keyspace=shop&table=orders", wantIDs: []string{"f-oversized", "f-hotrange", "f-lowcard"}},
		{query: "node=127.0.0.2", wantIDs: []string{"f-hotrange"}},
		{query: "severity=warning&table=orders", wantIDs: []string{"f-oversized", "f-hotrange"}},
		{query: "id=f-skew", wantIDs: []string{"f-skew"}},
		{query: "keyspace=nope", wantIDs: []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			res := get(t, srv.URL+"/api/v1/findings?"+tc.query)
			if res.status != http.StatusOK {
				t.Fatalf("status %d: %s", res.status, res.body)
			}
			var body findingsResponse
			if err := json.Unmarshal([]byte(res.body), &body); err != nil {
				t.Fatal(err)
			}
			ids := []string{}
			for _, f := range body.Findings {
				ids = append(ids, f.ID)
			}
			if strings.Join(ids, ",") != strings.Join(tc.wantIDs, ",") || body.Count != len(tc.wantIDs) {
				t.Errorf("got %v (count %d), want %v", ids, body.Count, tc.wantIDs)
			}
			if body.Cluster != "demo" || !body.Generated.Equal(reporttest.Time.Add(90*time.Second)) {
				t.Errorf("cluster %q generated %v", body.Cluster, body.Generated)
			}
		})
	}
}

func TestFindingsBadFilters(t *testing.T) {
	eLatest := &publish.Latest{}
	e := exporter.New(eLatest, exporter.Options{})
	eLatest.Publish(reporttest.Cluster())
	srv := newTestHandler(t, eLatest, e, nil)
	tests := []struct {
		query, wantMessage string
	}{
		{"severity=urgent", `unknown severity \"urgent\"`},
		{"severity=info,warning", "takes one value"},
		{"kind=huge_partition", `unknown kind \"huge_partition\"`},
		{"colour=red", `unknown parameter \"colour\"`},
		{"table=", "parameter table has an empty value"},
		{"node=127.0.0.1,", "parameter node has an empty value"},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			res := get(t, srv.URL+"/api/v1/findings?"+tc.query)
			if res.status != http.StatusBadRequest {
				t.Fatalf("status %d, want 400: %s", res.status, res.body)
			}
			if !strings.Contains(res.body, tc.wantMessage) {
				t.Errorf("body %s lacks %q", res.body, tc.wantMessage)
			}
		})
	}
}

// waitServing polls until url answers: Serve has no "listening" signal.
func waitServing(t *testing.T, client *http.Client, url string, errc <-chan error) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case err := <-errc:
			t.Fatalf("Serve returned early: %v", err)
		default:
		}
		resp, err := client.Get(url)
		if err == nil {
			resp.Body.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never answered: %v", url, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestServeWebConfigAndShutdown(t *testing.T) {
	eLatest := &publish.Latest{}
	e := exporter.New(eLatest, exporter.Options{})
	eLatest.Publish(reporttest.Cluster())
	h, err := NewHandler(eLatest, e, nil, HandlerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// dave:dave123 at bcrypt cost 10, from exporter-toolkit v0.20.0 web/testdata/web_config_users_noTLS.good.yml.
	webConfig := filepath.Join(t.TempDir(), "web.yml")
	if err := os.WriteFile(webConfig, []byte("basic_auth_users:\n  dave: $2y$10$2UXri9cIDdgeKjBo4Rlpx.U3ZLDV8X1IxKmsfOvhcM5oXQt/mLmXq\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := testkit.FreeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- Serve(ctx, []string{addr}, Access{ConfigFile: webConfig}, h, nil) }()

	base := "http://" + addr
	waitServing(t, http.DefaultClient, base+"/healthz", errc)
	tests := []struct {
		name       string
		user, pass string
		wantStatus int
	}{
		{name: "no credentials", wantStatus: http.StatusUnauthorized},
		{name: "wrong password", user: "dave", pass: "dave1234", wantStatus: http.StatusUnauthorized},
		{name: "right password", user: "dave", pass: "dave123", wantStatus: http.StatusOK},
	}
	for _, tc := range tests {
		req, _ := http.NewRequest(http.MethodGet, base+"/api/v1/findings", nil)
		if tc.user != "" {
			req.SetBasicAuth(tc.user, tc.pass)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.wantStatus {
			t.Errorf("%s: status %d, want %d", tc.name, resp.StatusCode, tc.wantStatus)
		}
	}

	cancel()
	if err := <-errc; err != nil {
		t.Fatalf("Serve after cancel: %v", err)
	}
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Error("the port still accepts connections after shutdown")
	}
}

func TestServeRejectsBadWebConfig(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "web.yml")
	if err := os.WriteFile(bad, []byte("tls_server_config:\n  cert_file: /nonexistent.crt\n  key_file: /nonexistent.key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := Serve(context.Background(), []string{testkit.FreeAddr(t)}, Access{ConfigFile: bad}, http.NotFoundHandler(), nil)
	if err == nil || !strings.Contains(err.Error(), "web config") {
		t.Errorf("Serve with a bad web config: %v", err)
	}
	if err := Serve(context.Background(), nil, Access{}, http.NotFoundHandler(), nil); err == nil {
		t.Error("Serve without listen addresses returned nil")
	}
}

// TestMetricsHandlerConcurrentWithPublish scrapes while reports are swapped:
// go test -race checks that the atomic swap needs no lock on the scrape path.
func TestMetricsHandlerConcurrentWithPublish(t *testing.T) {
	eLatest := &publish.Latest{}
	e := exporter.New(eLatest, exporter.Options{})
	srv := newTestHandler(t, eLatest, e, nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 50 {
			r := reporttest.Cluster()
			r.Generated = r.Generated.Add(time.Duration(i) * time.Second)
			eLatest.Publish(r)
		}
	}()
	for range 20 {
		res := get(t, srv.URL+"/metrics")
		if res.status != http.StatusOK {
			t.Fatalf("status %d", res.status)
		}
	}
	<-done
	res := get(t, srv.URL+"/metrics")
	if want := fmt.Sprintf("partmon_last_cycle_timestamp_seconds %g", float64(reporttest.Time.Add(139*time.Second).Unix())); !strings.Contains(res.body, want) {
		t.Errorf("/metrics lacks %q after the last publish", want)
	}
}
