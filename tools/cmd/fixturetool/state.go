package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/partmon/partmon/tools/testcluster"
)

// state records what the fixtures wrote, so `truth` can be rebuilt at any
// time from it plus what the live cluster says.
type state struct {
	LargeRows     int64   `json:"large_rows"`
	LargeRowBytes int64   `json:"large_row_bytes"`
	HotShare      float64 `json:"hot_share"` // measured in the last hot-key run
	HotOps        int64   `json:"hot_ops"`
	TombDeleted   int64   `json:"tomb_deleted"`
	TombLive      int64   `json:"tomb_live"`
	LowcardRows   int64   `json:"lowcard_rows"`
	LowcardParts  int64   `json:"lowcard_partitions"`
	BusySensorRow int64   `json:"busy_sensor_rows"`
}

func statePath() string { return filepath.Join(testcluster.Dir(), "fixtures-state.json") }

func loadState() (*state, error) {
	data, err := os.ReadFile(statePath())
	if os.IsNotExist(err) {
		return &state{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading fixture state: %w", err)
	}
	var st state
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", statePath(), err)
	}
	return &st, nil
}

func saveState(st *state) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(statePath(), data, 0o644); err != nil {
		return fmt.Errorf("writing fixture state: %w", err)
	}
	return nil
}

func clearState() { _ = os.Remove(statePath()) }
