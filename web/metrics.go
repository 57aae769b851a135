package web

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/publish"
)

// Why not promhttp.HandlerFor alone: it could keep serving the previous
// page during a rebuild (it does, as the fallback below, over the families
// gathered once per report), but it encodes, and for gzip compresses, those
// families on every scrape: BenchmarkExpositionPromhttp1000Tables3Nodes
// against BenchmarkExposition1000Tables3Nodes, measured in docs/benchmarks.md
// ("/metrics encoded once per report").
//
// metricsHandler serves /metrics. The exporter's families change only when
// a report is published, so they are gathered and encoded once per
// Publish (per format, and deflated once for gzip); each scrape gathers
// only the live families (alert pusher counters, Go, process, promhttp) and
// writes them around the cached bytes, in the name order promhttp would.
// Anything else (a name[] filter, a live family sorting inside the cached
// range) goes to promhttp over the cached families and the live ones.
type metricsHandler struct {
	latest   *publish.Latest
	own      prometheus.Gatherer // the exporter alone (its own Gather)
	live     prometheus.Gatherer
	errCnt   *prometheus.CounterVec
	log      promhttp.Logger
	inFlight chan struct{} // nil: unbounded
	fallback http.Handler

	buildMu sync.Mutex // one build at a time
	page    atomic.Pointer[exposition]
	builds  atomic.Int64 // for tests: builds so far
}

// exposition is the exporter's part of /metrics for one generation.
type exposition struct {
	generation  uint64
	families    []*dto.MetricFamily // read-only once built
	err         error               // the gather error, reported on every scrape as promhttp would
	first, last string              // family names, sorted

	mu      sync.Mutex
	encoded map[expfmt.Format]*encodedPart
}

type encodedPart struct {
	text    []byte
	encErr  error
	deflate *deflated // nil until a gzip scrape asks
}

func newMetricsHandler(latest *publish.Latest, e *exporter.Exporter, live prometheus.Gatherer, errCnt *prometheus.CounterVec, log promhttp.Logger, inFlight int) *metricsHandler {
	// The exporter gathers its families as a registry holding it alone
	// would, without the registry's checks per series (exporter.Gather).
	m := &metricsHandler{latest: latest, own: e, live: live, errCnt: errCnt, log: log}
	if inFlight > 0 {
		m.inFlight = make(chan struct{}, inFlight)
	}
	m.fallback = promhttp.HandlerFor(prometheus.Gatherers{cachedGatherer{m}, live},
		promhttp.HandlerOpts{ErrorLog: log, ErrorHandling: promhttp.ContinueOnError, EnableOpenMetrics: true})
	latest.OnPublish(m.refresh)
	return m
}

// cachedGatherer hands promhttp the cached families of the current generation.
type cachedGatherer struct{ m *metricsHandler }

func (g cachedGatherer) Gather() ([]*dto.MetricFamily, error) {
	x := g.m.current()
	return x.families, x.err
}

// current is the page a scrape serves. Once one exists it is the last one
// built: a Publish rebuilds on its own goroutine (refresh) and swaps the new
// page in when it is ready, so a scrape during a rebuild (about 250 ms at
// 3 × 1,000 tables) is served the previous generation at once instead of
// waiting. Only the first page, before any was built, is built here.
func (m *metricsHandler) current() *exposition {
	if x := m.page.Load(); x != nil {
		return x
	}
	return m.build()
}

// build makes the exposition of the exporter's latest generation, unless
// the stored one already is.
func (m *metricsHandler) build() *exposition {
	m.buildMu.Lock()
	defer m.buildMu.Unlock()
	gen := m.latest.Cycle().Generation // read before gathering: the content is at least this new
	prev := m.page.Load()
	if prev != nil && prev.generation == gen {
		return prev
	}
	mfs, err := m.own.Gather()
	x := &exposition{generation: gen, families: mfs, err: err, encoded: map[expfmt.Format]*encodedPart{}}
	if len(mfs) > 0 {
		x.first, x.last = mfs[0].GetName(), mfs[len(mfs)-1].GetName()
	}
	m.builds.Add(1)
	// Encode at once what the previous report was served as, so that
	// scrapes after a Publish find their bytes ready.
	for f, served := range prev.servedFormats() {
		x.part(f, served.deflated, served.size)
	}
	m.page.Store(x)
	return x
}

// served is how one format of a page was served: deflated or not, and
// its size (the next page's buffer starts at it).
type served struct {
	deflated bool
	size     int
}

