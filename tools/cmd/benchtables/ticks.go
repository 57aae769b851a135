package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/partmon/partmon/collector"
)

// A cycle on the default schedule: the daemon runs each CQL source on its
// own @every period, the slower periods shifted onto minutes of their own
// (collector.CQLTicks). Each distinct set of sources that one minute runs
// is measured as one action (every source of the set once, on the
// per-source collector, `--source-reads` times back to back, costs and
// statements divided), with its statements on the node. "The cycle" is
// the set that costs the node most; per minute is the sets' median costs
// summed over the minutes of the common cycle ÷ its length.

// costTickPrefix + the tick's sources joined by "+" keys its costs.
const costTickPrefix = "tick_"

// tickSet is one distinct set of sources and the minutes that run it.
type tickSet struct {
	key     string
	sources []string
	minutes int
}

// tickSets groups the schedule's ticks by their sources.
func tickSets(scheds map[string]collector.SourceSchedule) (sets []tickSet, cycleMinutes float64) {
	ticks, _ := collector.CQLTicks(scheds)
	byKey := map[string]*tickSet{}
	for _, tk := range ticks {
		key := costTickPrefix + strings.Join(tk.Sources, "+")
		if byKey[key] == nil {
			byKey[key] = &tickSet{key: key, sources: tk.Sources}
		}
		byKey[key].minutes++
	}
	for _, s := range byKey {
		sets = append(sets, *s)
	}
	slices.SortFunc(sets, func(a, b tickSet) int { return strings.Compare(a.key, b.key) })
	if n := len(ticks); n > 0 {
		cycleMinutes = ticks[n-1].At.Minutes()
	}
	return sets, cycleMinutes
}

// runTicks measures every distinct tick set once.
func (b *sourceBench) runTicks(ctx context.Context, r *stageResult) error {
	sets, cycle := tickSets(b.coll.Schedules())
	r.TickCycleMinutes = cycle
	for _, set := range sets {
		st0 := b.coll.StatementsSent()[b.node]
		nc, err := r.idle.measure(func() (float64, error) {
			for i := 0; i < b.reps; i++ {
				for _, name := range set.sources {
					_ = b.coll.CollectSource(ctx, name) // failures are counted by the per-source runs
				}
			}
			return 0, ctx.Err()
		})
		if err != nil {
			return err
		}
		k := float64(b.reps)
		nc.Wall, nc.CPU, nc.GC = nc.Wall/k, nc.CPU/k, nc.GC/k
		r.Cost[set.key] = append(r.Cost[set.key], nc)
		r.TickMinutes[set.key] = set.minutes
		r.TickStatements[set.key] = append(r.TickStatements[set.key], ceilDiv(b.coll.StatementsSent()[b.node]-st0, int64(b.reps)))
	}
	return nil
}

// busiestTick is the tick set with the highest median node CPU.
func busiestTick(r *stageResult) (key string, cpu float64) {
	for k := range r.TickMinutes {
		if v := median(netCPU(r, k)); key == "" || v > cpu || v == cpu && k < key {
			key, cpu = k, v
		}
	}
	return key, cpu
}

// maxTickStatements is the most statements any tick sent to the node.
func maxTickStatements(r *stageResult) int64 {
	var m int64
	for _, v := range r.TickStatements {
		m = max(m, slices.Max(v))
	}
	return m
}

// tickPerMinute is the node CPU (ms) a minute of the schedule costs on
// average, from the tick sets' medians.
func tickPerMinute(r *stageResult) float64 {
	if r.TickCycleMinutes <= 0 {
		return 0
	}
	total := 0.0
	for k, n := range r.TickMinutes {
		total += median(netCPU(r, k)) * float64(n)
	}
	return total / r.TickCycleMinutes
}

// tickRows are the default schedule's figures: the busiest minute against
// one jmx_exporter scrape, statements, per minute.
func tickRows(results []*stageResult) [][]string {
	line := func(name string, f func(r *stageResult) string) []string { return figureRow(results, name, f) }
	measured := func(f func(r *stageResult) string) func(r *stageResult) string {
		return func(r *stageResult) string {
			if len(r.TickMinutes) == 0 {
				return "not measured"
			}
			return f(r)
		}
	}
	return [][]string{
		line("cycle = the default schedule's busiest minute: its sources", measured(func(r *stageResult) string {
			k, _ := busiestTick(r)
			return strings.ReplaceAll(strings.TrimPrefix(k, costTickPrefix), "+", ", ")
		})),
		line("node CPU per cycle (busiest minute), ms", measured(func(r *stageResult) string {
			k, _ := busiestTick(r)
			return spreadOr(netCPU(r, k))
		})),
		line("CQL statements per node in any minute of the default schedule, max", measured(func(r *stageResult) string {
			return fmt.Sprint(maxTickStatements(r))
		})),
		line("node CPU per minute, default schedule (from the minutes measured), ms", measured(func(r *stageResult) string {
			return number(tickPerMinute(r))
		})),
		line("jmx_exporter scrape ÷ partmon cycle (busiest minute), node CPU", measured(func(r *stageResult) string {
			_, c := busiestTick(r)
			return ratio(median(netCPU(r, costJMX)), c)
		})),
		line("jmx_exporter scraped every 15 s ÷ partmon, node CPU per minute", measured(func(r *stageResult) string {
			return ratio(4*median(netCPU(r, costJMX)), tickPerMinute(r))
		})),
		line("jmx_exporter scraped every 60 s ÷ partmon, node CPU per minute", measured(func(r *stageResult) string {
			return ratio(median(netCPU(r, costJMX)), tickPerMinute(r))
		})),
	}
}

// tickTargets: on the default schedule, the busiest minute costs the node
// ≥ 20× less CPU than one jmx_exporter scrape at 1,000 tables and more,
// ≥ 5× below that; ≤ 15 statements per node in any minute at every count.
func tickTargets(results []*stageResult) []target {
	var out []target
	var counts []string
	stmtsMet, measured := true, false
	for _, r := range results {
		if len(r.TickMinutes) == 0 {
			continue
		}
		measured = true
		m := maxTickStatements(r)
		counts = append(counts, fmt.Sprint(m))
		stmtsMet = stmtsMet && m <= 15
		jmx := netCPU(r, costJMX)
		if len(jmx) == 0 {
			continue
		}
		want := 5.0
		if r.UserTables >= 1000 {
			want = 20
		}
		_, c := busiestTick(r)
		j := median(jmx)
		out = append(out, target{fmt.Sprintf("at %d tables: partmon cycle (busiest minute) ≥ %.0f× less node CPU than a jmx_exporter scrape", r.UserTables, want),
			fmt.Sprintf("%.0f ms vs %.0f ms: %s", c, j, ratio(j, c)), c > 0 && j >= want*c})
	}
	if measured {
		out = append(out, target{"CQL statements per node in any minute of the default schedule ≤ 15, every table count", strings.Join(counts, " / "), stmtsMet})
	}
	return out
}

// ceilDiv rounds up, so that a read that sometimes sends one more
// statement (the schema's version check) still shows it.
func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }
