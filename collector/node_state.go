package collector

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

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

// gossipInfoSource reads system_views.gossip_info (Cassandra 4.1+): the load
// of every node as this node's gossip knows it, the one CQL path to every
// node's load from a single node. The node's own entry becomes its load.
type gossipInfoSource struct{}

func (gossipInfoSource) Name() string { return "gossip_info" }
func (gossipInfoSource) Scope() Scope { return NodeScope }

const gossipInfoQuery = "SELECT address, host_id, load FROM system_views.gossip_info"

func (gossipInfoSource) Collect(ctx context.Context, in Input, out *Output) (int, error) {
	if err := in.Caps.needVirtual("gossip_info", "4.1"); err != nil {
		return 0, err
	}
	loads := map[string]float64{}
	own := -1.0
	n, err := cql.SelectAll(ctx, in.Q, gossipInfoQuery, nil, func(r cql.Row) error {
		addr, err := r.String("address")
		if err != nil {
			return err
		}
		raw, err := r.OptString("load")
		if err != nil || raw == "" {
			return err // a node that has not gossiped its load yet
		}
		// StorageMetrics.load gossiped as String.valueOf(double), e.g. "1.2345E7".
		load, err := strconv.ParseFloat(raw, 64)
		if err != nil || load < 0 || math.IsNaN(load) || math.IsInf(load, 0) {
			return fmt.Errorf("load of %s: %q is not a byte count", addr, raw)
		}
		loads[addr] = load
		hostID, err := r.OptString("host_id")
		if err != nil {
			return err
		}
		if hostID != "" && hostID == in.Caps.HostID {
			own = load
		}
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("reading system_views.gossip_info on %s: %w", in.Address, err)
	}
	out.Node.GossipLoad = loads
	if own < 0 {
		if l, ok := loads[in.Address]; ok {
			own = l
		}
	}
	if own >= 0 {
		out.Node.LoadBytes = own
	}
	return n, nil
}

// settingsSource keeps the server settings that bear on partition health:
// Cassandra's system_views.settings, ScyllaDB's system.config.
type settingsSource struct{}

func (settingsSource) Name() string { return "settings" }
func (settingsSource) Scope() Scope { return NodeScope }

// relevantSettings are kept by exact name or, ending in '*', by prefix
// (research cql_sources.md §5.3 settings, §8.1 ScyllaDB thresholds).
var relevantSettings = []string{
	"compaction_large_partition_warning_threshold*", // 4.0 _mb, 4.1 with unit; ScyllaDB _mb
	"compaction_tombstone_warning_threshold",
	"compaction_large_row_warning_threshold_mb",
	"compaction_large_cell_warning_threshold_mb",
	"compaction_rows_count_warning_threshold",
	"compaction_collection_elements_count_warning_threshold",
	"tombstone_warn_threshold",
	"tombstone_failure_threshold",
	"partition_size_warn_threshold",
	"partition_size_fail_threshold",
	"partition_tombstones_warn_threshold",
	"partition_tombstones_fail_threshold",
	"top_partitions_enabled",
	"max_top_size_partition_count",
	"max_top_tombstone_partition_count",
	"min_tracked_partition_size",
	"min_tracked_partition_tombstone_count",
	"num_tokens",
}

func isRelevantSetting(name string) bool {
	for _, s := range relevantSettings {
		if p, ok := strings.CutSuffix(s, "*"); ok && strings.HasPrefix(name, p) || s == name {
			return true
		}
	}
	return false
}

func (settingsSource) Collect(ctx context.Context, in Input, out *Output) (int, error) {
	stmt, table := "SELECT name, value FROM system_views.settings", "system_views.settings"
	if in.Caps.Engine == model.EngineScyllaDB {
		if !in.Caps.SystemTables["config"] {
			return 0, fmt.Errorf("%w: system.config does not exist on this node", ErrUnsupported)
		}
		stmt, table = "SELECT name, value FROM system.config", "system.config"
	} else if err := in.Caps.needVirtual("settings", "4.0"); err != nil {
		return 0, err
	}
	settings := map[string]string{}
	n, err := cql.SelectAll(ctx, in.Q, stmt, nil, func(r cql.Row) error {
		name, err := r.String("name")
		if err != nil || !isRelevantSetting(name) {
			return err
		}
		v, err := r.OptString("value") // null: unset (5.0 guardrails default to null)
		settings[name] = v
		return err
	})
	if err != nil {
		return n, fmt.Errorf("reading %s on %s: %w", table, in.Address, err)
	}
	out.Node.Settings = settings
	return n, nil
}
