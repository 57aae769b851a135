package publish

import (
	"sync"
	"sync/atomic"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/internal/keys"
	"github.com/partmon/partmon/model"
)

// Latest is the home of the latest cycle's report: the daemon publishes
// into it, and the exporter, the web server and the alert pusher read it.
// The zero value holds nothing yet; concurrent reads and a concurrent
// Publish are safe.
type Latest struct {
	// Keys shows the partition keys of every report published: what is
	// stored is Shown's redacted copy, so no reader (metrics, the
	// API, the page, the pusher fed Publish's result) sees a key the
	// configuration hides. Set before the first Publish; nil is plain.
	Keys *keys.Keyer

	mu        sync.Mutex // serialises writers; readers only Load
	state     atomic.Pointer[Cycle]
	onPublish []func() // guarded by mu
}

// Cycle is what the latest Publish left, read at once so its parts agree.
// It is immutable once stored.
type Cycle struct {
	// Report is the last good report, nil before the first one.
	Report *analyzer.Report
	// Sources is the per-source status of the latest attempt, even a failed one.
	Sources []model.SourceStatus
	// Up is whether the latest attempt produced a good report.
	Up bool
	// Generation counts Publish calls: what is read from the report can
	// only have changed when it has.
	Generation uint64
}

// Publish makes r, its keys shown as l.Keys says, the report every later
// read gets (an atomic swap); r must not change afterwards. A nil report,
// or one whose every source failed, marks the cycle failed (Up false) and
// keeps the last good report, while Sources show the failed attempt. It
// returns r as shown, for outputs fed directly (the alert pusher).
func (l *Latest) Publish(r *analyzer.Report) *analyzer.Report {
	r = Shown(l.Keys, r)
	l.mu.Lock()
	next := &Cycle{}
	if prev := l.state.Load(); prev != nil {
		*next = *prev
	}
	next.Generation++
	next.Up = false
	if r != nil {
		next.Sources = r.Sources
		if !Failed(r) {
			next.Report = r
			next.Up = true
		}
	}
	l.state.Store(next)
	hooks := l.onPublish
	l.mu.Unlock()
	for _, f := range hooks {
		f()
	}
	return r
}

// OnPublish registers f to run after every Publish, on the publishing
// goroutine once the new state is visible (a cache of what is read from the
// report rebuilds there, so that readers find it ready).
func (l *Latest) OnPublish(f func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.onPublish = append(l.onPublish, f)
}

// Cycle is the latest published state; the zero Cycle before any Publish.
func (l *Latest) Cycle() Cycle {
	if c := l.state.Load(); c != nil {
		return *c
	}
	return Cycle{}
}

// Report is the last good report, nil before the first one.
func (l *Latest) Report() *analyzer.Report { return l.Cycle().Report }

// Ready is true once a cycle has published a good report.
func (l *Latest) Ready() bool { return l.Report() != nil }
