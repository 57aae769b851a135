package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/internal/keys"
)

// serve runs the daemon until SIGINT or SIGTERM. SIGHUP reloads the
// configuration as Prometheus and Alertmanager do: the file, flags and
// environment are read again; a valid configuration restarts the daemon in
// this process with it (the history goes through the state file, as across
// a restart), an invalid one is refused with a log line and the running
// daemon keeps its own.
func (d *daemonFlags) serve(cfg Config, log *zap.Logger, keyer *keys.Keyer, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)

	conf := exporter.NewConfigStatus(time.Now())
	for {
		runCtx, cancelRun := context.WithCancelCause(ctx)
		done := make(chan error, 1)
		go func() { done <- runDaemonWith(runCtx, cfg, log, keyer, conf) }()
		next, reload := d.waitReload(done, hup, log, conf)
		if reload {
			cancelRun(errReload)
		} else {
			cancelRun(nil)
		}
		if !reload {
			if next.err != nil {
				log.Error("partmon stopped", zap.Error(next.err))
				if errors.As(next.err, new(startupConfigError)) {
					return exitUsage
				}
				return 1
			}
			return exitOK
		}
		if err := <-done; err != nil {
			log.Error("partmon stopped while reloading", zap.Error(err))
			return 1
		}
		cfg = next.cfg
		_ = log.Sync()
		_, l, k, ok := configAndLogger(func() (Config, error) { return cfg, nil }, stderr)
		if !ok { // validated by waitReload: cannot happen
			return exitUsage
		}
		log, keyer = l, k
		conf.Loaded(true, time.Now())
		log.Info("configuration reloaded", zap.String("file", d.configFile))
	}
}

// startupConfigError is a configuration error found only when the daemon
// starts (a password file emptied or removed since the check): exit 4 as
// for one found at load.
type startupConfigError struct{ err error }

func (e startupConfigError) Error() string { return e.err.Error() }
func (e startupConfigError) Unwrap() error { return e.err }

// errReload is the cause a daemon's context is cancelled with for a reload:
// it stops as for a shutdown but does not log one.
var errReload = errors.New("reloading the configuration")

func reloading(ctx context.Context) bool { return errors.Is(context.Cause(ctx), errReload) }

type reloadResult struct {
	cfg Config
	err error // of the daemon, when it ended without a reload
}

// waitReload waits for the daemon to end or for a SIGHUP that brings a
// valid configuration.
func (d *daemonFlags) waitReload(done <-chan error, hup <-chan os.Signal, log *zap.Logger, conf *exporter.ConfigStatus) (reloadResult, bool) {
	for {
		select {
		case err := <-done:
			return reloadResult{err: err}, false
		case <-hup:
			cfg, err := d.config()
			if err != nil {
				conf.Loaded(false, time.Now())
				log.Error("configuration reload refused; the running configuration is kept", zap.String("file", d.configFile), zap.Error(err))
				continue
			}
			log.Info("reloading configuration", zap.String("file", d.configFile))
			return reloadResult{cfg: cfg}, true
		}
	}
}
