package main

import (
	"context"
	"fmt"

	"github.com/gocql/gocql"
)

const (
	cleanUsers = 20000
	// cleanBatch users go in one unlogged batch (~60 bytes a row, under the
	// 5 KiB batch_size_warn_threshold): 20,000 single-row requests took ~22 s
	// of every fixture load, most of it the nodes' per-request work. The
	// table's data is the same; a batch across partitions only logs
	// Cassandra's "Unlogged batch covering N partitions" warning, which names
	// no key and which the log source does not read.
	cleanBatch = 50
)

// writeClean is the control group: uuid keys, small rows, high cardinality.
func writeClean(ctx context.Context, s *gocql.Session) error {
	const insert = "INSERT INTO pm_clean.users_by_id (user_id, name, email) VALUES (?, ?, ?)"
	err := runJobs(ctx, cleanUsers/cleanBatch, 4, func(batch int) error {
		b := s.NewBatch(gocql.UnloggedBatch)
		for i := batch * cleanBatch; i < (batch+1)*cleanBatch; i++ {
			id, err := gocql.RandomUUID()
			if err != nil {
				return fmt.Errorf("making a user id: %w", err)
			}
			b.Query(insert, id, fmt.Sprintf("user %d", i), fmt.Sprintf("user%d@example.com", i))
		}
		return execRetry("writing pm_clean.users_by_id", func() error { return s.ExecuteBatch(b) })
	})
	if err != nil {
		return fmt.Errorf("writing pm_clean.users_by_id: %w", err)
	}
	return nil
}
