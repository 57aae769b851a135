package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/robfig/cron/v3"
	"go.uber.org/zap"

	"github.com/partmon/partmon/alertmanager"
	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/collector"
	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/internal/keys"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/statefile"
	"github.com/partmon/partmon/web"
)

// shutdownGrace bounds how long a running cycle may take to finish after
// SIGTERM before its context is cancelled and partmon exits anyway.
const shutdownGrace = 10 * time.Second

// sessionCloseGrace bounds closing the CQL sessions at exit: the driver can
// take seconds to close a session to a node that does not answer (its
// control connection finishes a reconnect attempt first), and an exit must
// not wait for that.
const sessionCloseGrace = 3 * time.Second

// processStart is when this process started: partmon_start_time_seconds,
// kept across SIGHUP reloads (they rebuild the daemon in this process).
var processStart = time.Now()

// firstCycleUnreached is logged instead of "first cycle done" when the first
// cycle reached no node: /readyz/cycle and the log agree.
const firstCycleUnreached = "first cycle finished without reaching the cluster; partmon retries on its schedule and /readyz/cycle answers 503 until a cycle reaches it"

type daemonFlags struct {
	common
	listen          []string
	webConfig       string
	alertmanagers   []string
	stateFile       string
	listenSet       bool
	webConfigSet    bool
	alertmanagerSet bool
	stateFileSet    bool
	allowedHosts    []string
	allowedHostsSet bool

	telemetryPath          string
	disableExporterMetrics bool
	allTables              bool
	adviseEnabled          bool
}

func (d *daemonFlags) register(cmd *kingpin.CmdClause) {
	d.common.register(cmd, "sidecar", "json")
	cmd.Flag("web.listen-address", "Address to serve /metrics, the API and the status page on (repeatable; default :9808).").
		IsSetByUser(&d.listenSet).StringsVar(&d.listen)
	cmd.Flag("web.config.file", "exporter-toolkit web config file for TLS and basic auth.").
		IsSetByUser(&d.webConfigSet).StringVar(&d.webConfig)
	cmd.Flag("web.allowed-hosts", "Host name the status page and the API answer to besides IP addresses, localhost and this machine's name (repeatable; * for any): a guard against DNS rebinding (docs/operations.md \"Exposure\").").
		IsSetByUser(&d.allowedHostsSet).StringsVar(&d.allowedHosts)
	cmd.Flag("alertmanager.url", "Alertmanager to push key-level alerts to (repeatable), e.g. http://127.0.0.1:9093.").
		IsSetByUser(&d.alertmanagerSet).StringsVar(&d.alertmanagers)
	cmd.Flag("state.file", "File that keeps the analysis history (growth forecasts, traffic windows) across restarts.").
		IsSetByUser(&d.stateFileSet).StringVar(&d.stateFile)
	cmd.Flag("web.telemetry-path", "Path under which to expose metrics.").Default("/metrics").StringVar(&d.telemetryPath)
	cmd.Flag("web.disable-exporter-metrics", "Exclude metrics about the exporter itself (promhttp_*, process_*, go_*).").
		BoolVar(&d.disableExporterMetrics)
	cmd.Flag("advise.enabled", "Serve /api/v1/advise/KEYSPACE/TABLE?key=...: each request samples the table's rows (partmon advise's default limits, one at a time).").
		BoolVar(&d.adviseEnabled)
	cmd.Flag("metrics.all-tables", "Publish every per-table series of every table node: turns metrics.table_floor off (docs/scale.md).").
		BoolVar(&d.allTables)
}

// config is the configuration run starts with: the file, the common flags
// and run's own, validated at once with every file it names (check-config
// runs the same).
func (d *daemonFlags) config() (Config, error) {
	d.extra, d.scope = d.applyFlags, filesRun
	return d.load()
}

