package collector

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/partmon/partmon/collector/internal/cql"
)

// gossipInfoSource reads system_views.gossip_info (Cassandra 4.1+): the load
// of every node as this node's gossip knows it, the one CQL path to every
// node's load from a single node. The node's own entry becomes its load.
// Where the version gossips it (5.0), each node's disk-usage guardrail state
// (DISK_USAGE: SPACIOUS, STUFFED, FULL) comes with it.
type gossipInfoSource struct{}

func (gossipInfoSource) Name() string { return "gossip_info" }
func (gossipInfoSource) Scope() Scope { return NodeScope }
func (gossipInfoSource) Facts() Facts {
	return Facts{Reads: "system_views.gossip_info",
		Help: "`system_views.gossip_info` (every node's load; on 5.0 its disk-usage guardrail state)",
		Gate: virtualTable("gossip_info", "4.1"), Schedule: everyMinute, Grants: []string{ksSystemViews}}
}

const (
	gossipInfoQuery         = "SELECT address, host_id, load FROM system_views.gossip_info"
	gossipInfoWithDiskUsage = "SELECT address, host_id, load, disk_usage FROM system_views.gossip_info"
	gossipDiskUsageColumn   = "disk_usage"
)

func (gossipInfoSource) Collect(ctx context.Context, in Input, out *Output) (int, error) {
	query, diskUsage := gossipInfoQuery, in.Caps.VirtualColumns["gossip_info"][gossipDiskUsageColumn]
	if diskUsage {
		query = gossipInfoWithDiskUsage
	}
	loads, states := map[string]float64{}, map[string]string{}
	own := -1.0
	n, err := cql.SelectAllInOnePage(ctx, in.Q, query, nil, func(row *cql.Decoder) error {
		addr, raw := row.String("address"), row.OptString("load")
		if diskUsage {
			if st := row.OptString(gossipDiskUsageColumn); st != "" {
				states[addr] = st
			}
		}
		if raw == "" {
			return nil // a node that has not gossiped its load yet (or a failed read, which SelectAll reports)
		}
		// StorageMetrics.load gossiped as String.valueOf(double), e.g. "1.2345E7".
		load, err := strconv.ParseFloat(raw, 64)
		if err != nil || load < 0 || math.IsNaN(load) || math.IsInf(load, 0) {
			return fmt.Errorf("load of %s: %q is not a byte count", addr, raw)
		}
		loads[addr] = load
		if hostID := row.OptString("host_id"); hostID != "" && hostID == in.Caps.HostID {
			own = load
		}
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("reading system_views.gossip_info on %s: %w", in.Address, err)
	}
	out.Node.GossipLoad = loads
	if len(states) > 0 {
		out.Node.DiskUsageStates = states
	}
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
