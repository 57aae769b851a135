package collector

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/robfig/cron/v3"
)

func TestScheduleOneEntryPerEnabledSource(t *testing.T) {
	no := false
	c := newTestCollector(t, Config{Hosts: []string{"10.0.0.1"}, Sources: map[string]SourceConfig{
		"settings": {Enabled: &no}, "disk_usage": {Schedule: "*/5 * * * *"},
	}})
	cr := cron.New()
	if err := c.Schedule(cr, nil); err != nil {
		t.Fatal(err)
	}
	enabled := 0
	for _, e := range c.eff {
		if e.enabled {
			enabled++
		}
	}
	// Every source but the disabled settings and those the registry leaves
	// off without their configuration (the nodetool ones, without a command).
	want := 0
	for _, r := range registry(Config{}, nil) {
		if r.enabled && r.src.Name() != "settings" {
			want++
		}
	}
	if want == 0 {
		t.Fatal("the registry turns no source on")
	}
	if got := len(cr.Entries()); got != want || enabled != want {
		t.Errorf("%d entries, %d enabled, want %d", got, enabled, want)
	}
}

func TestPeriodOffsets(t *testing.T) {
	m := time.Minute
	for _, tc := range []struct {
		name    string
		periods []time.Duration
		want    map[time.Duration]time.Duration
	}{
		{"defaults", []time.Duration{m, 5 * m, 5 * m, 10 * m, 30 * m, m}, map[time.Duration]time.Duration{5 * m: 0, 10 * m: m, 30 * m: 2 * m}},
		{"one period", []time.Duration{m, m}, map[time.Duration]time.Duration{}},
		{"not a multiple of the shortest stays", []time.Duration{2 * m, 3 * m, 4 * m}, map[time.Duration]time.Duration{4 * m: 0}},
		{"a free tick between", []time.Duration{m, 2 * m, 2 * m, 4 * m}, map[time.Duration]time.Duration{2 * m: 0, 4 * m: m}},
		{"no free tick: not shifted", []time.Duration{m, 2 * m, 3 * m}, map[time.Duration]time.Duration{2 * m: 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := periodOffsets(tc.periods); !maps.Equal(got, tc.want) {
				t.Errorf("periodOffsets(%v) = %v, want %v", tc.periods, got, tc.want)
			}
		})
	}
}

// On the default schedule no minute runs every CQL source: the 10m and 30m
// sources have minutes of their own.
func TestCQLTicksDefaults(t *testing.T) {
	c := newTestCollector(t, Config{Hosts: []string{"10.0.0.1"}, NodetoolSampler: NodetoolSamplerConfig{Command: []string{"nodetool"}}})
	ticks, apart := CQLTicks(c.Schedules())
	if len(ticks) != 30 {
		t.Fatalf("%d ticks, want the 30 minutes of the common cycle", len(ticks))
	}
	if want := []string{"nodetool_histograms", "nodetool_sampler", "nodetool_tablestats"}; !slices.Equal(apart, want) {
		t.Errorf("apart %v, want %v", apart, want)
	}
	every := len(c.Schedules()) - len(apart)
	for _, tk := range ticks {
		has := func(s string) bool { return slices.Contains(tk.Sources, s) }
		if !has("local_read_latency") || len(tk.Sources) == every {
			t.Errorf("minute %s: %v", tk.At, tk.Sources)
		}
		if has("settings") && (has("size_estimates") || has("top_partitions")) || has("top_partitions") && has("topology") {
			t.Errorf("minute %s runs slower groups together: %v", tk.At, tk.Sources)
		}
	}
}

// TestRegistryMarksRateAndSamplerSources: the one-shot collection's second
// reads follow the registry's marks.
func TestRegistryMarksRateAndSamplerSources(t *testing.T) {
	var rates, samplers []string
	for _, r := range registry(Config{}, nil) {
		if r.rates {
			rates = append(rates, r.src.Name())
		}
		if r.sampler {
			samplers = append(samplers, r.src.Name())
		}
	}
	if want := []string{"local_read_latency", "local_write_latency", "local_scan_latency"}; !slices.Equal(rates, want) {
		t.Errorf("rate sources %q, want %q", rates, want)
	}
	if want := []string{"scylla_top_partitions", "nodetool_sampler"}; !slices.Equal(samplers, want) {
		t.Errorf("sampler sources %q, want %q", samplers, want)
	}
}
