// Package statefile keeps what partmon remembers between runs in one JSON
// file: the analyzer's history and the logs source's positions and evidence,
// written atomically and read back defensively (a foreign or corrupt file is
// set aside, never fatal).
package statefile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"go.uber.org/zap"

	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/collector"
	"github.com/partmon/partmon/internal/keys"
)

// Format names partmon's state files, so a foreign JSON file is recognised
// as such instead of being read as an empty history; Version is the layout
// this partmon writes.
const (
	Format  = "partmon-state"
	Version = 1
	// maxStateBytes bounds what is read back: the history is bounded by its
	// limits, so a larger file is not one partmon wrote.
	maxStateBytes = 64 << 20
)

type stateDoc struct {
	Format  string           `json:"format"`
	Version int              `json:"version"`
	Saved   time.Time        `json:"saved"`
	History *history.History `json:"history"`
	// Logs is where the logs source stopped reading each node's log, and the
	// evidence it holds (absent in files of earlier versions: read afresh).
	Logs *collector.LogState `json:"logs,omitempty"`
}

// Load reads the history kept by an earlier run. A missing file starts
// an empty history; a corrupt or foreign one is moved aside with a warning
// (the last maxAside kept) and never stops partmon; one a newer partmon
// wrote is left untouched, and not written over, so that going back to it
// finds its history.
func Load(path string, limits history.Limits, log *zap.Logger) *history.History {
	if path == "" {
		return history.New(limits)
	}
	h, err := readState(path, limits)
	var newer *newerError
	switch {
	case err == nil:
		log.Info("history restored", zap.String("file", path))
		return h
	case errors.Is(err, fs.ErrNotExist):
		return history.New(limits)
	case errors.As(err, &newer):
		hold(path)
		log.Warn("state file written by a newer partmon: left untouched and not written over; starting with an empty history kept in memory only",
			zap.String("file", path), zap.Error(err))
		return history.New(limits)
	}
	setAside(path, err, log)
	return history.New(limits)
}

// maxAside bounds the files set aside beside the state file.
const maxAside = 3

// setAside renames an unreadable state file to path.bad-TIME, and removes
// the oldest set aside before past maxAside.
func setAside(path string, err error, log *zap.Logger) {
	aside := fmt.Sprintf("%s.bad-%s", path, time.Now().UTC().Format("20060102T150405.000Z"))
	if rerr := os.Rename(path, aside); rerr != nil {
		log.Warn("state file unreadable and could not be moved aside; starting with an empty history",
			zap.String("file", path), zap.Error(err), zap.NamedError("rename_error", rerr))
		return
	}
	log.Warn("state file unreadable; moved aside, starting with an empty history",
		zap.String("file", path), zap.String("moved_to", aside), zap.Error(err))
	old, _ := filepath.Glob(path + ".bad-*") // the names sort by time
	sort.Strings(old)
	for len(old) > maxAside {
		if rerr := os.Remove(old[0]); rerr == nil {
			log.Info("older state file set aside removed", zap.String("file", old[0]), zap.Int("kept", maxAside))
		}
		old = old[1:]
	}
}

// newerError: the file is of a newer layout than this partmon writes.
type newerError struct{ what, version, want int }

func (e *newerError) Error() string {
	what := "state file"
	if e.what == 1 {
		what = "history in the state file"
	}
	return fmt.Sprintf("%s version %d is newer than this partmon's (%d)", what, e.version, e.want)
}

func readState(path string, limits history.Limits) (*history.History, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > maxStateBytes {
		return nil, fmt.Errorf("state file is %d bytes, more than partmon ever writes (%d)", fi.Size(), maxStateBytes)
	}
	var doc struct {
		Format  string          `json:"format"`
		Version int             `json:"version"`
		History json.RawMessage `json:"history"`
	}
	if err := json.NewDecoder(f).Decode(&doc); err != nil {
		return nil, fmt.Errorf("decoding state file: %w", err)
	}
	if doc.Format != Format {
		return nil, fmt.Errorf("not a partmon state file (format %q)", doc.Format)
	}
	if doc.Version > Version {
		return nil, &newerError{0, doc.Version, Version}
	}
	if doc.Version != Version {
		return nil, fmt.Errorf("state file version %d is not supported (want %d)", doc.Version, Version)
	}
	var hv struct {
		Version int `json:"version"`
	}
	if json.Unmarshal(doc.History, &hv) == nil && hv.Version > history.Version {
		return nil, &newerError{1, hv.Version, history.Version}
	}
	return history.Decode(doc.History, limits)
}

// LoadLogState reads the logs source's positions and evidence from the
// state file; nil (read the logs afresh) when there are none. An unreadable
// file is Load's to report and move aside.
func LoadLogState(path string) *collector.LogState {
	if path == "" {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.Size() > maxStateBytes {
		return nil
	}
	var doc struct {
		Format string              `json:"format"`
		Logs   *collector.LogState `json:"logs"`
	}
	if err := json.NewDecoder(f).Decode(&doc); err != nil || doc.Format != Format {
		return nil
	}
	return doc.Logs
}

// Save writes the history and the log positions atomically (write):
// within the bound, the history thinned and then parts of it dropped as
// fit says. It writes over no file a newer partmon wrote (ErrNewer).
// Saver does the same on a pace, and says what it dropped. When k hides
// keys, the file keeps none: the history without the heatmap's hot keys
// and the key history, and no log positions nor evidence (which quote
// keys), so the logs source reads the recent logs again after a restart.
func Save(path string, h *history.History, logs *collector.LogState, k *keys.Keyer) error {
	_, err := save(path, h, logs, k, maxStateBytes)
	return err
}

// ErrNewer: the state file on disk was written by a newer partmon.
var ErrNewer = errors.New("the state file was written by a newer partmon: left untouched")

func save(path string, h *history.History, logs *collector.LogState, k *keys.Keyer, limit int) (fitted, error) {
	if held(path) || newerOnDisk(path) {
		return fitted{}, ErrNewer
	}
	if k.Hides() {
		logs = nil
	}
	f, err := fit(stateDoc{Format: Format, Version: Version, Saved: time.Now().UTC(), History: savedHistory(k, h), Logs: logs}, limit)
	if err != nil {
		return f, err
	}
	return f, write(path, f.data)
}

// write puts data at path atomically: a temporary file in the same
// directory, synced, then renamed over the old one.
func write(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // no-op after a successful rename
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close() // the write's error is the one to report
		return err
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close() // the sync's error is the one to report
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil { // make the rename itself durable
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// savedHistory is the history as the file keeps it: h itself in plain mode;
// else a copy without the key history and the heatmap columns' hot keys (a hashed key read back
// would not be the key the next snapshot names, nor have its token).
func savedHistory(k *keys.Keyer, h *history.History) *history.History {
	if h == nil || !k.Hides() {
		return h
	}
	out := *h
	// The key history is kept by plain key: none of it is written (it lives
	// in memory; after a restart it starts again).
	out.Keys = nil
	if h.Heat == nil {
		return &out
	}
	heat := *h.Heat
	heat.Columns = make([]history.HeatColumn, len(h.Heat.Columns))
	for i, c := range h.Heat.Columns {
		c.Keys = nil
		heat.Columns[i] = c
	}
	out.Heat = &heat
	return &out
}
