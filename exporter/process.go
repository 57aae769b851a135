package exporter

import (
	"cmp"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/partmon/partmon/analyzer"
)

// ConfigStatus is the outcome of the last configuration load, as
// Prometheus publishes its own (prometheus_config_last_reload_successful
// and _success_timestamp_seconds): the load at start counts as the first.
// It outlives the Exporters a reload replaces, so the daemon keeps one.
type ConfigStatus struct {
	ok   atomic.Bool
	last atomic.Int64 // Unix nanoseconds of the last successful load
}

// NewConfigStatus is a status whose configuration loaded at t.
func NewConfigStatus(t time.Time) *ConfigStatus {
	s := &ConfigStatus{}
	s.Loaded(true, t)
	return s
}

// Loaded records a load (at start or on SIGHUP) and whether it succeeded.
func (s *ConfigStatus) Loaded(ok bool, t time.Time) {
	s.ok.Store(ok)
	if ok {
		s.last.Store(t.UnixNano())
	}
}

// processDescs are the Process collector's families.
var processDescs = []*metricDesc{startTime, configReloadOK, configReloadTime}

// Process is the collector of what holds before any cycle and changes
// without one: when partmon started (the rules count a blind start from
// it, never from the epoch) and how the configuration's last load went.
// It is live (collected on every scrape), unlike the report's families,
// which change only with a Publish.
func (e *Exporter) Process() prometheus.Collector { return processCollector{e} }

type processCollector struct{ e *Exporter }

func (p processCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range processDescs {
		ch <- d.desc
	}
}

func (p processCollector) Collect(ch chan<- prometheus.Metric) {
	e := p.e
	e.collectProcess(newEmitter(ch), e.audience.ClusterName(cmp.Or(e.latest.Report(), &analyzer.Report{})))
}

func (e *Exporter) collectProcess(m emitter, cluster string) {
	if !e.started.IsZero() {
		m.emit(startTime, unixSeconds(e.started.UnixNano()), cluster)
	}
	if s := e.config; s != nil {
		m.emit(configReloadOK, boolValue(s.ok.Load()))
		if ns := s.last.Load(); ns != 0 {
			m.emit(configReloadTime, unixSeconds(ns))
		}
	}
}
