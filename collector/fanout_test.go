package collector

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robfig/cron/v3"
)

// concurrency counts how many holders are in at once and the most ever.
type concurrency struct {
	now, peak atomic.Int64
}

func (c *concurrency) enter() {
	n := c.now.Add(1)
	for p := c.peak.Load(); n > p && !c.peak.CompareAndSwap(p, n); p = c.peak.Load() {
	}
}

func (c *concurrency) leave() { c.now.Add(-1) }

// Cluster mode over many nodes, with every nodetool source firing at once
// as the three @every 10m entries did: never more nodes than
// node_concurrency at once, never more nodetool runs than
// max_concurrent_runs, and the bounds are reached (the work is parallel).
func TestFanOutBoundsNodesAndNodetoolRuns(t *testing.T) {
	for _, tc := range []struct{ nodes, nodeBound, jvmBound int }{
		{nodes: 100, nodeBound: 16, jvmBound: 2},
		{nodes: 3, nodeBound: 16, jvmBound: 1},
		{nodes: 40, nodeBound: 4, jvmBound: 8},
	} {
		t.Run(fmt.Sprintf("%d nodes, %d workers, %d runs", tc.nodes, tc.nodeBound, tc.jvmBound), func(t *testing.T) {
			c := newTestCollector(t, Config{Hosts: []string{"10.0.0.1"}, Mode: ModeCluster, NodeConcurrency: tc.nodeBound,
				NodetoolSampler: NodetoolSamplerConfig{Command: []string{"nodetool"}, MaxConcurrentRuns: tc.jvmBound}})
			var regs []registration
			for _, r := range c.regs {
				if r.nodetool {
					regs = append(regs, r)
				}
			}
			if len(regs) != 3 {
				t.Fatalf("%d nodetool sources, want 3", len(regs))
			}
			targets := make([]target, tc.nodes)
			var nodes, jvms concurrency
			var runs atomic.Int64
			run := func(_ context.Context, r registration, tg target) error {
				jvms.enter()
				defer jvms.leave()
				runs.Add(1)
				time.Sleep(2 * time.Millisecond) // a nodetool JVM, much shortened
				return errors.New(r.src.Name())
			}
			// One fan-out per source, all at once: the three cron entries firing together.
			var wg sync.WaitGroup
			var errCount atomic.Int64
			for _, r := range regs {
				wg.Go(func() {
					errs := c.fan.run(context.Background(), targets, []registration{r}, func(ctx context.Context, r registration, tg target) error {
						nodes.enter()
						defer nodes.leave()
						return run(ctx, r, tg)
					})
					errCount.Add(int64(len(errs)))
				})
			}
			wg.Wait()
			if got, want := runs.Load(), int64(3*tc.nodes); got != want || errCount.Load() != want {
				t.Fatalf("%d runs, %d errors returned, want %d of each", got, errCount.Load(), want)
			}
			if got := jvms.peak.Load(); got != int64(min(tc.jvmBound, 3*tc.nodes)) {
				t.Errorf("at most %d nodetool runs at once, want exactly the bound %d", got, tc.jvmBound)
			}
			// Each source's fan-out has its own workers; the JVM bound is global.
			if got := nodes.peak.Load(); got > int64(3*tc.nodeBound) {
				t.Errorf("%d node runs at once, more than 3 fan-outs × %d workers", got, tc.nodeBound)
			}
		})
	}
}

// One fan-out never runs more targets at once than node_concurrency, and
// skips what is left once its context ends.
func TestFanOutWorkerPool(t *testing.T) {
	c := newTestCollector(t, Config{Hosts: []string{"10.0.0.1"}, Mode: ModeCluster, NodeConcurrency: 5})
	var nodes concurrency
	var runs atomic.Int64
	regs := c.regs[2:4] // two node-scope CQL sources
	c.fan.run(context.Background(), make([]target, 50), regs, func(context.Context, registration, target) error {
		nodes.enter()
		defer nodes.leave()
		runs.Add(1)
		time.Sleep(time.Millisecond)
		return nil
	})
	if runs.Load() != 100 || nodes.peak.Load() != 5 {
		t.Errorf("%d runs, %d at once; want 100 runs, 5 at once", runs.Load(), nodes.peak.Load())
	}

	// The runs hold one lock: without it the worker that counted the 3rd run
	// could be descheduled before its cancel while the others ran all the
	// rest (1 in ~150 runs: "99 runs after the context ended").
	ctx, cancel := context.WithCancel(context.Background())
	runs.Store(0)
	var one sync.Mutex
	c.fan.run(ctx, make([]target, 50), regs, func(context.Context, registration, target) error {
		one.Lock()
		defer one.Unlock()
		if runs.Add(1) == 3 {
			cancel()
		}
		return nil
	})
	if got := runs.Load(); got > 3+5 {
		t.Errorf("%d runs after the context ended at the 3rd, want at most the 5 workers' runs already started", got)
	}
}

// The nodetool sources' default @every 10m entries fire 3m20s apart, the
// CQL sources' 10m and 30m entries a minute and two after the 1m and 5m
// ones (periodOffsets), and a cron spec is shifted on every run.
func TestNodetoolSchedulesStaggered(t *testing.T) {
	c := newTestCollector(t, Config{Hosts: []string{"10.0.0.1"}, NodetoolSampler: NodetoolSamplerConfig{Command: []string{"nodetool"}}})
	t0 := time.Date(2026, 12, 3, 2, 0, 0, 0, time.UTC)
	c.now = func() time.Time { return t0 }
	cr := cron.New()
	if err := c.Schedule(cr, nil); err != nil {
		t.Fatal(err)
	}
	var firsts []time.Duration
	for _, e := range cr.Entries() {
		if s, ok := e.Schedule.(*staggered); ok {
			firsts = append(firsts, s.Next(t0).Sub(t0))
		}
	}
	slices.Sort(firsts)
	// The first nodetool source keeps its plain schedule (10m); the others are
	// staggered. The five CQL sources on 10m (size_estimates, top_partitions
	// and ScyllaDB's three large_* tables) start at 11m, settings and
	// max_sstable_size (30m) at 32m.
	want := []time.Duration{11 * time.Minute, 11 * time.Minute, 11 * time.Minute, 11 * time.Minute, 11 * time.Minute,
		10*time.Minute + 200*time.Second, 10*time.Minute + 400*time.Second, 32 * time.Minute, 32 * time.Minute}
	if fmt.Sprint(firsts) != fmt.Sprint(want) {
		t.Errorf("first runs of the staggered nodetool sources after %s: %v, want %v", t0, firsts, want)
	}

	every, _ := cron.ParseStandard("@every 10m")
	s := stagger(every, t0, 1, 3)
	first := s.Next(t0)
	if second := s.Next(first); second.Sub(first) != 10*time.Minute {
		t.Errorf("@every 10m staggered: runs %s apart after the first, want 10m", second.Sub(first))
	}
	spec, _ := cron.ParseStandard("*/10 * * * *")
	s = stagger(spec, t0, 2, 3)
	for at, next := t0, []string{"02:06:40", "02:16:40", "02:26:40"}; len(next) > 0; next = next[1:] {
		at = s.Next(at)
		if got := at.Format("15:04:05"); got != next[0] {
			t.Errorf("*/10 staggered by 2/3: run at %s, want %s", got, next[0])
		}
	}
}
