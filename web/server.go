// Package web serves partmon over HTTP: /metrics (the exporter's cached
// exposition plus the live self-metrics), the JSON API, the status page and
// the health endpoints, with TLS and basic auth from an exporter-toolkit web
// config. It reads only what the last cycle published.
package web

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"
	"go.uber.org/zap/exp/zapslog"

	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/publish"
)

// DefaultMaxRequestsInFlight bounds concurrent /metrics scrapes.
const DefaultMaxRequestsInFlight = 10

// cyclePath answers 200 once the first cycle has published a report.
const cyclePath = "/readyz/cycle"

// shutdownGrace is how long Serve lets running requests finish.
const shutdownGrace = 10 * time.Second

// HandlerOptions configure NewHandler.
type HandlerOptions struct {
	// MaxRequestsInFlight bounds concurrent /metrics requests; 0 means
	// DefaultMaxRequestsInFlight, negative means unbounded.
	MaxRequestsInFlight int
	// DisableExporterMetrics leaves out go_*, process_* and promhttp_* series.
	DisableExporterMetrics bool
	// MaxPageRequestsInFlight bounds concurrent requests of the page and
	// the API; 0 means DefaultMaxPageRequestsInFlight, negative unbounded.
	MaxPageRequestsInFlight int
	// TelemetryPath is where the exposition is served; empty: /metrics.
	TelemetryPath string
	Logger        *zap.Logger
	// Advise serves /api/v1/advise; nil: the key advisor is off.
	Advise AdviseFunc
}

// NewHandler serves partmon's HTTP API:
//
//	/metrics         Prometheus exposition of the latest report and self-metrics
//	/api/v1/findings the latest findings as JSON, filtered by query parameters
//	/api/v1/report   the whole latest report as JSON
//	/api/v1/guardrails   guardrail thresholds, crossings and suggested values
//	/api/v1/keys/KS/TABLE   each named key of a table over time
//	/api/v1/advise/KS/TABLE the key advisor's Key design (off unless enabled)
//	/healthz         200 while the process serves (liveness)
//	/readyz          200 while the process serves (readiness): never depends
//	                 on the database, whose state /metrics and the page show
//	/readyz/cycle    200 once the first collection cycle has published a
//	                 report, 503 before (for harnesses waiting for data)
//	/                the status page
//
// It reads the report from latest; e is the exporter of latest's reports.
// alerts, the alert pusher's self-metrics, may be nil when no Alertmanager
// is configured.
func NewHandler(latest *publish.Latest, e *exporter.Exporter, alerts prometheus.Collector, opts HandlerOptions) (http.Handler, error) {
	logger := opts.Logger
	if logger == nil {
		logger = zap.NewNop()
	}
	inFlight := opts.MaxRequestsInFlight
	if inFlight == 0 {
		inFlight = DefaultMaxRequestsInFlight
	} else if inFlight < 0 {
		inFlight = 0 // promhttp: no limit
	}

	// The live registry: everything but the exporter, whose part of the
	// page metricsHandler caches per published report.
	reg := prometheus.NewRegistry()
	var cs []prometheus.Collector
	cs = append(cs, e.Process()) // live: the configuration's reloads change it between reports
	if alerts != nil {
		cs = append(cs, alerts)
	}
	if !opts.DisableExporterMetrics {
		cs = append(cs, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	// promhttp's own error counter, registered as promhttp.HandlerFor would.
	errCnt := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "promhttp_metric_handler_errors_total",
		Help: "Total number of internal errors encountered by the promhttp metric handler.",
	}, []string{"cause"})
	errCnt.WithLabelValues("gathering")
	errCnt.WithLabelValues("encoding")
	if !opts.DisableExporterMetrics {
		cs = append(cs, errCnt)
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("registering metrics collector: %w", err)
		}
	}
	var metrics http.Handler = newMetricsHandler(latest, e, reg, errCnt, zapPrintln{logger}, inFlight)
	if !opts.DisableExporterMetrics {
		metrics = promhttp.InstrumentMetricHandler(reg, metrics)
	}

	page, err := newStatusPage(latest, e)
	if err != nil {
		return nil, err
	}
	page.metricsPath, page.advise, page.advice = opts.TelemetryPath, opts.Advise != nil, &heldAdvice{}
	mux := http.NewServeMux()
	mux.Handle("GET "+cmp.Or(opts.TelemetryPath, "/metrics"), metrics)
	mux.Handle("GET /api/v1/findings", findingsHandler(latest, e))
	mux.Handle("GET /api/v1/report", reportHandler(latest))
	mux.Handle("GET /api/v1/guardrails", guardrailsHandler(latest))
	mux.Handle("GET /api/v1/keys/{keyspace}/{table}", keysHandler(latest))
	mux.Handle("GET /api/v1/advise/{keyspace}/{table}", adviseHandler(opts.Advise, page.advice))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeText(w, http.StatusOK, "ok\n")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		writeText(w, http.StatusOK, "ready\n")
	})
	mux.HandleFunc("GET "+cyclePath, func(w http.ResponseWriter, _ *http.Request) {
		if c := latest.Cycle(); c.Report == nil {
			writeText(w, http.StatusServiceUnavailable, notReadyText(c))
			return
		}
		writeText(w, http.StatusOK, "first cycle done\n")
	})
	mux.Handle("GET /{$}", page)
	mux.Handle("GET /tables/{keyspace}/{table}", page.tableHandler())
	// The page and the whole report are encoded once per report (the page
	// at most once a second: it writes the report's age), and their
	// requests, like every page and API request, are bounded.
	cached := newResponseCache(latest, mux, map[string]time.Duration{"/": time.Second, "/api/v1/report": 0})
	pages := opts.MaxPageRequestsInFlight
	if pages == 0 {
		pages = DefaultMaxPageRequestsInFlight
	}
	return pageLimit(pages, opts.TelemetryPath, cached), nil
}

