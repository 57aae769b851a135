package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"
)

const (
	hotKey     = "hot"
	hotKeys    = 10000
	hotWorkers = 4
	// hotRate paces the hot-key traffic. Unpaced, its 4 workers ran at
	// ~1,100 ops/s and took about a core of a 2-core box for as long as a
	// test drove them, slowing the very nodetool runs and cycles under test.
	// 300 ops/s leaves a 5-s sampler window ~1,300 operations on the hot
	// key's replica: its 0.8 share is then known to about ±0.01, far inside
	// the tests' 0.05 tolerance and the 0.25/0.5 hot-key thresholds.
	hotRate = 300
)

func coldKey(i int) string { return fmt.Sprintf("k-%05d", i) }

func writeHotKeys(ctx context.Context, s *gocql.Session) error {
	err := runJobs(ctx, hotKeys+1, 16, func(i int) error {
		k := hotKey
		if i < hotKeys {
			k = coldKey(i)
		}
		return execRetry("writing pm_hot.kv", func() error {
			return s.Query("INSERT INTO pm_hot.kv (k, v) VALUES (?, ?)", k, make([]byte, 100)).Exec()
		})
	})
	if err != nil {
		return fmt.Errorf("writing pm_hot.kv: %w", err)
	}
	return nil
}

// driveHotKey reads and writes (half and half) the hot key with probability
// share and a uniformly chosen other key otherwise, at most rate operations
// a second (0: as fast as the workers go), for the given time or until ctx
// ends; it returns the measured share of hot-key operations.
func driveHotKey(ctx context.Context, s *gocql.Session, d time.Duration, share, rate float64) (float64, int64, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	start := time.Now()
	// One ticker for all workers: a slot no worker is free for is dropped,
	// so a slow cluster gets a lower rate, not a backlog.
	var slots <-chan time.Time
	if rate > 0 {
		tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
		defer tick.Stop()
		slots = tick.C
	}
	var hot, total, failed atomic.Int64
	errs := make(chan error, hotWorkers)
	for w := 0; w < hotWorkers; w++ {
		go func(seed uint64) {
			rng := rand.New(rand.NewPCG(seed, 7))
			value := make([]byte, 100)
			var v []byte
			for ctx.Err() == nil {
				if slots != nil {
					select {
					case <-slots:
					case <-ctx.Done():
						continue
					}
				}
				k := coldKey(rng.IntN(hotKeys))
				if rng.Float64() < share {
					k = hotKey
				}
				var err error
				if rng.IntN(2) == 0 {
					err = s.Query("SELECT v FROM pm_hot.kv WHERE k = ?", k).Consistency(gocql.One).WithContext(ctx).Scan(&v)
				} else {
					err = s.Query("INSERT INTO pm_hot.kv (k, v) VALUES (?, ?)", k, value).Consistency(gocql.One).WithContext(ctx).Exec()
				}
				if err != nil {
					if ctx.Err() == nil {
						failed.Add(1)
					}
					continue
				}
				total.Add(1)
				if k == hotKey {
					hot.Add(1)
				}
			}
			errs <- nil
		}(uint64(w))
	}
	for w := 0; w < hotWorkers; w++ {
		if err := <-errs; err != nil {
			return 0, 0, err
		}
	}
	if total.Load() == 0 {
		return 0, 0, fmt.Errorf("hot-key traffic: no operation succeeded (%d failed)", failed.Load())
	}
	took := time.Since(start)
	measured := float64(hot.Load()) / float64(total.Load())
	logf("pm_hot.kv: %d operations in %s (%.0f ops/s), %.3f on key %q, %d failed",
		total.Load(), took.Round(100*time.Millisecond), float64(total.Load())/took.Seconds(), measured, hotKey, failed.Load())
	return measured, total.Load(), nil
}

// hotkeyCommand drives hot-key traffic and, every 5 s, a read of the
// tombstone-heavy partition so that problem stays visible during a demo.
// The traffic ends after seconds or when ctx ends (SIGTERM), whichever is
// first; either way the share it measured is recorded in the truth.
func hotkeyCommand(ctx context.Context, seconds int, share, rate float64) error {
	if seconds <= 0 || share < 0 || share > 1 {
		return fmt.Errorf("need --seconds > 0 and 0 <= --share <= 1")
	}
	s, err := clusterSession()
	if err != nil {
		return err
	}
	defer s.Close()
	d := time.Duration(seconds) * time.Second
	tombCtx, stopTomb := context.WithTimeout(ctx, d)
	defer stopTomb()
	tombReads := make(chan int, 1)
	go func() { tombReads <- keepReadingTomb(tombCtx, s, 5*time.Second) }()
	measured, ops, err := driveHotKey(ctx, s, d, share, rate)
	stopTomb()
	logf("pm_tomb.queue: %d more reads of %q during the run", <-tombReads, tombKey)
	if err != nil {
		return err
	}
	st, err := loadState()
	if err != nil {
		return err
	}
	st.HotShare, st.HotOps = measured, ops
	if err := saveState(st); err != nil {
		return err
	}
	// Not ctx: after a SIGTERM it is done, and the truth is still owed. No
	// bound of its own either: it runs a nodetool JVM per problem, over a
	// minute in all on a loaded box (a 1-minute bound killed one there).
	_, err = writeTruth(context.WithoutCancel(ctx), s)
	return err
}
