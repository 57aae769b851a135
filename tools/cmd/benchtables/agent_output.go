package main

import (
	"fmt"
	"strings"
	"time"
)

// tickPerMinuteRuns is tickPerMinute for each run alone (run i's measure
// of every tick set), plus, if runner, run i's nodetool group over its
// period: the spread of node CPU per minute of the default schedule.
func tickPerMinuteRuns(r *stageResult, runner bool) []float64 {
	if r.TickCycleMinutes <= 0 {
		return nil
	}
	var out []float64
	for i := 0; ; i++ {
		total := 0.0
		for k, n := range r.TickMinutes {
			v := netCPU(r, k)
			if i >= len(v) {
				return out
			}
			total += v[i] * float64(n)
		}
		total /= r.TickCycleMinutes
		if runner {
			v, period := netCPU(r, costScheduleNodetool), r.SchedulePeriods[costScheduleNodetool]
			if i >= len(v) || period <= 0 {
				return out
			}
			total += v[i] / (period / 60)
		}
		out = append(out, total)
	}
}

// agentPerMinute is the agent's node CPU per minute (ms) for each measured
// scrape, scraped every interval.
func agentPerMinute(r *stageResult, key string, every time.Duration) []float64 {
	var out []float64
	for _, v := range netCPU(r, key) {
		out = append(out, v*float64(time.Minute)/float64(every))
	}
	return out
}

// agentRows are the javaagent's figures beside partmon's per minute.
func agentRows(results []*stageResult) [][]string {
	if len(results) == 0 || results[len(results)-1].Agent == nil || results[len(results)-1].Agent.Skipped != "" {
		return nil
	}
	line := func(name string, f func(r *stageResult) string) []string { return figureRow(results, name, f) }
	partmon := func(runner bool) func(r *stageResult) string {
		return func(r *stageResult) string { return spreadOr(tickPerMinuteRuns(r, runner)) }
	}
	out := [][]string{
		line("partmon: node CPU per minute, default schedule, runner off, ms", partmon(false)),
		line("partmon: node CPU per minute, default schedule, runner and sampler on, ms", partmon(true)),
		line("partmon: node CPU in the busiest minute (runner off), ms", func(r *stageResult) string {
			k, _ := busiestTick(r)
			return spreadOr(netCPU(r, k))
		}),
	}
	version := results[len(results)-1].Agent.Version
	for _, cfg := range agentConfigs {
		out = append(out, agentConfigRows(results, version, cfg)...)
	}
	out = append(out, line("load average (1/5/15 min) at each run's start", func(r *stageResult) string {
		return strings.Join(r.RunLoad, "; ")
	}))
	return out
}

func agentConfigRows(results []*stageResult, version string, cfg agentConfig) [][]string {
	name := fmt.Sprintf("javaagent %s, %s", version, cfg.name)
	line := func(what string, f func(r *stageResult, res *agentConfigResult) string) []string {
		return figureRow(results, name+": "+what, func(r *stageResult) string {
			if r.Agent == nil || r.Agent.Configs[cfg.key] == nil {
				return "not measured"
			}
			return f(r, r.Agent.Configs[cfg.key])
		})
	}
	out := [][]string{
		line("scrape, ms", func(_ *stageResult, res *agentConfigResult) string { return spreadOr(res.Scrape) }),
		line("series (per-table series)", func(_ *stageResult, res *agentConfigResult) string {
			return fmt.Sprintf("%d (%d)", res.Series, res.TableSeries)
		}),
		line("node CPU per scrape, ms", func(r *stageResult, _ *agentConfigResult) string { return spreadOr(netCPU(r, cfg.key)) }),
	}
	for _, every := range agentIntervals {
		out = append(out, line(fmt.Sprintf("node CPU per minute scraped every %s, ms", every), func(r *stageResult, _ *agentConfigResult) string {
			return spreadOr(agentPerMinute(r, cfg.key, every))
		}))
		out = append(out, line(fmt.Sprintf("scraped every %s ÷ partmon per minute (runner off; on): median, worst", every), func(r *stageResult, _ *agentConfigResult) string {
			a := agentPerMinute(r, cfg.key, every)
			return perMinuteRatio(a, tickPerMinuteRuns(r, false)) + "; " + perMinuteRatio(a, tickPerMinuteRuns(r, true))
		}))
		out = append(out, line(fmt.Sprintf("node CPU per minute over a window scraped every %s, less an unscraped window, ms", every), func(r *stageResult, _ *agentConfigResult) string {
			return spreadOr(windowPerMinute(r, agentWindowKey(cfg.key, every)))
		}))
	}
	return out
}

// windowPerMinute is the node CPU per minute (ms) of each window keyed
// key, less that of the unscraped window before them.
func windowPerMinute(r *stageResult, key string) []float64 {
	idle := r.Cost[costAgentIdle]
	if len(idle) == 0 {
		return nil
	}
	base := median(cpuPerMinute(idle))
	var v []float64
	for _, x := range cpuPerMinute(r.Cost[key]) {
		v = append(v, x-base)
	}
	return v
}

func cpuPerMinute(cs []nodeCost) []float64 {
	var v []float64
	for _, c := range cs {
		v = append(v, c.CPU*1000*60/c.Wall)
	}
	return v
}

// perMinuteRatio is "median× (worst×)": the medians' ratio, and the
// agent's cheapest minute over partmon's dearest.
func perMinuteRatio(agent, partmon []float64) string {
	if len(agent) == 0 || len(partmon) == 0 {
		return "not measured"
	}
	lo, _ := minMax(agent)
	_, hi := minMax(partmon)
	return fmt.Sprintf("%s (%s)", ratio(median(agent), median(partmon)), ratio(lo, hi))
}
