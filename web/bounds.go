package web

import (
	"bytes"
	"maps"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/partmon/partmon/publish"
)

// What the server accepts (Serve): a request's header, its whole read, a
// response's write, and an idle keep-alive connection are each bounded, so
// a slow or oversized client holds no connection for long.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 30 * time.Second
	writeTimeout      = 60 * time.Second
	idleTimeout       = 60 * time.Second
	maxHeaderBytes    = 64 << 10
)

// DefaultMaxPageRequestsInFlight bounds concurrent requests of the page and
// the API (not /metrics, which has its own bound, nor health); past it a
// request gets 503 with Retry-After at once instead of queueing.
const DefaultMaxPageRequestsInFlight = 8

// pageLimit answers 503 past n concurrent page-class requests.
func pageLimit(n int, metricsPath string, next http.Handler) http.Handler {
	if n <= 0 {
		return next
	}
	slots := make(chan struct{}, n)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if classify(r.URL.Path, metricsPath) != classPage {
			next.ServeHTTP(w, r)
			return
		}
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
			next.ServeHTTP(w, r)
		default:
			w.Header().Set("Retry-After", "1")
			writeText(w, http.StatusServiceUnavailable, "busy: too many page and API requests at once, retry in a second\n")
		}
	})
}

// responseCache keeps the encoded 200 responses of paths that read only the
// published report: one encoding per report, served to every request until
// the next Publish (or, for a path with a max age, until it is that old:
// the status page writes the report's age in words).
type responseCache struct {
	latest *publish.Latest
	next   http.Handler
	maxAge map[string]time.Duration // cached paths; 0: as long as the report
	now    func() time.Time

	build sync.Mutex // one encoding at a time: others wait and take it
	mu    sync.Mutex
	have  map[string]*cachedResponse
	sizes map[string]int // each path's last body length, under build
}

type cachedResponse struct {
	generation uint64
	built      time.Time
	header     http.Header
	body       []byte
}

func newResponseCache(latest *publish.Latest, next http.Handler, maxAge map[string]time.Duration) *responseCache {
	return &responseCache{latest: latest, next: next, maxAge: maxAge, now: time.Now, have: map[string]*cachedResponse{}, sizes: map[string]int{}}
}

func (c *responseCache) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	maxAge, cached := c.maxAge[r.URL.Path]
	if !cached || r.Method != http.MethodGet || r.URL.RawQuery != "" {
		c.next.ServeHTTP(w, r)
		return
	}
	if e := c.fresh(r.URL.Path, maxAge); e != nil {
		e.write(w)
		return
	}
	c.build.Lock()
	e := c.fresh(r.URL.Path, maxAge)
	if e == nil {
		// The stale body goes now, not once the new one is built: the
		// report's is hundreds of MB on a large cluster, and two at once
		// would double the peak (requests writing it keep their own hold).
		c.mu.Lock()
		delete(c.have, r.URL.Path)
		c.mu.Unlock()
		gen := c.latest.Cycle().Generation // read before: a later Publish only makes it stale
		rec := &recorder{header: http.Header{}, status: http.StatusOK, body: sizedBuffer(c.sizes[r.URL.Path])}
		c.next.ServeHTTP(rec, r)
		if rec.status != http.StatusOK || rec.failed {
			c.build.Unlock()
			rec.writeTo(w)
			return
		}
		c.sizes[r.URL.Path] = rec.body.Len()
		e = &cachedResponse{generation: gen, built: c.now(), header: rec.header, body: rec.body.Bytes()}
		c.mu.Lock()
		c.have[r.URL.Path] = e
		c.mu.Unlock()
	}
	c.build.Unlock()
	e.write(w)
}

// fresh is path's response if it was built from the current report and is
// not older than maxAge.
func (c *responseCache) fresh(path string, maxAge time.Duration) *cachedResponse {
	c.mu.Lock()
	e := c.have[path]
	c.mu.Unlock()
	if e == nil || e.generation != c.latest.Cycle().Generation || (maxAge > 0 && c.now().Sub(e.built) >= maxAge) {
		return nil
	}
	return e
}

func (e *cachedResponse) write(w http.ResponseWriter) {
	maps.Copy(w.Header(), e.header)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(e.body)
}

// recorder is an http.ResponseWriter that keeps what is written.
type recorder struct {
	header http.Header
	status int
	wrote  bool
	body   *bytes.Buffer
	failed bool // the handler could not finish the body (encodingFailed)
}

// encodingFailed marks a body cut short after its 200 was written: served
// as it is to this request, never kept for the next.
func (r *recorder) encodingFailed() { r.failed = true }

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(status int) {
	if !r.wrote {
		r.status, r.wrote = status, true
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	r.wrote = true
	return r.body.Write(p)
}

func (r *recorder) writeTo(w http.ResponseWriter) {
	maps.Copy(w.Header(), r.header)
	w.WriteHeader(r.status)
	_, _ = w.Write(r.body.Bytes())
}

// hostCheck answers 403 to a page or API request whose Host is not allowed,
// so that a page of another site, its name rebound to this address (DNS
// rebinding), cannot read the report from an operator's browser. An IP
// address and localhost are always allowed: a rebinding request carries the
// attacker's name. allowed nil: the machine's own host name (as
// os.Hostname gives it) besides; "*" turns the check off. /metrics and health are not
// checked: Prometheus and probes name targets in many ways; basic auth
// (web.config.file) or hidden keys protect /metrics (docs/operations.md
// "Exposure").
func hostCheck(allowed []string, metricsPath string, next http.Handler) http.Handler {
	if slices.Contains(allowed, "*") {
		return next
	}
	names := allowed
	if len(names) == 0 {
		if h, err := os.Hostname(); err == nil && h != "" {
			names = []string{h}
		}
	}
	names = slices.Clone(names)
	for i, n := range names {
		names[i] = strings.ToLower(strings.TrimSuffix(n, "."))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if classify(r.URL.Path, metricsPath) == classPage && !hostAllowed(r.Host, names) {
			writeText(w, http.StatusForbidden, "forbidden: this Host is not one partmon serves its page and API to; add the name you use to --web.allowed-hosts (web.allowed_hosts), or reach it by IP address\n")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hostAllowed: host (a Host header, port optional) is an IP address,
// localhost, one of names, or under a name given with a leading dot.
func hostAllowed(host string, names []string) bool {
	h := host
	if hp, _, err := net.SplitHostPort(host); err == nil {
		h = hp
	}
	h = strings.ToLower(strings.TrimSuffix(strings.Trim(h, "[]"), "."))
	if net.ParseIP(h) != nil || h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	for _, n := range names {
		if h == n || (strings.HasPrefix(n, ".") && strings.HasSuffix(h, n)) {
			return true
		}
	}
	return false
}
