package web

import (
	"cmp"
	"container/list"
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/prometheus/exporter-toolkit/web"
	"go.yaml.in/yaml/v2"
	"golang.org/x/crypto/bcrypt"
	"golang.org/x/time/rate"
)

// Access is who may reach which endpoint, and over what.
//
// ConfigFile is an exporter-toolkit web config (TLS, basic_auth_users,
// http_server_config, rate_limit), re-read on every request and every TLS
// handshake as the toolkit does, so rotated certificates and changed users
// apply without a restart. Health (/healthz, /readyz, /readyz/cycle) always
// answers without credentials: probes must not need them. /metrics needs
// any of the file's users. PageUsers, if set, are the only users who may
// see the status page and the API (they show partition keys); the others
// get 403 there. Empty PageUsers: every user sees everything.
type Access struct {
	ConfigFile string
	PageUsers  []string
	// MetricsPath is where /metrics is served (--web.telemetry-path); empty: /metrics.
	MetricsPath string
	// AllowedHosts are the Host names the page and the API answer besides
	// IP addresses and localhost; nil: the machine's host name; "*": any
	// (hostCheck, docs/operations.md "Exposure").
	AllowedHosts []string
}

// endpoint classes, strictest last.
type endpointClass int

const (
	classHealth endpointClass = iota
	classMetrics
	classPage
)

// classify puts a request path in its class. Anything not health or
// /metrics is page-class, unknown paths included, so a 404 is only shown
// to whoever may see the page.
func classify(path, metricsPath string) endpointClass {
	switch path {
	case "/healthz", "/readyz", cyclePath:
		return classHealth
	case cmp.Or(metricsPath, "/metrics"):
		return classMetrics
	}
	return classPage
}

// CheckAccess validates a.ConfigFile as the toolkit would and checks that
// every page user is one of its basic_auth_users. It is what check-config
// and Serve run before anything is served.
func CheckAccess(a Access) error {
	if a.ConfigFile == "" {
		if len(a.PageUsers) > 0 {
			return errors.New("page_users needs config_file with basic_auth_users naming them")
		}
		return nil
	}
	if err := web.Validate(a.ConfigFile); err != nil {
		return fmt.Errorf("checking web config file %s: %w", a.ConfigFile, err)
	}
	c, err := readWebConfig(a.ConfigFile)
	if err != nil {
		return fmt.Errorf("checking web config file %s: %w", a.ConfigFile, err)
	}
	for _, u := range a.PageUsers {
		if _, ok := c.Users[u]; !ok {
			return fmt.Errorf("page_users: %q is not in basic_auth_users of %s", u, a.ConfigFile)
		}
	}
	return nil
}

// readWebConfig reads the file with the toolkit's defaults and strictness.
func readWebConfig(path string) (*web.Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c := &web.Config{
		TLSConfig: web.TLSConfig{
			MinVersion: web.TLSVersion(tls.VersionTLS12),
			MaxVersion: web.TLSVersion(tls.VersionTLS13),
		},
		HTTPConfig: web.HTTPConfig{HTTP2: true},
	}
	if err := yaml.UnmarshalStrict(b, c); err != nil {
		return nil, err
	}
	c.TLSConfig.SetDirectory(filepath.Dir(path))
	return c, nil
}

// authHandler does what the toolkit's handler does (headers, rate limit,
// basic auth against bcrypt hashes), per endpoint class.
type authHandler struct {
	path        string
	metricsPath string
	next        http.Handler
	pageUsers   []string
	limiter     *rate.Limiter

	// bcrypt runs one at a time (it is CPU-bound by design), outside the
	// cache's lock, so that a flood of wrong passwords never holds up a
	// cached check; past maxBcryptWaiting waiting, a request gets 429.
	bcryptSlot chan struct{}
	waiting    atomic.Int32
	good, bad  *lru // outcomes apart: wrong passwords cannot evict a right one
}

// Remembered (user, hash, password) outcomes: right ones (few users), and
// wrong ones (a flood of one wrong password costs one bcrypt).
const (
	authCacheGood    = 256
	authCacheBad     = 1024
	maxBcryptWaiting = 16
)

func (a *authHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c, err := readWebConfig(a.path)
	if err != nil {
		http.Error(w, "web config file unreadable: "+err.Error(), http.StatusInternalServerError)
		return
	}
	for k, v := range c.HTTPConfig.Header {
		w.Header().Set(k, v)
	}
	class := classify(r.URL.Path, a.metricsPath)
	if class == classHealth || len(c.Users) == 0 {
		a.next.ServeHTTP(w, r)
		return
	}
	if a.limiter != nil && !a.limiter.Allow() {
		http.Error(w, http.StatusText(http.StatusTooManyRequests), http.StatusTooManyRequests)
		return
	}
	user, ok, busy := a.authenticate(c, r)
	if busy {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "too many password checks at once, retry in a second", http.StatusTooManyRequests)
		return
	}
	if !ok {
		w.Header().Set("WWW-Authenticate", "Basic")
		http.Error(w, http.StatusText(http.StatusUnauthorized), http.StatusUnauthorized)
		return
	}
	if class == classPage && len(a.pageUsers) > 0 && !slices.Contains(a.pageUsers, user) {
		http.Error(w, "forbidden: this user may read /metrics only (web.page_users)", http.StatusForbidden)
		return
	}
	a.next.ServeHTTP(w, r)
}

