package web

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	promcfg "github.com/prometheus/common/config"
	webcfg "github.com/prometheus/exporter-toolkit/web"

	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/tools/reporttest"
	"github.com/partmon/partmon/tools/testkit"
)

// The page and the whole report are encoded once per published report, not
// once per request; a new report (and, for the page, a second) re-encodes.
func TestResponseCacheEncodesOncePerReport(t *testing.T) {
	latest := &publish.Latest{}
	latest.Publish(reporttest.Cluster())
	var encodes atomic.Int32
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := encodes.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, "encoding %d of %s", n, r.URL.Path)
	})
	c := newResponseCache(latest, inner, map[string]time.Duration{"/": time.Second, "/api/v1/report": 0})
	clock := time.Unix(1e9, 0)
	c.now = func() time.Time { return clock }
	get := func(path string) string {
		rec := httptest.NewRecorder()
		c.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" {
			t.Fatalf("GET %s: %d %v", path, rec.Code, rec.Header())
		}
		return rec.Body.String()
	}
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() { defer wg.Done(); get("/api/v1/report") }()
	}
	wg.Wait()
	if got := get("/api/v1/report"); got != "encoding 1 of /api/v1/report" || encodes.Load() != 1 {
		t.Fatalf("51 requests of one report: %d encodings, last %q; want 1", encodes.Load(), got)
	}
	clock = clock.Add(time.Hour)
	if get("/api/v1/report") != "encoding 1 of /api/v1/report" {
		t.Fatal("the report's encoding aged out: it has no max age")
	}
	latest.Publish(reporttest.Cluster())
	if got := get("/api/v1/report"); got != "encoding 2 of /api/v1/report" {
		t.Fatalf("after a new report: %q, want a new encoding", got)
	}
	get("/")
	get("/")
	if encodes.Load() != 3 {
		t.Fatalf("two page requests within a second: %d encodings in all, want 3", encodes.Load())
	}
	clock = clock.Add(time.Second)
	get("/")
	get("/api/v1/findings")
	get("/api/v1/findings")
	if encodes.Load() != 6 {
		t.Fatalf("page a second later and two uncached findings: %d encodings in all, want 6", encodes.Load())
	}
}

// Past the bound, a page or API request gets 503 and Retry-After at once;
// /metrics and health are not counted.
func TestPageLimit(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 10)
	h := pageLimit(2, "", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			entered <- struct{}{}
			<-release
		}
		w.WriteHeader(http.StatusOK)
	}))
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/slow", nil))
		}()
	}
	<-entered
	<-entered
	for path, want := range map[string]int{"/api/v1/report": 503, "/": 503, "/metrics": 200, "/healthz": 200} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != want || (want == 503 && rec.Header().Get("Retry-After") == "") {
			t.Errorf("GET %s with 2 slow requests in flight: %d %v, want %d", path, rec.Code, rec.Header(), want)
		}
	}
	close(release)
	wg.Wait()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if rec.Code != http.StatusOK {
		t.Errorf("after the slow requests: %d", rec.Code)
	}
}

func TestHostAllowed(t *testing.T) {
	names := []string{"partmon.example.org", ".svc.cluster.local"}
	for host, want := range map[string]bool{
		"127.0.0.1:9808":           true,
		"[::1]:9808":               true,
		"10.2.3.4":                 true,
		"localhost:9808":           true,
		"app.localhost":            true,
		"partmon.example.org:9808": true,
		"PARTMON.example.org.":     true,
		"partmon.monitoring.svc.cluster.local:9808": true,
		"evil.example.com:9808":                     false,
		"partmon.example.org.evil.com":              false,
		"svc.cluster.local.evil.com":                false,
		"":                                          false,
	} {
		if got := hostAllowed(host, names); got != want {
			t.Errorf("hostAllowed(%q) = %v, want %v", host, got, want)
		}
	}
}

// A rebound name (the attacker's) gets 403 on the page and the API, not on
// /metrics nor health; "*" turns the check off.
func TestHostCheck(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	for _, c := range []struct {
		allowed []string
		host    string
		path    string
		want    int
	}{
		{nil, "rebind.attacker.example", "/api/v1/report", http.StatusForbidden},
		{nil, "rebind.attacker.example", "/", http.StatusForbidden},
		{nil, "rebind.attacker.example", "/metrics", http.StatusOK},
		{nil, "rebind.attacker.example", "/healthz", http.StatusOK},
		{nil, "127.0.0.1:9808", "/api/v1/report", http.StatusOK},
		{[]string{"partmon.example.org"}, "partmon.example.org:9808", "/", http.StatusOK},
		{[]string{"*"}, "rebind.attacker.example", "/api/v1/report", http.StatusOK},
	} {
		req := httptest.NewRequest(http.MethodGet, c.path, nil)
		req.Host = c.host
		rec := httptest.NewRecorder()
		hostCheck(c.allowed, "", ok).ServeHTTP(rec, req)
		if rec.Code != c.want {
			t.Errorf("allowed %v, Host %s, GET %s: %d, want %d", c.allowed, c.host, c.path, rec.Code, c.want)
		}
	}
}

