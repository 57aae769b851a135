package collector

import (
	"sync"
	"time"
)

// rateTracker turns cumulative counters into rates: the count difference
// against the previous read of the same counter divided by the time between
// the two reads.
type rateTracker struct {
	mu   sync.Mutex
	prev map[string]counterReading
}

type counterReading struct {
	count int64
	at    time.Time
}

func newRateTracker() *rateTracker {
	return &rateTracker{prev: map[string]counterReading{}}
}

// rate records count for key at time at and returns operations per second
// since the previous reading, or -1 when there is none, when the counter
// went backwards (the node restarted) or when no time has passed.
func (t *rateTracker) rate(key string, count int64, at time.Time) float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok := t.prev[key]
	t.prev[key] = counterReading{count: count, at: at}
	if !ok || count < p.count {
		return -1
	}
	elapsed := at.Sub(p.at).Seconds()
	if elapsed <= 0 {
		return -1
	}
	return float64(count-p.count) / elapsed
}

// forget drops the readings of keys for which keep is false (tables dropped,
// nodes gone), so the map does not grow forever.
func (t *rateTracker) forget(keep func(key string) bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k := range t.prev {
		if !keep(k) {
			delete(t.prev, k)
		}
	}
}