// servedFormats are the formats x was encoded in; a copy, so that encoding
// the next page does not hold x's lock (scrapes of x take it).
func (x *exposition) servedFormats() map[expfmt.Format]served {
	if x == nil {
		return nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	out := make(map[expfmt.Format]served, len(x.encoded))
	for f, p := range x.encoded {
		out[f] = served{p.deflate != nil, len(p.text)}
	}
	return out
}

// refresh runs after every Publish.
func (m *metricsHandler) refresh() { m.build() }

// part is the exporter's families encoded in format f (and deflated);
// size is what the last page's took, 0 unknown.
func (x *exposition) part(f expfmt.Format, deflated bool, size int) *encodedPart {
	x.mu.Lock()
	defer x.mu.Unlock()
	p := x.encoded[f]
	if p == nil {
		buf := sizedBuffer(size)
		p = &encodedPart{}
		enc := expfmt.NewEncoder(buf, f)
		for _, mf := range x.families {
			if err := enc.Encode(mf); err != nil && p.encErr == nil {
				p.encErr = fmt.Errorf("encoding %s: %w", mf.GetName(), err)
			}
		}
		p.text = buf.Bytes()
		x.encoded[f] = p
	}
	if deflated && p.deflate == nil {
		d := deflate(p.text)
		p.deflate = &d
	}
	return p
}

func (m *metricsHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if m.inFlight != nil {
		select {
		case m.inFlight <- struct{}{}:
			defer func() { <-m.inFlight }()
		default:
			http.Error(w, fmt.Sprintf("Limit of concurrent requests reached (%d), try again later.", cap(m.inFlight)),
				http.StatusServiceUnavailable)
			return
		}
	}
	if r.URL != nil && len(r.URL.Query()["name[]"]) > 0 {
		m.fallback.ServeHTTP(w, r)
		return
	}
	x := m.current()
	live, liveErr := m.live.Gather()
	before, after, ok := splitAround(live, x)
	if !ok {
		m.fallback.ServeHTTP(w, r)
		return
	}
	if err := errors.Join(x.err, liveErr); err != nil {
		m.log.Println("error gathering metrics:", err)
		m.errCnt.WithLabelValues("gathering").Inc()
		if len(x.families) == 0 && len(live) == 0 {
			httpError(w, err)
			return
		}
	}
	m.write(w, r, x, before, after)
}

// splitAround sorts the live families to before and after the cached
// range; false when one falls inside it (or shares a name with it).
func splitAround(live []*dto.MetricFamily, x *exposition) (before, after []*dto.MetricFamily, ok bool) {
	for i, mf := range live {
		switch name := mf.GetName(); {
		case len(x.families) == 0 || name > x.last:
			return live[:i], live[i:], true
		case name >= x.first:
			return nil, nil, false
		}
	}
	return live, nil, true
}

// write negotiates the format and compression as promhttp does and writes
// before, the cached part and after.
func (m *metricsHandler) write(w http.ResponseWriter, r *http.Request, x *exposition, before, after []*dto.MetricFamily) {
	// client_golang's negotiation, OpenMetrics included: what promhttp with
	// EnableOpenMetrics serves (Prometheus asks for OpenMetrics first).
	format := expfmt.NegotiateAccept(r.Header, expfmt.DefaultOpenMetricsAcceptedFormats()...)
	w.Header().Add("Vary", "Accept")
	w.Header().Add("Vary", "Accept-Encoding")
	w.Header().Set("Content-Type", string(format))
	encoding := negotiateEncoding(r)
	if encoding != "gzip" && encoding != "identity" {
		m.log.Println("error getting writer", fmt.Errorf("content compression format not recognized: %q", encoding))
		encoding = "identity"
	}
	part := x.part(format, encoding == "gzip", 0)
	head, tail, encErr := encodeLive(format, before, after)
	for _, err := range []error{part.encErr, encErr} {
		if err != nil {
			m.log.Println("error encoding and sending metric family:", err)
			m.errCnt.WithLabelValues("encoding").Inc()
		}
	}
	var err error
	if encoding == "gzip" {
		w.Header().Set("Content-Encoding", "gzip")
		err = writeGzip(w, tail, deflate(head), *part.deflate)
	} else {
		err = writeAll(w, head, part.text, tail)
	}
	if err != nil {
		m.log.Println("error encoding and sending metric family:", err)
		m.errCnt.WithLabelValues("encoding").Inc()
	}
}

// encodeLive encodes the live families before and after the cached part;
// the tail ends the exposition (OpenMetrics' "# EOF", were it negotiated).
func encodeLive(format expfmt.Format, before, after []*dto.MetricFamily) (head, tail []byte, err error) {
	var h, t bytes.Buffer
	var errs []error
	encode := func(buf *bytes.Buffer, mfs []*dto.MetricFamily) expfmt.Encoder {
		enc := expfmt.NewEncoder(buf, format)
		for _, mf := range mfs {
			errs = append(errs, enc.Encode(mf))
		}
		return enc
	}
	encode(&h, before)
	if closer, ok := encode(&t, after).(expfmt.Closer); ok {
		errs = append(errs, closer.Close())
	}
	return h.Bytes(), t.Bytes(), errors.Join(errs...)
}

func writeAll(w http.ResponseWriter, parts ...[]byte) error {
	for _, p := range parts {
		if _, err := w.Write(p); err != nil {
			return err
		}
	}
	return nil
}

// httpError is promhttp's answer when nothing could be gathered.
func httpError(w http.ResponseWriter, err error) {
	w.Header().Del("Content-Encoding")
	http.Error(w, "An error has occurred while serving metrics:\n\n"+err.Error(), http.StatusInternalServerError)
}
