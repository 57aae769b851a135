package collector

import (
	"context"
	"fmt"
	"sync"

	"go.uber.org/zap"
)

// nodeFanOut spreads source runs over the targeted nodes: at most
// concurrency nodes at once, and at most one nodetool JVM per slot.
type nodeFanOut struct {
	concurrency   int           // Config.NodeConcurrency
	nodetoolSlots chan struct{} // one per nodetool run allowed at once
	log           *zap.Logger
}

// run runs regs in order on each target with at most
// Config.NodeConcurrency targets at once, and returns the failures. A
// nodetool source's run first waits for a nodetool slot (not counted in
// its timeout: run starts after), so the host never runs more than
// nodetool_sampler.max_concurrent_runs nodetool JVMs, whatever the node
// count and however many nodetool sources fire together. Once ctx ends,
// the runs not started are skipped.
func (f *nodeFanOut) run(ctx context.Context, targets []target, regs []registration, run func(context.Context, registration, target) error) []error {
	if len(regs) == 0 || len(targets) == 0 {
		return nil
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	work := make(chan target)
	for range min(f.concurrency, len(targets)) {
		wg.Go(func() {
			for t := range work {
				for _, r := range regs {
					if err := f.runInSlot(ctx, r, t, run); err != nil {
						mu.Lock()
						errs = append(errs, err)
						mu.Unlock()
					}
				}
			}
		})
	}
	for _, t := range targets {
		work <- t
	}
	close(work)
	wg.Wait()
	return errs
}

// runInSlot runs r on t, holding a nodetool slot for a nodetool source;
// nothing when ctx has ended.
func (f *nodeFanOut) runInSlot(ctx context.Context, r registration, t target, run func(context.Context, registration, target) error) (err error) {
	// A worker's panic outside a source's own guard (collectOn) is a
	// partmon bug: it costs that run, logged through the scrubbing logger,
	// never the process (no recover above a goroutine reaches it).
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("collecting %s panicked (a partmon bug; please report this message): %v", r.src.Name(), p)
			f.log.Error("collector worker panicked", zap.String("collector", r.src.Name()), zap.Any("panic", p), zap.Stack("stack"))
		}
	}()
	if ctx.Err() != nil {
		return nil
	}
	if r.nodetool {
		select {
		case f.nodetoolSlots <- struct{}{}:
			defer func() { <-f.nodetoolSlots }()
		case <-ctx.Done():
			return nil
		}
	}
	return run(ctx, r, t)
}
