package collector

import (
	"context"
	"fmt"
	"sort"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
)

// threadPoolsSource reads system_views.thread_pools: pending reads or
// mutations on one node are a hot-replica symptom.
type threadPoolsSource struct{}

func (threadPoolsSource) Name() string { return "thread_pools" }
func (threadPoolsSource) Scope() Scope { return NodeScope }
func (threadPoolsSource) Facts() Facts {
	return Facts{Reads: "system_views.thread_pools", Gate: virtualTable("thread_pools", oldestCassandra),
		Schedule: everyMinute, Grants: []string{ksSystemViews}}
}

const threadPoolsQuery = "SELECT name, active_tasks, pending_tasks, blocked_tasks, blocked_tasks_all_time, completed_tasks FROM system_views.thread_pools"

func (threadPoolsSource) Collect(ctx context.Context, in Input, out *Output) (int, error) {
	n, err := cql.SelectAllInOnePage(ctx, in.Q, threadPoolsQuery, nil, func(row *cql.Decoder) error {
		out.Node.ThreadPools = append(out.Node.ThreadPools, model.ThreadPool{
			Name:           row.String("name"),
			Active:         row.Int64("active_tasks"),
			Pending:        row.Int64("pending_tasks"),
			Blocked:        row.Int64("blocked_tasks"),
			BlockedAllTime: row.Int64("blocked_tasks_all_time"),
			Completed:      row.Int64("completed_tasks"),
		})
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("reading system_views.thread_pools on %s: %w", in.Address, err)
	}
	sort.Slice(out.Node.ThreadPools, func(i, j int) bool { return out.Node.ThreadPools[i].Name < out.Node.ThreadPools[j].Name })
	return n, nil
}
