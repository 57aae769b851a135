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

const threadPoolsQuery = "SELECT name, active_tasks, pending_tasks, blocked_tasks, blocked_tasks_all_time, completed_tasks FROM system_views.thread_pools"

func (threadPoolsSource) Collect(ctx context.Context, in Input, out *Output) (int, error) {
	if err := in.Caps.needVirtual("thread_pools", "4.0"); err != nil {
		return 0, err
	}
	n, err := cql.SelectAll(ctx, in.Q, threadPoolsQuery, nil, func(r cql.Row) error {
		var p model.ThreadPool
		var err error
		if p.Name, err = r.String("name"); err != nil {
			return err
		}
		if p.Active, err = r.Int64("active_tasks"); err != nil {
			return err
		}
		if p.Pending, err = r.Int64("pending_tasks"); err != nil {
			return err
		}
		if p.Blocked, err = r.Int64("blocked_tasks"); err != nil {
			return err
		}
		if p.BlockedAllTime, err = r.Int64("blocked_tasks_all_time"); err != nil {
			return err
		}
		if p.Completed, err = r.Int64("completed_tasks"); err != nil {
			return err
		}
		out.Node.ThreadPools = append(out.Node.ThreadPools, p)
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("reading system_views.thread_pools on %s: %w", in.Address, err)
	}
	sort.Slice(out.Node.ThreadPools, func(i, j int) bool { return out.Node.ThreadPools[i].Name < out.Node.ThreadPools[j].Name })
	return n, nil
}