func (d *daemonFlags) applyFlags(cfg *Config) {
	if given("web.listen-address", d.listenSet) {
		cfg.Web.ListenAddresses = d.listen
	}
	if given("web.config.file", d.webConfigSet) {
		cfg.Web.ConfigFile = d.webConfig
	}
	if given("web.allowed-hosts", d.allowedHostsSet) {
		cfg.Web.AllowedHosts = d.allowedHosts
	}
	if given("alertmanager.url", d.alertmanagerSet) {
		cfg.Alertmanager.URLs = d.alertmanagers
	}
	if given("state.file", d.stateFileSet) {
		cfg.State.File = d.stateFile
	}
	cfg.Web.TelemetryPath, cfg.Web.DisableExporterMetrics = d.telemetryPath, d.disableExporterMetrics
	cfg.Web.AdviseEnabled = d.adviseEnabled
	if d.allTables {
		cfg.Metrics.TableFloor.Enabled = false
	}
}

func (d *daemonFlags) run(stderr io.Writer) int {
	cfg, log, keyer, ok := configAndLogger(d.config, stderr)
	if !ok {
		return exitUsage
	}
	defer func() { _ = log.Sync() }()
	warnMissingSourceFiles(cfg, log)
	return d.serve(cfg, log, keyer, stderr)
}

// daemon is the running state of `partmon run`.
type daemon struct {
	cfg       Config
	mode      publish.Mode
	log       *zap.Logger
	collector *collector.Collector
	latest    *publish.Latest // the latest report, for the exporter and the web server
	exporter  *exporter.Exporter
	pusher    *alertmanager.Pusher

	keys *keys.Keyer // shows keys in every output; the logger's writer shares it

	mu      sync.Mutex // guards history and saver: analysis and the state saves
	history *history.History
	saver   *statefile.Saver // saves on a pace, and at shutdown

	snapshot func() *model.Snapshot // the collector's; a test's seam
}

func runDaemon(ctx context.Context, cfg Config, log *zap.Logger) error {
	keyer, err := keys.Load(cfg.Keys)
	if err != nil {
		return err
	}
	return runDaemonWith(ctx, cfg, log, keyer, exporter.NewConfigStatus(time.Now()))
}

// runDaemonWith runs the daemon with the Keyer its logger scrubs with; conf
// is the configuration's load status, which outlives a reload.
func runDaemonWith(ctx context.Context, cfg Config, log *zap.Logger, keyer *keys.Keyer, conf *exporter.ConfigStatus) error {
	d, err := newDaemon(cfg, log, keyer, conf)
	if err != nil {
		return startupConfigError{err}
	}
	closeCollector := sync.OnceFunc(func() { closeWithin(d.collector.Close, sessionCloseGrace, log) })
	defer closeCollector()

	var alerts prometheus.Collector // a nil *Pusher would be a non-nil Collector
	if d.pusher != nil {
		alerts = d.pusher
	}
	handler, err := web.NewHandler(d.latest, d.exporter, alerts, web.HandlerOptions{Logger: log,
		TelemetryPath: cfg.Web.TelemetryPath, DisableExporterMetrics: cfg.Web.DisableExporterMetrics, Advise: d.adviseFunc()})
	if err != nil {
		return err
	}
	serveErr := make(chan error, 1)
	go func() {
		defer recovered(log, "web server", func(err error) { serveErr <- err })
		serveErr <- web.Serve(ctx, cfg.Web.ListenAddresses, cfg.webAccess(), handler, log.With(zap.String("component", "web")))
	}()

	// Cycles run under their own context so that SIGTERM lets a running one
	// finish within shutdownGrace instead of tearing it down mid-query.
	cycleCtx, cancelCycles := context.WithCancel(context.Background())
	defer cancelCycles()
	var workers sync.WaitGroup
	if d.pusher != nil {
		workers.Add(1)
		go func() { defer workers.Done(); defer recovered(log, "alert pusher", nil); d.pusher.Run(cycleCtx) }()
	}
	sched, err := d.schedule()
	if err != nil {
		return err
	}
	workers.Add(1)
	go func() { defer workers.Done(); defer recovered(log, "first cycle", nil); d.firstCycle(cycleCtx, sched) }()
	log.Info("partmon started", zap.String("mode", string(d.mode)), zap.Strings("hosts", cfg.Collector.Hosts),
		zap.Strings("listen", cfg.Web.ListenAddresses), zap.Int("alertmanagers", len(cfg.Alertmanager.URLs)))

	select {
	case <-ctx.Done():
		if !reloading(ctx) {
			log.Info("shutting down")
		}
	case err := <-serveErr:
		if err != nil && !errors.Is(err, context.Canceled) {
			cancelCycles()
			return fmt.Errorf("web server: %w", err)
		}
	}

	// Ordered shutdown, bounded by shutdownGrace + sessionCloseGrace + 1 s:
	// stop scheduling and let running jobs finish until the grace ends;
	// then cancel what still runs and close the sessions (Close cancels the
	// collector's runs first), let the workers end, save the history.
	start := time.Now()
	deadline := start.Add(shutdownGrace)
	select {
	case <-sched.Stop().Done():
	case <-time.After(time.Until(deadline)):
		log.Warn("cycle still running at shutdown; cancelling it", zap.Duration("grace", shutdownGrace))
	}
	cancelCycles()
	closeCollector()
	waitTimeout(&workers, max(time.Until(deadline), time.Second))
	d.saveState(true)
	if reloading(ctx) {
		log.Info("stopped for the reload", zap.Duration("duration", time.Since(start)))
	} else {
		log.Info("partmon stopped", zap.Duration("duration", time.Since(start)))
	}
	return nil
}

