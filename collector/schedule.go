package collector

import (
	"fmt"
	"slices"
	"time"

	"github.com/robfig/cron/v3"
)

// Schedule adds one cron entry per enabled source, on the source's own
// schedule. Each run collects that source (on every targeted node for a
// node-scope source) within the collector's lifetime and then calls onUpdate
// (if not nil), e.g. to analyze and publish a fresh Snapshot. Create c with
// cron.Recover and cron.SkipIfStillRunning so a slow run is skipped, not
// stacked. Specs are parsed with cron.ParseStandard, whatever c's parser.
//
// The nodetool sources are staggered: the i-th of n is shifted by i/n of its
// period (on the default @every 10m: 0, 3m20s, 6m40s), so that they do not
// fire together and queue for the same nodetool slots.
func (c *Collector) Schedule(cr *cron.Cron, onUpdate func()) error {
	var nodetoolRegs []string
	for _, r := range c.regs {
		if r.nodetool && c.eff[r.src.Name()].enabled {
			nodetoolRegs = append(nodetoolRegs, r.src.Name())
		}
	}
	now := c.now()
	for _, r := range c.regs {
		name := r.src.Name()
		eff := c.eff[name]
		if !eff.enabled {
			continue
		}
		sched, err := cron.ParseStandard(eff.schedule)
		if err != nil {
			return fmt.Errorf("scheduling source %s: %q: %w", name, eff.schedule, err)
		}
		if i := slices.Index(nodetoolRegs, name); i > 0 {
			sched = stagger(sched, now, i, len(nodetoolRegs))
		}
		cr.Schedule(sched, cron.FuncJob(func() {
			if c.ctx.Err() != nil {
				return // closed
			}
			_ = c.CollectSource(c.ctx, name) // failures are logged per node and kept in the status
			if onUpdate != nil {
				onUpdate()
			}
		}))
	}
	return nil
}

// staggered is a schedule shifted by offset. An @every schedule counts from
// its previous run, so only its first run is shifted; a cron spec's every
// run is.
type staggered struct {
	inner   cron.Schedule
	offset  time.Duration
	started bool // cron calls Next from one goroutine
}

// stagger shifts s by i/n of its period, the gap between its next two runs
// after now.
func stagger(s cron.Schedule, now time.Time, i, n int) *staggered {
	first := s.Next(now)
	period := s.Next(first).Sub(first)
	return &staggered{inner: s, offset: period * time.Duration(i) / time.Duration(n)}
}

func (s *staggered) Next(t time.Time) time.Time {
	if _, every := s.inner.(cron.ConstantDelaySchedule); every {
		if s.started {
			return s.inner.Next(t)
		}
		s.started = true
		return s.inner.Next(t).Add(s.offset)
	}
	return s.inner.Next(t.Add(-s.offset)).Add(s.offset)
}

// Schedules is each enabled source's effective schedule, by name, and
// whether it runs nodetool: what Schedule registers, for a caller that
// weighs the sources' costs by how often they run (make bench).
func (c *Collector) Schedules() map[string]SourceSchedule {
	out := map[string]SourceSchedule{}
	for _, r := range c.regs {
		if eff := c.eff[r.src.Name()]; eff.enabled {
			out[r.src.Name()] = SourceSchedule{Spec: eff.schedule, Nodetool: r.nodetool}
		}
	}
	return out
}

// SourceSchedule is one enabled source's schedule.
type SourceSchedule struct {
	Spec     string // a cron spec or "@every" descriptor
	Nodetool bool   // each run starts a nodetool JVM per node
}
