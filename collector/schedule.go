package collector

import (
	"fmt"

	"github.com/robfig/cron/v3"
)

// Schedule adds one cron entry per enabled source, on the source's own
// schedule. Each run collects that source (on every targeted node for a
// node-scope source) within the collector's lifetime and then calls onUpdate
// (if not nil), e.g. to analyze and publish a fresh Snapshot. Create c with
// cron.Recover and cron.SkipIfStillRunning so a slow run is skipped, not
// stacked. Specs are parsed with cron.ParseStandard, whatever c's parser.
func (c *Collector) Schedule(cr *cron.Cron, onUpdate func()) error {
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
