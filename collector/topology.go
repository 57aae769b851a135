package collector

import (
	"context"
	"fmt"
	"net"
	"slices"
	"sort"
	"strconv"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
)

// topologySource reads the ring: system.local plus system.peers_v2
// (Cassandra 4.0+) or system.peers (ScyllaDB, older Cassandra).
type topologySource struct{}

func (topologySource) Name() string { return "topology" }
func (topologySource) Scope() Scope { return ClusterScope }
func (topologySource) Facts() Facts {
	return Facts{Reads: "system.local, system.peers_v2 (else system.peers)",
		Help: "`system.local`, `system.peers_v2` (else `system.peers`)",
		Gate: everywhere, Schedule: everyFiveMinutes, Grants: []string{ksSystem}}
}

const (
	localQuery = "SELECT cluster_name, partitioner, host_id, data_center, rack, rpc_address, broadcast_address, " +
		"release_version, schema_version, tokens FROM system.local WHERE key = 'local'"
	peersV2Query = "SELECT peer, native_address, host_id, data_center, rack, release_version, schema_version, tokens FROM system.peers_v2"
	peersQuery   = "SELECT peer, rpc_address, host_id, data_center, rack, release_version, schema_version, tokens FROM system.peers"
)

func (topologySource) Collect(ctx context.Context, in Input, out *Output) (int, error) {
	addr := in.Q.Address()
	snap := out.Cluster
	var nodes []model.Node
	rows, err := cql.SelectAll(ctx, in.Q, localQuery, nil, func(row *cql.Decoder) error {
		snap.Cluster, snap.Partitioner = row.String("cluster_name"), row.String("partitioner")
		n, err := parseNode(row, "rpc_address", "broadcast_address", addr)
		if err != nil {
			return err
		}
		nodes = append(nodes, n)
		return nil
	})
	if err != nil {
		return rows, fmt.Errorf("reading system.local on %s: %w", addr, err)
	}
	if rows != 1 {
		return rows, fmt.Errorf("reading system.local on %s: want 1 row, got %d", addr, rows)
	}

	stmt, table, native := peersV2Query, "system.peers_v2", "native_address"
	if !in.Caps.SystemTables["peers_v2"] {
		stmt, table, native = peersQuery, "system.peers", "rpc_address"
	}
	n, err := cql.SelectAll(ctx, in.Q, stmt, nil, func(row *cql.Decoder) error {
		if !validPeer(row) {
			// The driver skips such rows too (gocql isValidPeer): a peer
			// mid-bootstrap or a ghost entry has no host ID or tokens yet.
			return nil
		}
		node, err := parseNode(row, native, "peer", "")
		if err != nil {
			return err
		}
		nodes = append(nodes, node)
		return nil
	})
	rows += n
	if err != nil {
		return rows, fmt.Errorf("reading %s on %s: %w", table, addr, err)
	}

	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Address < nodes[j].Address })
	snap.Nodes = nodes
	snap.Engine = in.Caps.Engine
	snap.Version = in.Caps.Version
	return rows, nil
}

func validPeer(row *cql.Decoder) bool {
	for _, col := range []string{"host_id", "data_center", "rack", "tokens"} {
		if row.IsNull(col) {
			return false
		}
	}
	return true
}

// parseNode reads one ring member. The CQL address is clientCol (rpc_address,
// native_address) unless it is unset or the wildcard, then fallbackCol
// (broadcast_address, peer), then fallback (the address we queried).
func parseNode(row *cql.Decoder, clientCol, fallbackCol, fallback string) (model.Node, error) {
	n := model.Node{
		HostID: row.String("host_id"), DC: row.OptString("data_center"), Rack: row.OptString("rack"),
		ReleaseVersion: row.OptString("release_version"), SchemaVersion: row.OptString("schema_version"),
	}
	for _, col := range []string{clientCol, fallbackCol} {
		a := row.OptString(col) // "" after an earlier failure: Err below reports it
		if ip := net.ParseIP(a); ip != nil && !ip.IsUnspecified() {
			n.Address = ip.String()
			break
		}
		if a != "" && net.ParseIP(a) == nil {
			return n, fmt.Errorf("column %q: %q is not an IP address", col, a)
		}
	}
	if err := row.Err(); err != nil {
		return n, err
	}
	if n.Address == "" {
		n.Address = fallback
	}
	if n.Address == "" {
		return n, fmt.Errorf("node %s has no usable address in %q or %q", n.HostID, clientCol, fallbackCol)
	}
	raw := row.OptStrings("tokens")
	if err := row.Err(); err != nil {
		return n, err
	}
	var err error
	if n.Tokens, err = parseTokens(raw); err != nil {
		return n, fmt.Errorf("node %s: %w", n.Address, err)
	}
	return n, nil
}

// parseTokens parses Murmur3 tokens (decimal int64 strings) and sorts them.
func parseTokens(raw []string) ([]int64, error) {
	out := make([]int64, 0, len(raw))
	for _, s := range raw {
		t, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("token %q is not a Murmur3 (int64) token: %w", s, err)
		}
		out = append(out, t)
	}
	slices.Sort(out)
	return out, nil
}
