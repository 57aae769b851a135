package collector

import (
	"fmt"
	"maps"
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
// fire together and queue for the same nodetool slots. The CQL sources'
// slower @every periods are shifted by whole ticks of the shortest one
// (periodOffsets), so that no tick runs every source at once.
func (c *Collector) Schedule(cr *cron.Cron, onUpdate func()) error {
	plan, err := newSchedulePlan(c.regs, c.eff, c.now())
	if err != nil {
		return err
	}
	for _, name := range plan.order {
		sched := plan.sched[name]
		if st := plan.info[name]; st.Offset > 0 {
			sched = &staggered{inner: sched, offset: st.Offset}
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

// schedulePlan is every enabled source's parsed schedule and offset.
type schedulePlan struct {
	order []string // registry order
	sched map[string]cron.Schedule
	info  map[string]SourceSchedule
}

// newSchedulePlan plans regs' enabled sources (by eff, their effective
// settings) with the nodetool sources' stagger reckoned from now.
func newSchedulePlan(regs []registration, eff map[string]effectiveSource, now time.Time) (*schedulePlan, error) {
	p := &schedulePlan{sched: map[string]cron.Schedule{}, info: map[string]SourceSchedule{}}
	var nodetoolRegs []string
	every := map[string]time.Duration{} // CQL sources on @every schedules
	for _, r := range regs {
		name := r.src.Name()
		e := eff[name]
		if !e.enabled {
			continue
		}
		sched, err := cron.ParseStandard(e.schedule)
		if err != nil {
			return nil, fmt.Errorf("scheduling source %s: %q: %w", name, e.schedule, err)
		}
		p.order = append(p.order, name)
		p.sched[name] = sched
		p.info[name] = SourceSchedule{Spec: e.schedule, Nodetool: r.nodetool}
		if r.nodetool {
			nodetoolRegs = append(nodetoolRegs, name)
		} else if d, ok := sched.(cron.ConstantDelaySchedule); ok {
			every[name] = d.Delay
		}
	}
	for i, name := range nodetoolRegs {
		if i > 0 {
			st := p.info[name]
			st.Offset = stagger(p.sched[name], now, i, len(nodetoolRegs)).offset
			p.info[name] = st
		}
	}
	offsets := periodOffsets(slices.Collect(maps.Values(every)))
	for name, period := range every {
		st := p.info[name]
		st.Offset = offsets[period]
		p.info[name] = st
	}
	return p, nil
}

// periodOffsets places each period longer than the shortest on its own
// ticks of the shortest: the shortest period fires every tick; each longer
// one, shortest first, gets the first whole-tick offset whose ticks (over
// the periods' common cycle) none of the longer periods placed before it
// uses. On the defaults (1m, 5m, 10m, 30m) that is 0, 0, 1m, 2m: the 5m
// sources share a minute with the 1m ones, the 10m sources run in minutes
// 1, 11, 21, the 30m ones in minute 2. A period that is not a multiple of
// the shortest, or that finds no free tick, keeps offset 0.
func periodOffsets(periods []time.Duration) map[time.Duration]time.Duration {
	slices.Sort(periods)
	periods = slices.Compact(periods)
	out := map[time.Duration]time.Duration{}
	if len(periods) < 2 || periods[0] <= 0 {
		return out
	}
	tick := periods[0]
	cycle := int64(1) // the common cycle, in ticks
	for _, p := range periods {
		if p%tick == 0 {
			cycle = lcm(cycle, int64(p/tick))
		}
	}
	if cycle > 100_000 {
		return out // too long a cycle to lay out; nothing shifted
	}
	used := map[int64]bool{}
	for _, p := range periods[1:] {
		if p%tick != 0 {
			continue
		}
		n := int64(p / tick)
		for k := int64(0); k < n; k++ {
			free := true
			for t := k; t < cycle && free; t += n {
				free = !used[t]
			}
			if !free {
				continue
			}
			for t := k; t < cycle; t += n {
				used[t] = true
			}
			out[p] = time.Duration(k) * tick
			break
		}
	}
	return out
}

func lcm(a, b int64) int64 {
	x, y := a, b
	for y != 0 {
		x, y = y, x%y
	}
	return a / x * b
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

// Schedules is each enabled source's effective schedule, by name, whether
// it runs nodetool, and its offset: what Schedule registers, for a caller
// that weighs the sources' costs by how often and when they run (make
// bench). Sources with an invalid schedule are left out (Schedule fails).
func (c *Collector) Schedules() map[string]SourceSchedule {
	p, err := newSchedulePlan(c.regs, c.eff, c.now())
	if err != nil {
		return map[string]SourceSchedule{}
	}
	return p.info
}

// SourceSchedule is one enabled source's schedule.
type SourceSchedule struct {
	Spec     string        // a cron spec or "@every" descriptor
	Nodetool bool          // each run starts a nodetool JVM per node
	Offset   time.Duration // the first run is this much later than the spec says (an @every schedule keeps the shift)
}

// Tick is one tick of the shortest CQL period within the CQL sources'
// common cycle, with the sources the schedule runs in it.
type Tick struct {
	At      time.Duration // from the start of the cycle
	Sources []string      // sorted
}

// CQLTicks lays out the CQL sources' @every schedules (with their offsets)
// over their common cycle, one Tick per tick of the shortest period: what a
// running daemon reads in each. The nodetool sources and sources on cron
// specs are not laid out (they are returned apart), nor is the start-up run
// of every source at once.
func CQLTicks(scheds map[string]SourceSchedule) (ticks []Tick, apart []string) {
	periods := map[string]time.Duration{}
	for name, st := range scheds {
		sched, err := cron.ParseStandard(st.Spec)
		d, every := sched.(cron.ConstantDelaySchedule)
		if err != nil || !every || st.Nodetool {
			apart = append(apart, name)
			continue
		}
		periods[name] = d.Delay
	}
	slices.Sort(apart)
	if len(periods) == 0 {
		return nil, apart
	}
	tick := slices.Min(slices.Collect(maps.Values(periods)))
	cycle := int64(1)
	for name, p := range periods {
		if p%tick != 0 || scheds[name].Offset%tick != 0 {
			apart = append(apart, name)
			delete(periods, name)
			continue
		}
		cycle = lcm(cycle, int64(p/tick))
	}
	slices.Sort(apart)
	if cycle > 100_000 {
		return nil, apart
	}
	for t := int64(1); t <= cycle; t++ {
		at := time.Duration(t) * tick
		tk := Tick{At: at}
		for name, p := range periods {
			if (at-scheds[name].Offset)%p == 0 {
				tk.Sources = append(tk.Sources, name)
			}
		}
		slices.Sort(tk.Sources)
		ticks = append(ticks, tk)
	}
	return ticks, apart
}
