package main

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/robfig/cron/v3"
	"go.uber.org/zap"

	"github.com/partmon/partmon/collector"
)

// The default schedule's cost to the node: a sidecar collector with the
// nodetool runner configured runs its sources in groups of equal period
// (every source of the group once, as the group's cron entries would), each
// group measured as one action; the nodetool sources are a group of their
// own. Per minute, each group's node CPU counts 1/period times: with the
// runner off the CQL groups alone, with it on the nodetool group too.

// costSchedulePrefix + the period ("1m0s") keys a group's costs in
// stageResult.Cost; costScheduleNodetool keys the nodetool sources'.
const (
	costSchedulePrefix   = "schedule_"
	costScheduleNodetool = "schedule_nodetool"
)

// scheduleGroup is the sources that share one period.
type scheduleGroup struct {
	key     string // the stageResult.Cost key
	period  time.Duration
	sources []string
}

type scheduleBench struct {
	coll   *collector.Collector
	groups []scheduleGroup
}

// newScheduleBench: with the nodetool runner configured if runner.
func newScheduleBench(c *benchCluster, n int, runner bool) (*scheduleBench, error) {
	cfg := collector.Config{Hosts: []string{c.hosts[n-1]}, Mode: "sidecar"}
	if runner {
		cfg.NodetoolSampler = collector.NodetoolSamplerConfig{Command: []string{c.script, "nodetool", "--dir", c.dir, strconv.Itoa(n)}}
	}
	coll, err := collector.New(cfg, zap.NewNop())
	if err != nil {
		return nil, fmt.Errorf("creating the schedule's collector: %w", err)
	}
	groups, err := groupBySchedule(coll.Schedules(), time.Now())
	if err != nil {
		coll.Close()
		return nil, err
	}
	return &scheduleBench{coll: coll, groups: groups}, nil
}

func (b *scheduleBench) close() { b.coll.Close() }

// groupBySchedule groups the sources by period (the gap between a spec's
// next two runs after now), the nodetool sources apart, in a stable order.
func groupBySchedule(scheds map[string]collector.SourceSchedule, now time.Time) ([]scheduleGroup, error) {
	byKey := map[string]*scheduleGroup{}
	for name, s := range scheds {
		spec, err := cron.ParseStandard(s.Spec)
		if err != nil {
			return nil, fmt.Errorf("source %s: schedule %q: %w", name, s.Spec, err)
		}
		first := spec.Next(now)
		period := spec.Next(first).Sub(first)
		key := costSchedulePrefix + period.String()
		if s.Nodetool {
			key = costScheduleNodetool
		}
		g := byKey[key]
		if g == nil {
			g = &scheduleGroup{key: key, period: period}
			byKey[key] = g
		}
		if g.period != period {
			return nil, fmt.Errorf("nodetool sources on different periods (%s, %s): the bench weighs them as one group", g.period, period)
		}
		g.sources = append(g.sources, name)
	}
	var out []scheduleGroup
	for _, g := range byKey {
		sort.Strings(g.sources)
		out = append(out, *g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out, nil
}

// warm connects, probes and reads the ring and schema, unmeasured.
func (b *scheduleBench) warm(ctx context.Context) {
	_ = b.coll.CollectAll(ctx) // failures are in the snapshot's statuses
}

// run measures each group once, recording its cost under its key and the
// sources that failed (a failed run costs less: its figure is suspect).
func (b *scheduleBench) run(ctx context.Context, r *stageResult) error {
	for _, g := range b.groups {
		nc, err := r.idle.measure(func() (float64, error) {
			for _, name := range g.sources {
				if err := b.coll.CollectSource(ctx, name); err != nil {
					r.ScheduleFailed = append(r.ScheduleFailed, name+": "+err.Error())
					logf("schedule group %s: %s failed: %v", g.key, name, err)
				}
			}
			return 0, ctx.Err()
		})
		if err != nil {
			return err
		}
		r.Cost[g.key] = append(r.Cost[g.key], nc)
		r.SchedulePeriods[g.key] = g.period.Seconds()
	}
	return nil
}

// runGroup measures the group keyed key alone, if on and the bench has it.
func (b *scheduleBench) runGroup(ctx context.Context, r *stageResult, key string, on bool) error {
	if !on {
		return nil
	}
	all := b.groups
	defer func() { b.groups = all }()
	b.groups = nil
	for _, g := range all {
		if g.key == key {
			b.groups = append(b.groups, g)
		}
	}
	return b.run(ctx, r)
}

// perMinute is the node CPU (ms) one minute of the default schedule costs:
// each measured group's median net CPU over its period in minutes, the
// nodetool group only if withNodetool. NaN when nothing was measured.
func perMinute(r *stageResult, withNodetool bool) float64 {
	total, measured := 0.0, false
	for key, period := range r.SchedulePeriods {
		if key == costScheduleNodetool && !withNodetool {
			continue
		}
		if v := netCPU(r, key); len(v) > 0 && period > 0 {
			total += median(v) / (period / 60)
			measured = true
		}
	}
	if !measured {
		return math.NaN()
	}
	return total
}
