package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gocql/gocql"
)

// runJobs runs job(0..n-1) on `workers` goroutines and returns the first error.
func runJobs(ctx context.Context, n, workers int, job func(i int) error) error {
	jobs := make(chan int)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if err := job(i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	var err error
feed:
	for i := 0; i < n; i++ {
		select {
		case jobs <- i:
		case err = <-errs:
			break feed
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if err == nil {
		select {
		case err = <-errs:
		default:
		}
	}
	return err
}

// execRetry retries a write a few times: a busy 2-core box times out now and then,
// and every fixture write is idempotent.
func execRetry(what string, run func() error) error {
	var err error
	for attempt := 1; attempt <= 5; attempt++ {
		if err = run(); err == nil {
			return nil
		}
		time.Sleep(time.Duration(attempt) * 500 * time.Millisecond)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// samePartitionBatch writes rows of ONE partition in an unlogged batch (no
// batchlog, and single-partition batches skip the batch size guard).
func samePartitionBatch(s *gocql.Session, cl gocql.Consistency, stmt string, rows [][]any) error {
	b := s.NewBatch(gocql.UnloggedBatch)
	b.SetConsistency(cl)
	for _, r := range rows {
		b.Query(stmt, r...)
	}
	return execRetry("batch "+stmt, func() error { return s.ExecuteBatch(b) })
}
