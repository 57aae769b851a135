package main

import (
	"context"
	"fmt"
	"time"

	"github.com/gocql/gocql"
)

const (
	tombKey        = "jobs"
	tombRows       = 20000
	tombLive       = 5
	tombOtherQueue = 1000 // other, healthy queues: pm_tomb is not a low-cardinality table
	tombReads      = 30
)

// writeTomb fills queue "jobs" with rows; deleteTomb later deletes all but the
// last few (row tombstones in a newer sstable, like a consumed queue).
func writeTomb(ctx context.Context, s *gocql.Session) error {
	const stmt = "INSERT INTO pm_tomb.queue (queue, id, payload) VALUES (?, ?, ?)"
	err := runJobs(ctx, tombRows/100, 4, func(b int) error {
		var batch [][]any
		for id := b * 100; id < (b+1)*100; id++ {
			batch = append(batch, []any{tombKey, id, "job payload"})
		}
		return samePartitionBatch(s, gocql.LocalQuorum, stmt, batch)
	})
	if err != nil {
		return fmt.Errorf("writing pm_tomb.queue: %w", err)
	}
	err = runJobs(ctx, tombOtherQueue, 8, func(q int) error {
		var batch [][]any
		for id := 0; id < 3; id++ {
			batch = append(batch, []any{fmt.Sprintf("queue-%04d", q), id, "job payload"})
		}
		return samePartitionBatch(s, gocql.LocalQuorum, stmt, batch)
	})
	if err != nil {
		return fmt.Errorf("writing pm_tomb.queue: %w", err)
	}
	return nil
}

func deleteTomb(ctx context.Context, s *gocql.Session) (int64, error) {
	const stmt = "DELETE FROM pm_tomb.queue WHERE queue = ? AND id = ?"
	deleted := tombRows - tombLive
	err := runJobs(ctx, (deleted+99)/100, 4, func(b int) error {
		var batch [][]any
		for id := b * 100; id < min(deleted, (b+1)*100); id++ {
			batch = append(batch, []any{tombKey, id})
		}
		return samePartitionBatch(s, gocql.All, stmt, batch)
	})
	if err != nil {
		return 0, fmt.Errorf("deleting from pm_tomb.queue: %w", err)
	}
	return int64(deleted), nil
}

// readTomb reads the queue the way a consumer does, at CL ALL so every
// replica scans the tombstones and records them in its tombstones_per_read.
func readTomb(ctx context.Context, s *gocql.Session) error {
	for i := 0; i < tombReads; i++ {
		iter := s.Query("SELECT id FROM pm_tomb.queue WHERE queue = ?", tombKey).
			Consistency(gocql.All).PageSize(5000).WithContext(ctx).Iter()
		var id, live int
		for iter.Scan(&id) {
			live++
		}
		if err := iter.Close(); err != nil {
			return fmt.Errorf("reading pm_tomb.queue: %w", err)
		}
		if live != tombLive {
			return fmt.Errorf("pm_tomb.queue %q: read %d live rows, want %d", tombKey, live, tombLive)
		}
	}
	logf("pm_tomb.queue: %d reads of %q at CL ALL, each over %d row tombstones and %d live rows", tombReads, tombKey, tombRows-tombLive, tombLive)
	return nil
}

// keepReadingTomb reads the tombstone-heavy partition every interval until
// ctx ends: tombstones_per_read and tablestats report the last five minutes
// only, so a long demo needs fresh reads to keep the problem visible.
func keepReadingTomb(ctx context.Context, s *gocql.Session, interval time.Duration) (reads int) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return reads
		case <-t.C:
		}
		iter := s.Query("SELECT id FROM pm_tomb.queue WHERE queue = ?", tombKey).
			Consistency(gocql.All).PageSize(5000).WithContext(ctx).Iter()
		var id int
		for iter.Scan(&id) {
		}
		if iter.Close() == nil {
			reads++
		}
	}
}