// notReadyText says why no good report is served yet: the first cycle is
// still running, or cycles finished without reaching the cluster.
func notReadyText(c publish.Cycle) string {
	if c.Generation == 0 {
		return "not ready: the first collection cycle has not finished\n"
	}
	return fmt.Sprintf("not ready: %d collection cycle(s) finished without reaching the cluster "+
		"(partmon_up 0; partmon_collector_success says which source failed, the log says why)\n", c.Generation)
}

func writeText(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}

// zapPrintln lets promhttp log scrape errors through zap.
type zapPrintln struct{ l *zap.Logger }

func (z zapPrintln) Println(v ...any) {
	z.l.Error("serving metrics", zap.String("error", fmt.Sprint(v...)))
}

// SlogLogger bridges zap to the *slog.Logger exporter-toolkit wants.
func SlogLogger(l *zap.Logger) *slog.Logger {
	return slog.New(zapslog.NewHandler(l.Core(), zapslog.WithName("web")))
}

// Serve serves handler on every listen address until ctx is cancelled,
// with TLS and basic auth per endpoint from access (no config file: plain
// HTTP, no auth). On cancel it stops accepting, lets running requests finish
// for up to 10 seconds and returns nil.
func Serve(ctx context.Context, listenAddresses []string, access Access, handler http.Handler, logger *zap.Logger) error {
	if logger == nil {
		logger = zap.NewNop()
	}
	if len(listenAddresses) == 0 {
		return errors.New("serving HTTP: no listen address")
	}
	if err := CheckAccess(access); err != nil {
		return err
	}
	h, err := newAuthHandler(access, handler)
	if err != nil {
		return fmt.Errorf("checking web config file %s: %w", access.ConfigFile, err)
	}
	srv := &http.Server{
		Handler:           hostCheck(access.AllowedHosts, access.MetricsPath, h),
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          zap.NewStdLog(logger.Named("http")),
	}
	if access.ConfigFile != "" {
		if err := setupTLS(srv, access.ConfigFile); err != nil {
			return fmt.Errorf("checking web config file %s: %w", access.ConfigFile, err)
		}
	}
	var listeners []net.Listener
	for _, addr := range listenAddresses {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			for _, o := range listeners {
				_ = o.Close() // the failed Listen's error is the one to report
			}
			return fmt.Errorf("serving HTTP on %v: %w", listenAddresses, err)
		}
		listeners = append(listeners, l)
	}
	done := make(chan error, len(listeners))
	for _, l := range listeners {
		logger.Info("listening", zap.String("address", l.Addr().String()), zap.Bool("tls", srv.TLSConfig != nil))
		go func() { done <- serveGuarded(l, srv, logger) }()
	}

	select {
	case err := <-done:
		_ = srv.Close()
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return fmt.Errorf("serving HTTP on %v: %w", listenAddresses, err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err = srv.Shutdown(shutdownCtx)
	// Shutdown closes only the listeners Serve has registered: one whose
	// goroutine had not reached Serve yet would stay bound, and a reload
	// that listens again on the same address failed with "address already
	// in use". Close them all and wait until every Serve has returned.
	for _, l := range listeners {
		_ = l.Close()
	}
	for range listeners {
		_ = <-done // after Shutdown, each Serve returns ErrServerClosed or its closed listener's error
	}
	if err != nil {
		return fmt.Errorf("shutting down HTTP server: %w", err)
	}
	return nil
}

// serveGuarded is serveListener with a panic (net/http recovers its
// handlers' own) turned into Serve's error, logged through the scrubbing
// logger, not written raw to stderr.
func serveGuarded(l net.Listener, srv *http.Server, logger *zap.Logger) (err error) {
	defer func() {
		if p := recover(); p != nil {
			logger.Error("HTTP server panicked; a partmon bug, please report it", zap.Any("panic", p), zap.Stack("stack"))
			err = fmt.Errorf("HTTP server panicked: %v", p)
		}
	}()
	return serveListener(l, srv)
}
