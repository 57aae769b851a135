package alertmanager

import (
	"sort"
	"sync"
	"time"
)

// book is the pusher's memory of what the Alertmanagers were told: the
// alerts active now and, per Alertmanager, the resolves it has yet to
// acknowledge. Safe for concurrent use.
type book struct {
	resend  time.Duration // re-send interval: active alerts end 3 intervals after a send
	targets []string      // Alertmanager URLs a resolve must reach

	mu       sync.Mutex
	active   map[string]postableAlert // EndsAt is set per send
	resolved map[string]*resolvedAlert
}

type resolvedAlert struct {
	alert   postableAlert   // EndsAt is when the finding disappeared
	pending map[string]bool // target URLs that have not acknowledged the resolve
}

// keyedAlert is an alert with the key that follows its finding across cycles.
type keyedAlert struct {
	key   string
	alert postableAlert
}

func newBook(resend time.Duration, targets []string) *book {
	return &book{resend: resend, targets: targets,
		active: make(map[string]postableAlert), resolved: make(map[string]*resolvedAlert)}
}

// update makes alerts the active set at now: new keys start now, known keys
// keep their start, and keys that vanished are resolved.
func (b *book) update(alerts []keyedAlert, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	seen := make(map[string]bool, len(alerts))
	for _, ka := range alerts {
		id, next := ka.key, ka.alert
		if seen[id] {
			continue
		}
		seen[id] = true
		next.StartsAt = now
		if cur, ok := b.active[id]; ok {
			if sameLabels(cur.Labels, next.Labels) {
				next.StartsAt = cur.StartsAt
			} else {
				// New labels are a new alert to Alertmanager: close the old one.
				b.resolve(id+"\x00"+now.String(), cur, now)
			}
		}
		delete(b.resolved, id)
		b.active[id] = next
	}
	for id, a := range b.active {
		if !seen[id] {
			b.resolve(id, a, now)
			delete(b.active, id)
		}
	}
}

// resolve queues a's last send with endsAt = at for every target. Caller holds mu.
func (b *book) resolve(id string, a postableAlert, at time.Time) {
	a.EndsAt = at
	pending := make(map[string]bool, len(b.targets))
	for _, t := range b.targets {
		pending[t] = true
	}
	if len(pending) > 0 {
		b.resolved[id] = &resolvedAlert{alert: a, pending: pending}
	}
}

// payload is what target must receive at now: every active alert with a
// fresh endsAt, and the resolves target has not acknowledged, ordered by
// key. It also returns those resolves, for delivered.
func (b *book) payload(target string, now time.Time) ([]postableAlert, map[string]*resolvedAlert) {
	b.mu.Lock()
	defer b.mu.Unlock()
	// A resolve older than 3 intervals needs no delivery: Alertmanager has
	// expired the alert by the endsAt of its last successful re-send.
	for id, r := range b.resolved {
		if now.Sub(r.alert.EndsAt) > 3*b.resend {
			delete(b.resolved, id)
		}
	}
	ids := make([]string, 0, len(b.active)+len(b.resolved))
	for id := range b.active {
		ids = append(ids, id)
	}
	included := make(map[string]*resolvedAlert)
	for id, r := range b.resolved {
		if r.pending[target] {
			ids = append(ids, id)
			included[id] = r
		}
	}
	sort.Strings(ids)
	alerts := make([]postableAlert, 0, len(ids))
	for _, id := range ids {
		if a, ok := b.active[id]; ok {
			a.EndsAt = now.Add(3 * b.resend)
			alerts = append(alerts, a)
		} else {
			alerts = append(alerts, included[id].alert)
		}
	}
	return alerts, included
}

// delivered records that target accepted the resolves of a payload.
func (b *book) delivered(target string, included map[string]*resolvedAlert) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for id, r := range included {
		if b.resolved[id] == r { // not replaced meanwhile
			delete(r.pending, target)
			if len(r.pending) == 0 {
				delete(b.resolved, id)
			}
		}
	}
}
