//go:build integration

package reliability

import (
	"os"
	"slices"
	"testing"
	"time"
)

// soakDuration is how long the soak samples (after its warm-up);
// PARTMON_SOAK_DURATION overrides it (a Go duration).
func soakDuration(t *testing.T) time.Duration {
	d := 3 * time.Minute
	if v := os.Getenv("PARTMON_SOAK_DURATION"); v != "" {
		var err error
		if d, err = time.ParseDuration(v); err != nil || d < 30*time.Second {
			t.Fatalf("PARTMON_SOAK_DURATION=%q: want a duration of at least 30s", v)
		}
	}
	return d
}

// TestSoak runs partmon (without the race detector, whose shadow memory
// would swamp the figures) with every source and the analysis every second
// — about 45 source runs on 3 nodes and one analysis per second — and
// samples its own /metrics every 5 s: go_goroutines,
// go_memstats_heap_inuse_bytes and process_resident_memory_bytes.
//
// No sustained growth: the median of the last third of the samples may
// exceed the median of the first third by at most
//   - goroutines: 10 % + 5. The count at rest is fixed (sessions, cron,
//     HTTP); a sample may catch runs in flight, which the medians smooth
//     out. A leak of one goroutine per cycle adds ~60 per third.
//   - heap in use: 50 %. The heap of a live Go process swings with the GC
//     cycle (up to GOGC=100 % of the live heap) and medians of a dozen
//     samples halve that; a leak of one snapshot per cycle (tens of KiB
//     here, every second) would grow it far beyond that in a third.
//   - RSS: 50 %, for the same reason; it is logged for the report too.
//
// The first 20 s are a warm-up: sessions open, capabilities are probed and
// the bounded history fills.
func TestSoak(t *testing.T) {
	c := ownCluster(t)
	creds := c.readOnlyRole(t, "partmon_soak")
	d := c.startPartmon(t, "partmon-soak", options{
		creds: creds, plain: true, sourceEvery: time.Second, analysisEvery: time.Second,
		stateFile: t.TempDir() + "/state.json",
	})
	d.waitReady(60 * time.Second)
	c.waitHealthy(d, 60*time.Second)
	time.Sleep(20 * time.Second)

	type sample struct{ goroutines, heap, rss, cycle float64 }
	var got []sample
	duration := soakDuration(t)
	start := time.Now()
	for time.Since(start) < duration {
		d.alive()
		fams, err := d.metrics()
		if err != nil {
			t.Fatalf("scraping during the soak: %v", err)
		}
		got = append(got, sample{
			goroutines: single(fams, "go_goroutines"),
			heap:       single(fams, "go_memstats_heap_inuse_bytes"),
			rss:        single(fams, "process_resident_memory_bytes"),
			cycle:      single(fams, "partmon_last_cycle_timestamp_seconds"),
		})
		time.Sleep(5 * time.Second)
	}
	if len(got) < 6 {
		t.Fatalf("only %d samples", len(got))
	}
	// The analysis kept running: the last cycle is recent at every sample.
	var cycles int
	for i, s := range got {
		if s.goroutines < 0 || s.heap < 0 || s.rss < 0 || s.cycle < 0 {
			t.Fatalf("sample %d misses a metric: %+v", i, s)
		}
		if i > 0 && s.cycle > got[i-1].cycle {
			cycles++
		}
	}
	if cycles < len(got)-2 {
		t.Errorf("the analysis advanced in only %d of %d sample intervals", cycles, len(got)-1)
	}
	third := len(got) / 3
	first, last := got[:third], got[len(got)-third:]
	med := func(ss []sample, f func(sample) float64) float64 {
		v := make([]float64, len(ss))
		for i, s := range ss {
			v[i] = f(s)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	checks := []struct {
		name     string
		f        func(sample) float64
		ratio    float64
		absolute float64
	}{
		{"go_goroutines", func(s sample) float64 { return s.goroutines }, 1.10, 5},
		{"go_memstats_heap_inuse_bytes", func(s sample) float64 { return s.heap }, 1.50, 0},
		{"process_resident_memory_bytes", func(s sample) float64 { return s.rss }, 1.50, 0},
	}
	for _, ch := range checks {
		a, b := med(first, ch.f), med(last, ch.f)
		limit := a*ch.ratio + ch.absolute
		t.Logf("%s: median %.0f in the first third, %.0f in the last (limit %.0f); %d samples over %s",
			ch.name, a, b, limit, len(got), duration)
		if b > limit {
			t.Errorf("%s grew from %.0f to %.0f over the soak (limit %.0f)", ch.name, a, b, limit)
		}
	}
	h, err := d.health()
	if err != nil {
		t.Fatal(err)
	}
	if ok, why := h.healthy(c.hosts); !ok {
		t.Errorf("after the soak: %s", why)
	}
}