// A header past 64 KiB is refused (431) and the connection closed; one
// under it is served; a page request naming another site's Host gets 403.
func TestServeBoundsHeaders(t *testing.T) {
	latest := &publish.Latest{}
	e := exporter.New(latest, exporter.Options{})
	latest.Publish(reporttest.Cluster())
	h, err := NewHandler(latest, e, nil, HandlerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	addr := testkit.FreeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- Serve(ctx, []string{addr}, Access{}, h, nil) }()
	defer func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	client := &http.Client{Timeout: 10 * time.Second}
	waitServing(t, client, "http://"+addr+"/healthz", errc)
	for size, want := range map[int]int{32 << 10: http.StatusOK, 128 << 10: http.StatusRequestHeaderFieldsTooLarge} {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/healthz", nil)
		req.Header.Set("X-Pad", strings.Repeat("a", size))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%d-byte header: %v", size, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%d-byte header: %d, want %d", size, resp.StatusCode, want)
		}
	}
	// Serve checks the Host of the page and the API (DNS rebinding).
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/api/v1/report", nil)
	req.Host = "rebind.attacker.example"
	if resp, err := client.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("a rebound Host through Serve: %v %v, want 403", resp, err)
	} else {
		resp.Body.Close()
	}
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	resp := make([]byte, 64)
	fmt.Fprintf(conn, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	if n, _ := conn.Read(resp); !strings.HasPrefix(string(resp[:n]), "HTTP/1.1 200") {
		t.Fatalf("raw request: %q", resp[:n])
	}
}

// A cached check never waits for a bcrypt in progress, wrong passwords,
// however many, do not evict a right one, and past maxBcryptWaiting checks
// waiting a request is told to come back (busy) instead of queueing.
func TestAuthCacheOutsideBcrypt(t *testing.T) {
	a := &authHandler{bcryptSlot: make(chan struct{}, 1), good: newLRU(authCacheGood), bad: newLRU(authCacheBad)}
	c := &webcfg.Config{Users: map[string]promcfg.Secret{"prometheus": promcfg.Secret(hash(t, "right"))}}
	req := func(pass string) *http.Request {
		r := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		r.SetBasicAuth("prometheus", pass)
		return r
	}
	if _, ok, busy := a.authenticate(c, req("right")); !ok || busy {
		t.Fatal("right password refused")
	}
	for i := range 2 * authCacheBad {
		a.bad.add(sha256.Sum256([]byte(fmt.Sprint("wrong", i))))
	}
	a.bcryptSlot <- struct{}{} // a bcrypt in progress
	done := make(chan bool)
	go func() { _, ok, _ := a.authenticate(c, req("right")); done <- ok }()
	select {
	case ok := <-done:
		if !ok {
			t.Fatal("cached right password refused after 2,048 wrong ones")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a cached check waited for bcrypt")
	}
	a.waiting.Store(maxBcryptWaiting)
	if _, ok, busy := a.authenticate(c, req("another wrong one")); ok || !busy {
		t.Fatalf("with %d checks waiting: ok %v busy %v, want busy", maxBcryptWaiting, ok, busy)
	}
	<-a.bcryptSlot
}

// A body whose encoding failed after its 200 (a value JSON cannot hold) is
// not kept: the next request encodes again.
func TestResponseCacheKeepsNoFailedEncoding(t *testing.T) {
	latest := &publish.Latest{}
	latest.Publish(reporttest.Cluster())
	var encodes atomic.Int32
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		encodes.Add(1)
		writeCompact(w, struct{ V float64 }{math.NaN()})
	})
	c := newResponseCache(latest, inner, map[string]time.Duration{"/api/v1/report": 0})
	for range 2 {
		c.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/api/v1/report", nil))
	}
	if encodes.Load() != 2 {
		t.Fatalf("two requests of a report that cannot encode: %d encodings, want 2 (nothing kept)", encodes.Load())
	}
}
