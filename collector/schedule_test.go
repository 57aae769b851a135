package collector

import (
	"testing"

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
	// Every source but the disabled settings and the three nodetool sources,
	// which run only with a configured command.
	if got, want := len(cr.Entries()), len(SourceNames())-4; got != want || enabled != want {
		t.Errorf("%d entries, %d enabled, want %d", got, enabled, want)
	}
}
