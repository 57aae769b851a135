package main

import (
	"context"
	"fmt"

	"github.com/gocql/gocql"
)

const cleanUsers = 20000

// writeClean is the control group: uuid keys, small rows, high cardinality.
func writeClean(ctx context.Context, s *gocql.Session) error {
	err := runJobs(ctx, cleanUsers, 16, func(i int) error {
		id, err := gocql.RandomUUID()
		if err != nil {
			return fmt.Errorf("making a user id: %w", err)
		}
		return execRetry("writing pm_clean.users_by_id", func() error {
			return s.Query("INSERT INTO pm_clean.users_by_id (user_id, name, email) VALUES (?, ?, ?)",
				id, fmt.Sprintf("user %d", i), fmt.Sprintf("user%d@example.com", i)).Exec()
		})
	})
	if err != nil {
		return fmt.Errorf("writing pm_clean.users_by_id: %w", err)
	}
	return nil
}
