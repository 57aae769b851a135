package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/partmon/partmon/tools/promtest"
	"github.com/partmon/partmon/tools/testkit"
)

// TestSIGHUPReloads sends real SIGHUPs to the built binary: a broken
// config is refused with a log line and the daemon keeps serving with its
// own; a valid one is taken (its stale_after shows on /metrics). Each says
// so on /metrics as Prometheus does (partmon_config_last_reload_successful),
// and a reload is not logged as a shutdown.
func TestSIGHUPReloads(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin, err := testkit.BuildPartmon(ctx, t.TempDir(), "partmon", false)
	if err != nil {
		t.Fatal(err)
	}
	listen := closedLoopback(t, "127.0.0.192")
	path := filepath.Join(t.TempDir(), "partmon.yml")
	write := func(stale string) {
		cfg := "collector:\n  hosts: [127.0.0.199]\n  mode: cluster\nthresholds:\n  stale_after: " + stale + "\nweb:\n  listen_addresses: [\"" + listen + "\"]\n"
		if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("15m")
	p := promtest.Start(t, "partmon", promtest.Options{}, bin, "run", "--config.file", path, "--log.format", "logfmt")
	served := func(line string) func() bool {
		return func() bool {
			resp, err := http.Get("http://" + listen + "/metrics")
			if err != nil {
				return false
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			return strings.Contains(string(body), "\n"+line+"\n")
		}
	}
	staleAfter := func(want string) func() bool {
		return served("partmon_threshold_stale_after_seconds{cluster=\"\"} " + want)
	}
	promtest.WaitFor(t, time.Minute, "stale_after 900 on /metrics", staleAfter("900"))
	if !served("partmon_config_last_reload_successful 1")() {
		t.Error("the configuration loaded at start is not reported as a successful load")
	}

	write("soon")
	if err := p.Cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	promtest.WaitFor(t, 30*time.Second, "the refused reload's log line", func() bool {
		return strings.Contains(p.Output(), `msg="configuration reload refused; the running configuration is kept"`) &&
			strings.Contains(p.Output(), "thresholds.stale_after")
	})
	if exited, err := p.Exited(); exited {
		t.Fatalf("partmon exited on SIGHUP with a bad config: %v", err)
	}
	if !staleAfter("900")() {
		t.Fatal("not serving the running configuration after a refused reload")
	}
	if !served("partmon_config_last_reload_successful 0")() {
		t.Error("the refused reload is not on /metrics as partmon_config_last_reload_successful 0")
	}

	write("7m")
	if err := p.Cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	promtest.WaitFor(t, time.Minute, "stale_after 420 after the reload", staleAfter("420"))
	if !strings.Contains(p.Output(), `msg="configuration reloaded"`) {
		t.Errorf("no log line for the reload:\n%s", p.Output())
	}
	promtest.WaitFor(t, 30*time.Second, "partmon_config_last_reload_successful 1 after the reload",
		served("partmon_config_last_reload_successful 1"))
	for _, shutdown := range []string{`msg="shutting down"`, `msg="partmon stopped"`} {
		if strings.Contains(p.Output(), shutdown) {
			t.Errorf("a reload logged %s:\n%s", shutdown, p.Output())
		}
	}
}
