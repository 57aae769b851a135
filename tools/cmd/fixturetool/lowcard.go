package main

import (
	"context"
	"fmt"

	"github.com/gocql/gocql"
)

var orderStatuses = []string{"NEW", "SHIPPED", "DELIVERED"}

const ordersPerStatus = 20000

// writeLowcard puts every order under one of three status partitions.
func writeLowcard(ctx context.Context, s *gocql.Session) (rows int64, err error) {
	const stmt = "INSERT INTO pm_lowcard.orders_by_status (status, order_id, customer, amount) VALUES (?, ?, ?, ?)"
	perStatus := ordersPerStatus / 100
	err = runJobs(ctx, len(orderStatuses)*perStatus, 4, func(b int) error {
		status := orderStatuses[b/perStatus]
		var batch [][]any
		for i := 0; i < 100; i++ {
			n := (b%perStatus)*100 + i
			batch = append(batch, []any{status, gocql.TimeUUID(), fmt.Sprintf("customer-%05d", n), n % 500})
		}
		return samePartitionBatch(s, gocql.LocalQuorum, stmt, batch)
	})
	if err != nil {
		return 0, fmt.Errorf("writing pm_lowcard.orders_by_status: %w", err)
	}
	return int64(len(orderStatuses) * ordersPerStatus), nil
}
