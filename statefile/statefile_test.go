package statefile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/analyzer/scope"
	"github.com/partmon/partmon/collector"
	"github.com/partmon/partmon/internal/keys"
	"github.com/partmon/partmon/model"
)

func historyWithPoint(t *testing.T) *history.History {
	t.Helper()
	h := history.New(history.Limits{})
	snap := &model.Snapshot{
		Taken: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC),
		Nodes: []model.Node{{HostID: "h1", Address: "10.0.0.1", DC: "dc1", Tokens: []int64{0}, Targeted: true}},
		Schema: model.Schema{Keyspaces: []model.Keyspace{{Name: "shop", Replication: map[string]string{"class": "SimpleStrategy", "replication_factor": "1"},
			Tables: []model.Table{{Keyspace: "shop", Name: "orders"}}}}},
		PerNode: map[string]*model.NodeData{"h1": {HostID: "h1", Address: "10.0.0.1", Tables: map[string]*model.TableStats{
			"shop.orders": {Keyspace: "shop", Table: "orders", MaxPartitionBytes: 5 << 20}}}},
		Sources: []model.SourceStatus{{Source: "table_metrics", Node: "10.0.0.1", State: model.StateOK}},
	}
	h.Record(snap, scope.Of(snap))
	if len(h.Sizes) == 0 {
		t.Fatal("history recorded nothing; the test needs one point")
	}
	return h
}

func TestStateRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	h := historyWithPoint(t)
	if err := Save(path, h, nil, nil); err != nil {
		t.Fatal(err)
	}
	got := Load(path, history.Limits{}, zap.NewNop())
	if len(got.Sizes) != len(h.Sizes) {
		t.Fatalf("restored %d size series, saved %d", len(got.Sizes), len(h.Sizes))
	}
	for k, pts := range h.Sizes {
		if len(got.Sizes[k]) != len(pts) || got.Sizes[k][0] != pts[0] {
			t.Errorf("series %s: got %v, want %v", k, got.Sizes[k], pts)
		}
	}
	// The write is atomic: no temporary file is left beside the state.
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("files left in the state dir: %v", entries)
	}
}

func TestStateBadFilesAreSetAside(t *testing.T) {
	tests := []struct {
		name, content, reason string
	}{
		{"corrupt", `{"format":"partmon-state","version":1,"history":{`, "decoding"},
		{"foreign", `{"hello":"world"}`, "not a partmon state file"},
		{"binary", "\x00\x01\x02", "decoding"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			core, logs := observer.New(zap.WarnLevel)
			h := Load(path, history.Limits{}, zap.New(core))
			if h == nil || len(h.Sizes) != 0 {
				t.Fatalf("want a fresh empty history, got %+v", h)
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Errorf("bad state file left in place: %v", err)
			}
			aside, _ := filepath.Glob(path + ".bad-*")
			if len(aside) != 1 {
				t.Fatalf("bad state file not moved aside: %v", aside)
			}
			if data, _ := os.ReadFile(aside[0]); string(data) != tc.content {
				t.Errorf("moved-aside file changed: %q", data)
			}
			if logs.Len() != 1 || !strings.Contains(logs.All()[0].ContextMap()["error"].(string), tc.reason) {
				t.Errorf("want one warning mentioning %q, got %v", tc.reason, logs.All())
			}
		})
	}
}

func TestStateMissingFileStartsEmpty(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	h := Load(filepath.Join(t.TempDir(), "none.json"), history.Limits{}, zap.New(core))
	if h == nil || len(h.Sizes) != 0 || logs.Len() != 0 {
		t.Errorf("missing state: history %+v, logs %v", h, logs.All())
	}
}

func TestSaveStateFailsCleanlyInMissingDir(t *testing.T) {
	err := Save(filepath.Join(t.TempDir(), "no", "such", "dir", "state.json"), historyWithPoint(t), nil, nil)
	if err == nil {
		t.Fatal("want an error for a missing directory")
	}
}

func TestLogStateRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	logs := &collector.LogState{Nodes: map[string]*collector.NodeLogState{"10.0.0.1": {
		Evidence: []model.LogEvidence{{Kind: model.LogTombstoneWarning, Keyspace: "pm_tomb", Table: "queue", Key: "jobs", Value: 19995, Count: 3}},
	}}}
	if err := Save(path, historyWithPoint(t), logs, nil); err != nil {
		t.Fatal(err)
	}
	got := LoadLogState(path)
	if got == nil || len(got.Nodes["10.0.0.1"].Evidence) != 1 || got.Nodes["10.0.0.1"].Evidence[0].Key != "jobs" {
		t.Fatalf("restored %+v", got)
	}
	// An earlier version's file (no logs), a foreign file, none at all: read the logs afresh.
	old := filepath.Join(dir, "old.json")
	if err := Save(old, historyWithPoint(t), nil, nil); err != nil {
		t.Fatal(err)
	}
	foreign := filepath.Join(dir, "foreign.json")
	if err := os.WriteFile(foreign, []byte(`{"format":"other","logs":{"nodes":{}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{old, foreign, filepath.Join(dir, "none.json"), ""} {
		if got := LoadLogState(p); got != nil {
			t.Errorf("LoadLogState(%q) = %+v, want nil", p, got)
		}
	}
}

// A state file written while keys are hidden holds no key: no log evidence
// (which quotes keys), no heatmap hot keys, no key history; the history
// itself comes back.
func TestSaveHidesKeys(t *testing.T) {
	const planted = "alice.secret@example.org"
	logs := &collector.LogState{Nodes: map[string]*collector.NodeLogState{"10.0.0.1": {
		Evidence: []model.LogEvidence{{Kind: model.LogTombstoneWarning, Keyspace: "shop", Table: "carts", Key: planted,
			Statement: "SELECT * FROM shop.carts WHERE id = '" + planted + "'", Value: 19995, Count: 3}},
	}}}
	for _, k := range []*keys.Keyer{keys.New(keys.Hashed, []byte("0123456789abcdef0123"), 0), keys.New(keys.Omitted, nil, 0)} {
		h := historyWithPoint(t)
		h.Heat = &history.Heat{Nodes: []string{"h1"}, Columns: []history.HeatColumn{{Start: 1, End: 2, Keys: map[string][]string{"shop.carts": {planted}}}}}
		h.Keys = &history.KeyHistory{Tables: map[string]map[string]*history.KeySeries{"shop.carts": {planted: {First: 1, Last: 2, Points: []history.KeyPoint{{1, 100, 0, 0}}}}}}
		path := filepath.Join(t.TempDir(), "state.json")
		if err := Save(path, h, logs, k); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), planted) || LoadLogState(path) != nil {
			t.Errorf("%s: the state file keeps the key or the log evidence: %s", k.Mode(), data)
		}
		if got := Load(path, history.Limits{}, zap.NewNop()); len(got.Sizes) == 0 || !strings.Contains(string(data), `"start":1`) {
			t.Errorf("%s: history not restored: %+v", k.Mode(), got)
		}
		if len(h.Heat.Columns[0].Keys) != 1 || h.Keys == nil {
			t.Errorf("%s: Save changed the live history", k.Mode())
		}
	}
}

// In plain mode the key history survives a restart: a key named again
// after it is the same series.
func TestKeyHistoryRoundTrip(t *testing.T) {
	h := historyWithPoint(t)
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC).Unix() // historyWithPoint's time: not pruned as old
	h.Keys = &history.KeyHistory{Tables: map[string]map[string]*history.KeySeries{"shop.carts": {"k1": {First: at - 60, Last: at, Replicas: []string{"10.0.0.1"}, Points: []history.KeyPoint{{at - 60, 100, 0, 0}, {at, 200, 0, 0}}}}}}
	path := filepath.Join(t.TempDir(), "state.json")
	if err := Save(path, h, nil, keys.New(keys.Plain, nil, 0)); err != nil {
		t.Fatal(err)
	}
	got := Load(path, history.Limits{}, zap.NewNop())
	ks := got.Keys.Tables["shop.carts"]["k1"]
	if ks == nil || ks.First != at-60 || len(ks.Points) != 2 || ks.Points[1][1] != 200 {
		t.Fatalf("restored key history %+v", got.Keys)
	}
}
