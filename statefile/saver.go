package statefile

import (
	"errors"
	"time"

	"go.uber.org/zap"

	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/collector"
	"github.com/partmon/partmon/internal/keys"
)

// DefaultSaveEvery is the daemon's pace: a restart loses at most that much
// history, and a large state (~50 MB at 10,000 tables) is not encoded and
// synced every cycle.
const DefaultSaveEvery = 10 * time.Minute

// saveShare: a save that took d waits at least d / saveShare before the
// next, so that saving stays a small share of the process's time however
// large the state grows.
const saveShare = 0.05

// Saver saves the state file on a pace (Due) and on demand (shutdown),
// and logs what it had to leave out and why it could not save. Not safe
// for concurrent use.
type Saver struct {
	Path  string
	Every time.Duration // DefaultSaveEvery when 0
	Log   *zap.Logger

	last, next time.Time
	saidNewer  bool
	saved      [2]int // the nodes with traffic and the tables with sizes at the last save
}

// Due: the pace allows a save at now (the first is always due), or h has
// nodes or tables the last save had not (a restart soon after start-up,
// or after a node joined, keeps them).
func (s *Saver) Due(now time.Time, h *history.History) bool {
	if s.Path == "" {
		return false
	}
	return s.last.IsZero() || !now.Before(s.next) || (h != nil && (len(h.Traffic) > s.saved[0] || len(h.Sizes) > s.saved[1]))
}

// Save writes the state now; nothing without a path.
func (s *Saver) Save(h *history.History, logs *collector.LogState, k *keys.Keyer) {
	if s.Path == "" {
		return
	}
	log := s.Log
	if log == nil {
		log = zap.NewNop()
	}
	start := time.Now()
	if h != nil {
		s.saved = [2]int{len(h.Traffic), len(h.Sizes)}
	}
	f, err := save(s.Path, h, logs, k, maxStateBytes)
	took := time.Since(start)
	every := s.Every
	if every <= 0 {
		every = DefaultSaveEvery
	}
	s.last, s.next = start, start.Add(max(every, time.Duration(float64(took)/saveShare)))
	switch {
	case errors.Is(err, ErrNewer):
		if !s.saidNewer {
			log.Warn("state file written by a newer partmon: not written over, the history stays in memory only", zap.String("file", s.Path))
			s.saidNewer = true
		}
	case err != nil:
		log.Warn("saving state failed; history will be rebuilt after a restart", zap.String("file", s.Path), zap.Error(err), zap.Strings("cut", f.dropped))
	case len(f.dropped) > 0:
		log.Warn("state past its bound: saved with parts of the history left out (the history in memory is whole)",
			zap.String("file", s.Path), zap.Int("bytes", len(f.data)), zap.Int("bound", maxStateBytes), zap.Strings("cut", f.dropped))
	default:
		log.Debug("state saved", zap.String("file", s.Path), zap.Int("bytes", len(f.data)), zap.Duration("took", took))
	}
}