// authenticate checks the request's basic auth against the file's users;
// busy is true when it could not (too many bcrypt checks waiting).
func (a *authHandler) authenticate(c *web.Config, r *http.Request) (user string, ok, busy bool) {
	user, pass, ok := r.BasicAuth()
	if !ok {
		return "", false, false
	}
	hash, known := c.Users[user]
	if !known {
		// A fixed hash ("fakepassword", the toolkit's) so an unknown user
		// takes as long as a known one.
		hash = "$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi"
	}
	// The cache key is a digest: no password is kept in memory.
	key := sha256.Sum256([]byte(strings.Join([]string{user, string(hash), pass}, "\x00")))
	if a.good.has(key) {
		return user, known, false
	}
	if a.bad.has(key) {
		return user, false, false
	}
	if a.waiting.Add(1) > maxBcryptWaiting {
		a.waiting.Add(-1)
		return user, false, true
	}
	a.bcryptSlot <- struct{}{}
	good := bcrypt.CompareHashAndPassword([]byte(hash), []byte(pass)) == nil
	<-a.bcryptSlot
	a.waiting.Add(-1)
	if good {
		a.good.add(key)
	} else {
		a.bad.add(key)
	}
	return user, good && known, false
}

// lru is a bounded set of digests, the least recently used dropped first.
type lru struct {
	mu    sync.Mutex
	size  int
	order *list.List // front: most recent
	at    map[[sha256.Size]byte]*list.Element
}

func newLRU(size int) *lru {
	return &lru{size: size, order: list.New(), at: map[[sha256.Size]byte]*list.Element{}}
}

func (l *lru) has(k [sha256.Size]byte) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.at[k]
	if ok {
		l.order.MoveToFront(e)
	}
	return ok
}

func (l *lru) add(k [sha256.Size]byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.at[k]; ok {
		l.order.MoveToFront(e)
		return
	}
	l.at[k] = l.order.PushFront(k)
	if l.order.Len() > l.size {
		last := l.order.Back()
		l.order.Remove(last)
		delete(l.at, last.Value.([sha256.Size]byte))
	}
}

// serveListener serves srv on l, over TLS if setupTLS configured it.
func serveListener(l net.Listener, srv *http.Server) error {
	if srv.TLSConfig != nil {
		return srv.ServeTLS(l, "", "")
	}
	return srv.Serve(l)
}

// setupTLS sets srv.TLSConfig from the file, once for every listener, with
// the file and the certificate and key it names re-read on every handshake
// (rotation without a restart), as the toolkit does.
func setupTLS(srv *http.Server, path string) error {
	c, err := readWebConfig(path)
	if err != nil {
		return err
	}
	if !c.TLSConfig.IsEnabled() {
		return nil
	}
	cfg, err := web.ConfigToTLSConfig(&c.TLSConfig)
	if err != nil {
		return err
	}
	protos := []string{"http/1.1"}
	if c.HTTPConfig.HTTP2 {
		protos = []string{"h2", "http/1.1"}
	} else {
		srv.TLSNextProto = map[string]func(*http.Server, *tls.Conn, http.Handler){}
	}
	cfg.NextProtos = protos
	cfg.GetConfigForClient = func(*tls.ClientHelloInfo) (*tls.Config, error) {
		c, err := readWebConfig(path)
		if err != nil {
			return nil, err
		}
		t, err := web.ConfigToTLSConfig(&c.TLSConfig)
		if err != nil {
			return nil, err
		}
		t.NextProtos = protos
		return t, nil
	}
	srv.TLSConfig = cfg
	return nil
}

// newAuthHandler wraps next with a's access rules.
func newAuthHandler(a Access, next http.Handler) (http.Handler, error) {
	if a.ConfigFile == "" {
		return next, nil
	}
	c, err := readWebConfig(a.ConfigFile)
	if err != nil {
		return nil, err
	}
	h := &authHandler{path: a.ConfigFile, metricsPath: a.MetricsPath, next: next, pageUsers: a.PageUsers,
		bcryptSlot: make(chan struct{}, 1), good: newLRU(authCacheGood), bad: newLRU(authCacheBad)}
	if rl := c.RateLimiterConfig; rl.Interval != 0 {
		h.limiter = rate.NewLimiter(rate.Every(rl.Interval), rl.Burst)
	}
	return h, nil
}
