package collector

import (
	"errors"
	"reflect"
	"testing"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
)

func localRow() cql.Row {
	return cql.Row{
		"cluster_name": "prod", "partitioner": "org.apache.cassandra.dht.Murmur3Partitioner",
		"host_id": "h1", "data_center": "dc1", "rack": "r1",
		"rpc_address": "10.0.0.1", "broadcast_address": "10.0.0.1",
		"release_version": "5.0.8", "schema_version": "s1",
		"tokens": []string{"100", "-5"},
	}
}

func peerV2Row(addr, id string, tokens ...string) cql.Row {
	return cql.Row{"peer": addr, "native_address": addr, "host_id": id, "data_center": "dc1", "rack": "r2",
		"release_version": "5.0.8", "schema_version": "s1", "tokens": tokens}
}

func TestTopology(t *testing.T) {
	with := func(r cql.Row, k string, v any) cql.Row {
		c := cql.Row{}
		for kk, vv := range r {
			c[kk] = vv
		}
		if v == nil {
			c[k] = nil
		} else {
			c[k] = v
		}
		return c
	}
	without := func(r cql.Row, k string) cql.Row {
		c := with(r, k, 1)
		delete(c, k)
		return c
	}
	tests := []struct {
		name      string
		caps      func() *Capabilities
		local     []cql.Row
		peers     []cql.Row
		peersStmt string
		wantErr   string
		wantNodes []model.Node
	}{
		{
			name:      "peers_v2, tokens sorted, nodes by address",
			caps:      cassandra50Caps,
			local:     []cql.Row{localRow()},
			peers:     []cql.Row{peerV2Row("10.0.0.3", "h3", "7"), peerV2Row("10.0.0.2", "h2", "-9223372036854775808")},
			peersStmt: peersV2Query,
			wantNodes: []model.Node{
				{HostID: "h1", Address: "10.0.0.1", DC: "dc1", Rack: "r1", Tokens: []int64{-5, 100}, ReleaseVersion: "5.0.8", SchemaVersion: "s1"},
				{HostID: "h2", Address: "10.0.0.2", DC: "dc1", Rack: "r2", Tokens: []int64{-9223372036854775808}, ReleaseVersion: "5.0.8", SchemaVersion: "s1"},
				{HostID: "h3", Address: "10.0.0.3", DC: "dc1", Rack: "r2", Tokens: []int64{7}, ReleaseVersion: "5.0.8", SchemaVersion: "s1"},
			},
		},
		{
			// ScyllaDB has no peers_v2 (db/system_keyspace.cc); its peers row names the CQL address rpc_address.
			name:  "ScyllaDB falls back to system.peers",
			caps:  func() *Capabilities { return scyllaCaps() },
			local: []cql.Row{with(localRow(), "release_version", "3.0.8")},
			peers: []cql.Row{{"peer": "10.0.1.2", "rpc_address": "10.0.0.2", "host_id": "h2", "data_center": "dc1", "rack": "r1",
				"release_version": "3.0.8", "schema_version": "s1", "tokens": []string{"1"}}},
			peersStmt: peersQuery,
			wantNodes: []model.Node{
				{HostID: "h1", Address: "10.0.0.1", DC: "dc1", Rack: "r1", Tokens: []int64{-5, 100}, ReleaseVersion: "3.0.8", SchemaVersion: "s1"},
				{HostID: "h2", Address: "10.0.0.2", DC: "dc1", Rack: "r1", Tokens: []int64{1}, ReleaseVersion: "3.0.8", SchemaVersion: "s1"},
			},
		},
		{
			name:      "wildcard rpc_address falls back to broadcast_address",
			caps:      cassandra50Caps,
			local:     []cql.Row{with(with(localRow(), "rpc_address", "0.0.0.0"), "broadcast_address", "10.9.9.9")},
			peersStmt: peersV2Query,
			wantNodes: []model.Node{{HostID: "h1", Address: "10.9.9.9", DC: "dc1", Rack: "r1", Tokens: []int64{-5, 100}, ReleaseVersion: "5.0.8", SchemaVersion: "s1"}},
		},
		{
			name:      "peer without host ID or tokens is skipped like gocql does",
			caps:      cassandra50Caps,
			local:     []cql.Row{localRow()},
			peers:     []cql.Row{with(peerV2Row("10.0.0.2", "h2", "1"), "host_id", nil), with(peerV2Row("10.0.0.3", "h3"), "tokens", nil)},
			peersStmt: peersV2Query,
			wantNodes: []model.Node{{HostID: "h1", Address: "10.0.0.1", DC: "dc1", Rack: "r1", Tokens: []int64{-5, 100}, ReleaseVersion: "5.0.8", SchemaVersion: "s1"}},
		},
		{name: "unparsable token", caps: cassandra50Caps, local: []cql.Row{with(localRow(), "tokens", []string{"12", "0x1f"})},
			peersStmt: peersV2Query, wantErr: `reading system.local on 10.0.0.1: row 1: node 10.0.0.1: token "0x1f" is not a Murmur3 (int64) token`},
		{name: "RandomPartitioner-sized token", caps: cassandra50Caps, local: []cql.Row{with(localRow(), "tokens", []string{"170141183460469231731687303715884105727"})},
			peersStmt: peersV2Query, wantErr: `is not a Murmur3 (int64) token`},
		{name: "null host_id in system.local", caps: cassandra50Caps, local: []cql.Row{with(localRow(), "host_id", nil)},
			peersStmt: peersV2Query, wantErr: `reading system.local on 10.0.0.1: row 1: column "host_id" is null`},
		{name: "missing cluster_name", caps: cassandra50Caps, local: []cql.Row{without(localRow(), "cluster_name")},
			peersStmt: peersV2Query, wantErr: `column "cluster_name" missing from result`},
		{name: "garbage address", caps: cassandra50Caps, local: []cql.Row{localRow()},
			peers: []cql.Row{with(peerV2Row("10.0.0.2", "h2", "1"), "native_address", "not-an-ip")}, peersStmt: peersV2Query,
			wantErr: `reading system.peers_v2 on 10.0.0.1: row 1: column "native_address": "not-an-ip" is not an IP address`},
		{name: "tokens of the wrong type", caps: cassandra50Caps, local: []cql.Row{with(localRow(), "tokens", "1,2")},
			peersStmt: peersV2Query, wantErr: `column "tokens": want a set of text, got string`},
		{name: "no system.local row", caps: cassandra50Caps, peersStmt: peersV2Query, wantErr: "want 1 row, got 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake("10.0.0.1").on(localQuery, tc.local...).on(tc.peersStmt, tc.peers...)
			caps := tc.caps()
			out, _, err := run(t, topologySource{}, f, caps)
			if tc.wantErr != "" {
				wantErr(t, err, tc.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			f.expectationsMet(t)
			if !reflect.DeepEqual(out.Cluster.Nodes, tc.wantNodes) {
				t.Errorf("nodes\n got %+v\nwant %+v", out.Cluster.Nodes, tc.wantNodes)
			}
			if out.Cluster.Cluster != "prod" || out.Cluster.Engine != caps.Engine || out.Cluster.Version != caps.Version {
				t.Errorf("cluster %q engine %q version %q", out.Cluster.Cluster, out.Cluster.Engine, out.Cluster.Version)
			}
		})
	}
}

func TestTopologyPeersError(t *testing.T) {
	boom := errors.New("connection reset")
	f := newFake("10.0.0.1").on(localQuery, localRow()).fail(peersV2Query, boom)
	_, _, err := run(t, topologySource{}, f, cassandra50Caps())
	if !errors.Is(err, boom) {
		t.Fatalf("want the query error wrapped, got %v", err)
	}
	wantErr(t, err, "reading system.peers_v2 on 10.0.0.1")
}
