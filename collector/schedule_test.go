package collector

import (
	"errors"
	"testing"

	"github.com/robfig/cron/v3"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
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
	// Every source but the disabled settings and the unconfigured nodetool sampler.
	if got, want := len(cr.Entries()), len(SourceNames())-2; got != want || enabled != want {
		t.Errorf("%d entries, %d enabled, want %d", got, enabled, want)
	}
}

func TestCronLogger(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	l := NewCronLogger(zap.New(core))
	l.Info("wake", "now", "x")
	l.Error(errors.New("panic: boom"), "panic", "job", "disk_usage")
	entries := logs.All()
	if len(entries) != 2 {
		t.Fatalf("%d entries", len(entries))
	}
	if entries[0].Level != zapcore.DebugLevel || entries[0].Message != "wake" || entries[0].ContextMap()["now"] != "x" {
		t.Errorf("info → %+v", entries[0])
	}
	if e := entries[1]; e.Level != zapcore.ErrorLevel || e.ContextMap()["error"] != "panic: boom" || e.ContextMap()["job"] != "disk_usage" {
		t.Errorf("error → %+v %v", e, e.ContextMap())
	}
}
