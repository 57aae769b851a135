package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/partmon/partmon/collector"
	"github.com/partmon/partmon/statefile"
	"github.com/partmon/partmon/tools/testkit"
)

// TestDaemonStartsWithAnyStateAndSavesOnShutdown runs the daemon in-process
// against a cluster that is down, with each kind of state file it may find:
// none, a corrupt one, a foreign one, a newer partmon's. It must start in
// every case (a bad file is moved aside with a warning, a newer one left as
// it is), publish its first cycle, and on cancellation (what SIGTERM does)
// return nil after saving a valid state, over no newer partmon's file.
func TestDaemonStartsWithAnyStateAndSavesOnShutdown(t *testing.T) {
	tests := []struct {
		name      string
		existing  string // "" for no file
		wantAside bool
		untouched bool // a newer partmon's: neither set aside nor written over
	}{
		{name: "no state file"},
		{name: "corrupt state file", existing: `{"format":"partmon-state","version":1,"history":{`, wantAside: true},
		{name: "foreign JSON file", existing: `{"apiVersion":"v1","kind":"ConfigMap"}`, wantAside: true},
		{name: "future version", existing: `{"format":"partmon-state","version":99,"history":{}}`, untouched: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			state := filepath.Join(dir, "state.json")
			if tt.existing != "" {
				if err := os.WriteFile(state, []byte(tt.existing), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			cfg := defaultConfig()
			cfg.Collector = collector.Config{Hosts: []string{testkit.FreeAddr(t)}, Mode: collector.ModeCluster,
				ConnectTimeout: time.Second, QueryTimeout: time.Second}
			cfg.Web.ListenAddresses = []string{"127.0.0.1:0"}
			cfg.State.File = state
			core, logs := observer.New(zap.InfoLevel)

			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- runDaemon(ctx, cfg, zap.New(core)) }()
			waitLog(t, logs, firstCycleUnreached, done) // nothing listens at its host
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("runDaemon after cancel: %v", err)
				}
			case <-time.After(2*shutdownGrace + 10*time.Second): // a hang guard, not a speed check
				t.Fatal("runDaemon did not return after cancel")
			}

			data, err := os.ReadFile(state)
			if err != nil {
				t.Fatalf("no state after shutdown: %v", err)
			}
			if tt.untouched {
				aside, _ := filepath.Glob(state + ".*")
				if string(data) != tt.existing || len(aside) != 0 || logs.FilterMessageSnippet("newer partmon").Len() == 0 {
					t.Errorf("a newer partmon's file: now %.200s, beside it %v, logs %v", data, aside, messages(logs))
				}
				return
			}
			var doc struct {
				Format  string `json:"format"`
				Version int    `json:"version"`
			}
			if err := json.Unmarshal(data, &doc); err != nil || doc.Format != statefile.Format || doc.Version != statefile.Version {
				t.Fatalf("state after shutdown is not a partmon state file (%v): %.200s", err, data)
			}
			aside, _ := filepath.Glob(state + ".bad-*")
			if got := len(aside) == 1; got != tt.wantAside {
				t.Errorf("files set aside: %v, want one: %v", aside, tt.wantAside)
			}
			if tt.wantAside {
				kept, err := os.ReadFile(aside[0])
				if err != nil || string(kept) != tt.existing {
					t.Errorf("the bad file was not kept as it was: %v", err)
				}
				if logs.FilterMessageSnippet("moved aside").Len() != 1 {
					t.Errorf("no warning about the bad state file; logs: %v", messages(logs))
				}
			}
		})
	}
}

func waitLog(t *testing.T, logs *observer.ObservedLogs, msg string, done <-chan error) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second) // a hang guard
	for logs.FilterMessage(msg).Len() == 0 {
		select {
		case err := <-done:
			t.Fatalf("runDaemon returned before %q: %v; logs: %v", msg, err, messages(logs))
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q log; logs: %v", msg, messages(logs))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func messages(logs *observer.ObservedLogs) string {
	var out []string
	for _, e := range logs.All() {
		out = append(out, e.Message)
	}
	return strings.Join(out, "; ")
}
