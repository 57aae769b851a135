package collector

import (
	"testing"
	"time"
)

func TestRateTrackerForget(t *testing.T) {
	r := newRateTracker()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r.rate("a", 10, at)
	r.rate("b", 10, at)
	r.forget(func(k string) bool { return k == "a" })
	if got := r.rate("a", 20, at.Add(time.Second)); got != 10 {
		t.Errorf("kept key: rate %g, want 10", got)
	}
	if got := r.rate("b", 20, at.Add(time.Second)); got != -1 {
		t.Errorf("forgotten key: rate %g, want -1 (a new first read)", got)
	}
	if got := r.rate("a", 30, at.Add(time.Second)); got != -1 {
		t.Errorf("no time passed: rate %g, want -1", got)
	}
}
