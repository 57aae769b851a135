package main

import (
	"context"
	"fmt"
	"time"
)

// load replaces the pm_* keyspaces with freshly planted problems, flushes and
// compacts so the sizes are on disk in one sstable (max_partition_size is per
// sstable), refreshes size estimates and writes the truth.
func load(ctx context.Context, largeMiB, hotSeconds int, share, rate float64) error {
	if largeMiB <= 0 || hotSeconds < 0 || share < 0 || share > 1 || rate < 0 {
		return fmt.Errorf("need --large-mib > 0, --hot-seconds >= 0, 0 <= --share <= 1, --rate >= 0")
	}
	start := time.Now()
	s, err := clusterSession()
	if err != nil {
		return err
	}
	defer s.Close()
	st := &state{LargeRowBytes: bigRowBytes}
	clearState()

	step := func(name string, run func() error) error {
		t := time.Now()
		if err := run(); err != nil {
			return err
		}
		logf("%s done in %.1f s", name, time.Since(t).Seconds())
		return nil
	}
	steps := []struct {
		name string
		run  func() error
	}{
		{"schema", func() error {
			if err := dropKeyspaces(s); err != nil {
				return err
			}
			return createSchema(s)
		}},
		{"pm_big", func() (err error) { st.LargeRows, err = writeBig(ctx, s, largeMiB); return err }},
		{"pm_hot", func() error { return writeHotKeys(ctx, s) }},
		{"pm_tomb rows", func() error { return writeTomb(ctx, s) }},
		// The rows go to disk first, the deletions into a newer sstable.
		{"flush pm_tomb", func() error { return onEveryNode(ctx, "flush", "pm_tomb") }},
		{"pm_tomb deletes", func() (err error) { st.TombDeleted, err = deleteTomb(ctx, s); return err }},
		{"pm_lowcard", func() (err error) {
			st.LowcardRows, err = writeLowcard(ctx, s)
			st.LowcardParts = int64(len(orderStatuses))
			return err
		}},
		{"pm_ts", func() error { st.BusySensorRow = busySensorRows; return writeTimeSeries(ctx, s) }},
		{"pm_clean", func() error { return writeClean(ctx, s) }},
		{"flush all nodes", func() error { return onEveryNode(ctx, "flush") }},
		{"compact pm_big.events", func() error { return onEveryNode(ctx, "compact", "pm_big", "events") }},
		{"pm_tomb reads", func() error { st.TombLive = tombLive; return readTomb(ctx, s) }},
		{"hot-key traffic", func() (err error) {
			if hotSeconds == 0 {
				return nil
			}
			st.HotShare, st.HotOps, err = driveHotKey(ctx, s, time.Duration(hotSeconds)*time.Second, share, rate)
			return err
		}},
		{"refreshsizeestimates", func() error { return onEveryNode(ctx, "refreshsizeestimates") }},
	}
	for _, stp := range steps {
		if err := step(stp.name, stp.run); err != nil {
			return err
		}
	}
	if err := saveState(st); err != nil {
		return err
	}
	if _, err := writeTruth(ctx, s); err != nil {
		return err
	}
	logf("load done in %.1f s", time.Since(start).Seconds())
	return nil
}