// newDaemon builds the collector, the exporter, the alert pusher (when
// Alertmanagers are configured) and the history restored from the state file.
func newDaemon(cfg Config, log *zap.Logger, keyer *keys.Keyer, conf *exporter.ConfigStatus) (*daemon, error) {
	mode, err := publish.ParseMode(cfg.Collector.Mode)
	if err != nil {
		return nil, err
	}
	coll, err := collector.New(cfg.Collector, log.With(zap.String("component", "collector")), collector.WithLogState(statefile.LoadLogState(cfg.State.File)))
	if err != nil {
		return nil, fmt.Errorf("starting collector: %w", err)
	}
	latest := &publish.Latest{Keys: keyer}
	d := &daemon{
		cfg:       cfg,
		mode:      mode,
		log:       log,
		collector: coll,
		latest:    latest,
		keys:      keyer,
		exporter: exporter.New(latest, exporter.Options{Cluster: cfg.Cluster, Mode: mode, Datacenters: cfg.Collector.Datacenters,
			TopK: cfg.Thresholds.TopK, TableFloor: cfg.Metrics.TableFloor, Thresholds: cfg.Thresholds,
			Started: processStart, Config: conf}),
		history:  statefile.Load(cfg.State.File, cfg.Analysis.History, log),
		saver:    &statefile.Saver{Path: cfg.State.File, Log: log},
		snapshot: coll.Snapshot,
	}
	if len(cfg.Alertmanager.URLs) == 0 {
		return d, nil
	}
	minSev, _ := finding.ParseSeverity(cfg.Alertmanager.MinSeverity) // validated
	d.pusher, err = alertmanager.New(alertmanager.Options{
		URLs:           cfg.Alertmanager.URLs,
		MinSeverity:    minSev,
		ResendInterval: cfg.Alertmanager.ResendInterval,
		Timeout:        cfg.Alertmanager.Timeout,
		Cluster:        cfg.Cluster,
		Mode:           mode,
		Datacenters:    cfg.Collector.Datacenters,
		Logger:         log.With(zap.String("component", "alertmanager")),
	})
	if err != nil {
		closeWithin(coll.Close, sessionCloseGrace, log)
		return nil, fmt.Errorf("alertmanager: %w", err)
	}
	return d, nil
}

