package main

import (
	"math"
	"slices"
	"testing"
	"time"
)

// costs makes one measured action per CPU figure (seconds), each 1 s of wall.
func costs(cpu ...float64) []nodeCost {
	var out []nodeCost
	for _, c := range cpu {
		out = append(out, nodeCost{Wall: 1, CPU: c})
	}
	return out
}

func near(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-9 {
			return false
		}
	}
	return true
}

// Per run: each tick set's run-i figure weighted by its minutes over the
// cycle, plus run i's nodetool group over its period (10 minutes) with the
// runner. The node's idle rate (0.01 s/s here) is taken off every action.
func TestTickPerMinuteRuns(t *testing.T) {
	r := &stageResult{
		TickCycleMinutes: 30,
		TickMinutes:      map[string]int{"tick_a": 27, "tick_b": 3},
		SchedulePeriods:  map[string]float64{costScheduleNodetool: 600},
		IdleCPU:          []float64{0.01},
		Cost: map[string][]nodeCost{
			"tick_a":             costs(0.11, 0.21),
			"tick_b":             costs(0.31, 0.41),
			costScheduleNodetool: costs(1.01, 2.01),
		},
	}
	tests := []struct {
		name   string
		runner bool
		want   []float64
	}{
		// run 1: (100×27 + 300×3)/30 = 120 ms; run 2: (200×27 + 400×3)/30 = 220 ms
		{"runner off", false, []float64{120, 220}},
		// plus 1000 ms and 2000 ms over 10 minutes
		{"runner on", true, []float64{220, 420}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tickPerMinuteRuns(r, tc.runner); !near(got, tc.want) {
				t.Errorf("tickPerMinuteRuns = %v, want %v", got, tc.want)
			}
		})
	}
	r.Cost[costScheduleNodetool] = costs(1.01) // one run of the group: only run 1 is whole
	if got := tickPerMinuteRuns(r, true); !near(got, []float64{220}) {
		t.Errorf("with the nodetool group measured once: %v, want [220]", got)
	}
}

func TestAgentPerMinute(t *testing.T) {
	r := &stageResult{IdleCPU: []float64{0}, Cost: map[string][]nodeCost{"agent_x": costs(0.5, 1)}}
	for _, tc := range []struct {
		every time.Duration
		want  []float64
	}{{15 * time.Second, []float64{2000, 4000}}, {30 * time.Second, []float64{1000, 2000}}, {time.Minute, []float64{500, 1000}}} {
		if got := agentPerMinute(r, "agent_x", tc.every); !near(got, tc.want) {
			t.Errorf("every %s: %v, want %v", tc.every, got, tc.want)
		}
	}
}

// The scraped windows less the unscraped one, per minute.
func TestWindowPerMinute(t *testing.T) {
	r := &stageResult{Cost: map[string][]nodeCost{
		costAgentIdle: {{Wall: 60, CPU: 1.2}},
		"w":           {{Wall: 60, CPU: 3.0}, {Wall: 30, CPU: 1.5}},
	}}
	if got := windowPerMinute(r, "w"); !near(got, []float64{1800, 1800}) {
		t.Errorf("windowPerMinute = %v, want [1800 1800]", got)
	}
	delete(r.Cost, costAgentIdle)
	if got := windowPerMinute(r, "w"); got != nil {
		t.Errorf("without an unscraped window: %v, want nothing", got)
	}
}

func TestPerMinuteRatio(t *testing.T) {
	tests := []struct {
		agent, partmon []float64
		want           string
	}{
		{[]float64{300, 400, 500}, []float64{10, 20, 25}, "20.0× (12.0×)"},
		{nil, []float64{1}, "not measured"},
		{[]float64{1}, []float64{0}, "– (–)"},
	}
	for _, tc := range tests {
		if got := perMinuteRatio(tc.agent, tc.partmon); got != tc.want {
			t.Errorf("perMinuteRatio(%v, %v) = %q, want %q", tc.agent, tc.partmon, got, tc.want)
		}
	}
}

// Lines as jmx_exporter 1.0.1 wrote them from a Cassandra 5.0.8 node.
func TestTableSeries(t *testing.T) {
	body := []byte("# HELP cassandra_table_maxpartitionsize x\n" +
		"cassandra_table_maxpartitionsize{keyspace=\"system\",table=\"local\"} 1.0\n" +
		"cassandra_columnfamily_livesstablecount{keyspace=\"ks\",columnfamily=\"t\"} 2.0\n" +
		"cassandra_threadpools_activetasks{path=\"request\",scope=\"ReadStage\"} 0.0\n" +
		"jvm_memory_used_bytes{area=\"heap\"} 1.0\n")
	if got := tableSeries(body); got != 2 {
		t.Errorf("tableSeries = %d, want 2", got)
	}
}

// The configurations take turns: exactly one carries the marker metric,
// and each key is distinct (its costs are kept under it).
func TestAgentConfigs(t *testing.T) {
	var keys []string
	markers := 0
	for _, c := range agentConfigs {
		keys = append(keys, c.key)
		if c.marker != "" {
			markers++
		}
		if len(c.body) == 0 {
			t.Errorf("%s: empty configuration", c.key)
		}
	}
	slices.Sort(keys)
	if len(slices.Compact(keys)) != len(agentConfigs) || markers != 1 {
		t.Errorf("configs %v: want distinct keys and one marker, got %d markers", keys, markers)
	}
}

// The signal table has a column per javaagent configuration, after the
// standalone exporter's and before the note.
func TestSignalRowsHaveAgentColumns(t *testing.T) {
	r := &stageResult{Signals: map[string]bool{}, Agent: &agentResult{Configs: map[string]*agentConfigResult{
		"agent_pertable": {Signals: map[string]bool{"tombstones per read": true}},
	}}}
	for _, row := range signalRows(r) {
		if len(row) != 4+len(agentConfigs) {
			t.Fatalf("row %q: %d columns, want %d", row, len(row), 4+len(agentConfigs))
		}
		want := []string{"not measured", "no"} // example not measured, per-table measured
		if row[0] == "tombstones per read" {
			want[1] = "yes"
		}
		if got := row[3:5]; got[0] != want[0] || got[1] != want[1] {
			t.Errorf("%s: javaagent columns %q, want %q", row[0], got, want)
		}
	}
}
