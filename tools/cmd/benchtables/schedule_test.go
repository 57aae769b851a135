package main

import (
	"math"
	"testing"
	"time"

	"github.com/partmon/partmon/collector"
	"go.uber.org/zap"
)

// The default schedule with the nodetool runner on groups the sources by
// period, the nodetool ones apart, and every enabled source is in a group.
func TestGroupByDefaultSchedule(t *testing.T) {
	coll, err := collector.New(collector.Config{Hosts: []string{"10.0.0.1"},
		NodetoolSampler: collector.NodetoolSamplerConfig{Command: []string{"nodetool"}}}, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	defer coll.Close()
	scheds := coll.Schedules()
	groups, err := groupBySchedule(scheds, time.Date(2026, 12, 3, 2, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	periods := map[string]time.Duration{}
	sources := 0
	for _, g := range groups {
		periods[g.key] = g.period
		sources += len(g.sources)
	}
	want := map[string]time.Duration{"schedule_1m0s": time.Minute, "schedule_5m0s": 5 * time.Minute, "schedule_10m0s": 10 * time.Minute,
		"schedule_30m0s": 30 * time.Minute, costScheduleNodetool: 10 * time.Minute}
	if len(periods) != len(want) || sources != len(scheds) {
		t.Fatalf("groups %v of %d sources, want %v of %d", periods, sources, want, len(scheds))
	}
	for k, p := range want {
		if periods[k] != p {
			t.Errorf("group %s: period %s, want %s", k, periods[k], p)
		}
	}
}

// Per minute: each group's median net node CPU over its period in minutes.
func TestPerMinute(t *testing.T) {
	r := &stageResult{IdleCPU: []float64{0.01}, Cost: map[string][]nodeCost{
		"schedule_1m0s":      {{Wall: 1, CPU: 0.11}, {Wall: 1, CPU: 0.13}, {Wall: 1, CPU: 0.51}}, // net 100, 120, 500 ms: median 120
		"schedule_5m0s":      {{Wall: 2, CPU: 0.52}},                                             // net 500 ms
		costScheduleNodetool: {{Wall: 10, CPU: 20.1}},                                            // net 20,000 ms
	}, SchedulePeriods: map[string]float64{"schedule_1m0s": 60, "schedule_5m0s": 300, costScheduleNodetool: 600}}
	if got, want := perMinute(r, false), 120.0+500.0/5; math.Abs(got-want) > 1e-6 {
		t.Errorf("runner off: %v ms per minute, want %v", got, want)
	}
	if got, want := perMinute(r, true), 120.0+500.0/5+20000.0/10; math.Abs(got-want) > 1e-6 {
		t.Errorf("runner on: %v ms per minute, want %v", got, want)
	}
	if got := perMinute(&stageResult{}, true); !math.IsNaN(got) {
		t.Errorf("nothing measured: %v, want NaN", got)
	}
}