// schedule puts every source and the analysis on a cron scheduler, not yet started.
func (d *daemon) schedule() (*cron.Cron, error) {
	sched := cron.New(
		cron.WithLocation(time.UTC),
		cron.WithLogger(newCronLogger(d.log.With(zap.String("component", "cron")))),
		cron.WithChain(cron.Recover(newCronLogger(d.log)), cron.SkipIfStillRunning(newCronLogger(d.log))),
	)
	if err := d.collector.Schedule(sched, nil); err != nil {
		return nil, err
	}
	if _, err := sched.AddFunc(d.cfg.Analysis.Schedule, func() { d.analyze(time.Now()) }); err != nil {
		return nil, fmt.Errorf("analysis schedule %q: %w", d.cfg.Analysis.Schedule, err)
	}
	return sched, nil
}

// firstCycle collects and analyzes at once, then starts the scheduler: cron
// would leave /metrics empty until its first tick.
func (d *daemon) firstCycle(ctx context.Context, sched *cron.Cron) {
	start := time.Now()
	if err := d.collector.CollectAll(ctx); err != nil {
		d.log.Warn("first collection incomplete", zap.Error(err))
	}
	d.analyze(start)
	if d.latest.Ready() {
		d.log.Info("first cycle done", zap.Duration("duration", time.Since(start)))
	} else {
		d.log.Warn(firstCycleUnreached, zap.Duration("duration", time.Since(start)))
	}
	if ctx.Err() == nil {
		sched.Start()
	}
}

// recovered, deferred at the top of a goroutine the daemon starts, logs its
// panic (a partmon bug) through the scrubbing logger instead of letting it
// print raw to stderr and end the process; then, if given, it tells failed.
func recovered(log *zap.Logger, what string, failed func(error)) {
	if p := recover(); p != nil {
		log.Error(what+" panicked; a partmon bug, please report it", zap.Any("panic", p), zap.Stack("stack"))
		if failed != nil {
			failed(fmt.Errorf("%s panicked: %v", what, p))
		}
	}
}

// closeWithin runs closeFn and waits for it at most bound.
func closeWithin(closeFn func(), bound time.Duration, log *zap.Logger) {
	done := make(chan struct{})
	go func() { closeFn(); close(done) }()
	select {
	case <-done:
	case <-time.After(bound):
		log.Warn("CQL sessions still closing; exiting without waiting", zap.Duration("grace", bound))
	}
}

// analyze turns the collector's latest snapshot into a report and publishes
// it. Analyze recovers from its rules' panics itself; a panic anywhere else
// on the way (history, keys, publishing, the pusher) is a partmon bug that
// costs this cycle's report, never the process: the last report stays
// served. (The first cycle calls analyze outside cron's Recover.) The
// cycle began at start: the report's CycleDuration counts from there.
func (d *daemon) analyze(start time.Time) {
	defer func() {
		if p := recover(); p != nil {
			d.log.Error("analysis cycle failed, the last report stays published; a partmon bug, please report it", zap.Any("panic", p), zap.Stack("stack"))
		}
	}()
	snap := d.snapshot()
	if snap == nil {
		return
	}
	keys.LearnFrom(d.keys, snap) // keys the report may not name but a log line could
	report := d.analyzeLocked(snap)
	report.Generated = time.Now()
	report.CycleDuration = report.Generated.Sub(start)

	findings, nodes := len(report.Findings), len(report.Nodes)
	// Not read after Publish: the plain report, when keys are hidden, is
	// garbage once its shown copy is made, while the outputs rebuild.
	shown := d.latest.Publish(report)
	if d.pusher != nil {
		d.pusher.Update(shown)
	}
	d.log.Debug("report published", zap.Int("findings", findings), zap.Int("nodes", nodes))
	d.saveState(false)
}

func (d *daemon) analyzeLocked(snap *model.Snapshot) *analyzer.Report {
	d.mu.Lock()
	defer d.mu.Unlock() // also when it panics: the next cycle must not wait forever
	return analyzer.Analyze(snap, d.history, d.cfg.Thresholds)
}

// saveState saves the history when the saver's pace allows, or now.
func (d *daemon) saveState(now bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.saver == nil || (!now && !d.saver.Due(time.Now(), d.history)) {
		return
	}
	d.saver.Save(d.history, d.collector.LogState(), d.keys)
}

func waitTimeout(wg *sync.WaitGroup, d time.Duration) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
	}
}
