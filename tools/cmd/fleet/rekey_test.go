package main

import (
	"net/netip"
	"testing"
	"time"

	"github.com/partmon/partmon/model"
)

func TestAddresses(t *testing.T) {
	for _, tc := range []struct {
		first string
		n     int
		want  []string // first and last
	}{
		{"127.0.1.1", 1, []string{"127.0.1.1", "127.0.1.1"}},
		{"127.0.1.1", 254, []string{"127.0.1.1", "127.0.1.254"}},
		{"127.0.1.1", 255, []string{"127.0.1.1", "127.0.2.1"}}, // .255 and .0 skipped
		{"127.0.1.250", 10, []string{"127.0.1.250", "127.0.2.5"}},
	} {
		got := Addresses(netip.MustParseAddr(tc.first), tc.n)
		if len(got) != tc.n || got[0].String() != tc.want[0] || got[len(got)-1].String() != tc.want[1] {
			t.Errorf("Addresses(%s, %d) = %v … %v (%d), want %v", tc.first, tc.n, got[0], got[len(got)-1], len(got), tc.want)
		}
	}
}

// captured is a three-node snapshot like a capture of the fixture cluster:
// one healthy user table, one system table, a hot-key sample and per-node sources.
func captured() *model.Snapshot {
	taken := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s := &model.Snapshot{Taken: taken, Cluster: "c", Engine: "cassandra", Version: "5.0.8", PerNode: map[string]*model.NodeData{},
		Schema: model.Schema{Keyspaces: []model.Keyspace{
			{Name: "shop", Replication: map[string]string{"class": "org.apache.cassandra.locator.NetworkTopologyStrategy", "dc1": "3"},
				Tables: []model.Table{{Keyspace: "shop", Name: "orders"}}},
			{Name: "system", System: true, Tables: []model.Table{{Keyspace: "system", Name: "local"}}},
		}}}
	for i, addr := range []string{"10.0.0.1", "10.0.0.2", "10.0.0.3"} {
		id := "h" + addr
		s.Nodes = append(s.Nodes, model.Node{HostID: id, Address: addr, DC: "dc1", Rack: "r1", Tokens: []int64{int64(i)}, Targeted: true})
		s.PerNode[id] = &model.NodeData{HostID: id, Address: addr, LoadBytes: float64(i+1) * 1e9,
			GossipLoad: map[string]float64{addr: 1e9},
			Tables: map[string]*model.TableStats{
				"shop.orders":  {Keyspace: "shop", Table: "orders", DiskUsageBytes: int64(i+1) << 20, LocalWrites: model.Ops{Count: 10, PerSecond: 5}},
				"system.local": {Keyspace: "system", Table: "local", DiskUsageBytes: 1 << 20},
			},
			HotPartitions: []model.HotPartition{{Keyspace: "shop", Table: "orders", Key: "k1", Count: 1, Total: 100}},
		}
		s.Sources = append(s.Sources, model.SourceStatus{Source: "max_partition_size", Node: addr, State: model.StateOK, Taken: taken, LastSuccess: taken})
	}
	s.Sources = append(s.Sources, model.SourceStatus{Source: "schema", State: model.StateOK, Taken: taken, LastSuccess: taken})
	return s
}

func TestRingRekeysNodes(t *testing.T) {
	c := captured()
	shape := Shape{Sidecars: 7, Tables: 3, DCs: 2, Racks: 3, FirstIP: netip.MustParseAddr("127.0.1.1")}
	ring := Ring(shape, c.Nodes)
	for i, tc := range []struct {
		addr, dc, rack, template string
	}{
		{"127.0.1.1", "dc1", "r1", "h10.0.0.1"},
		{"127.0.1.2", "dc2", "r1", "h10.0.0.2"},
		{"127.0.1.3", "dc1", "r2", "h10.0.0.3"},
		{"127.0.1.4", "dc2", "r2", "h10.0.0.1"},
		{"127.0.1.5", "dc1", "r3", "h10.0.0.2"},
		{"127.0.1.6", "dc2", "r3", "h10.0.0.3"},
		{"127.0.1.7", "dc1", "r1", "h10.0.0.1"}, // dc1's fourth node: racks wrap
	} {
		n := ring[i]
		if n.Address != tc.addr || n.DC != tc.dc || n.Rack != tc.rack || n.Template != tc.template || n.Targeted {
			t.Errorf("node %d = %s %s %s from %s (targeted %v), want %s %s %s from %s", i, n.Address, n.DC, n.Rack, n.Template, n.Targeted,
				tc.addr, tc.dc, tc.rack, tc.template)
		}
	}
	seen := map[int64]bool{}
	for i, n := range ring {
		if len(n.Tokens) != 1 || seen[n.Tokens[0]] || (i > 0 && n.Tokens[0] <= ring[i-1].Tokens[0]) {
			t.Errorf("node %d token %v: want one distinct ascending token per node", i, n.Tokens)
		}
		seen[n.Tokens[0]] = true
	}
	if ring[0].Tokens[0] != -1<<63 {
		t.Errorf("first token %d, want -2^63", ring[0].Tokens[0])
	}
}

func TestScaleTables(t *testing.T) {
	healthy := []model.Table{{Keyspace: "b", Name: "y"}, {Keyspace: "a", Name: "x"}}
	for _, tc := range []struct {
		tables int
		idle   float64
		want   []string // keyspace.name, idle marked with *
	}{
		{1, 0, []string{"a.x_t00000"}},
		{4, 0, []string{"a.x_t00000", "b.y_t00001", "a.x_t00002", "b.y_t00003"}},
		{4, 0.5, []string{"a.x_t00000", "b.y_t00001", "a.x_t00002*", "b.y_t00003*"}},
		{3, 1, []string{"a.x_t00000*", "b.y_t00001*", "a.x_t00002*"}},
	} {
		got := ScaleTables(Shape{Tables: tc.tables, IdleShare: tc.idle}, healthy)
		if len(got) != len(tc.want) {
			t.Fatalf("%d tables: got %d", tc.tables, len(got))
		}
		for j, st := range got {
			name := model.TableKey(st.Keyspace, st.Name)
			if st.idle {
				name += "*"
			}
			if name != tc.want[j] {
				t.Errorf("%d tables, idle %g: table %d = %s, want %s", tc.tables, tc.idle, j, name, tc.want[j])
			}
		}
	}
}

func TestRekeyGivesEachSidecarItsOwnNode(t *testing.T) {
	c := captured()
	shape := Shape{Sidecars: 4, Tables: 2, DCs: 2, Racks: 1, FirstIP: netip.MustParseAddr("127.0.1.1"), IdleShare: 0.5}
	ring := Ring(shape, c.Nodes)
	tables := ScaleTables(shape, []model.Table{{Keyspace: "shop", Name: "orders"}})
	now := c.Taken.Add(time.Hour)
	for i := range ring {
		s := Rekey(c, shape, ring, tables, i, now)
		own := ring[i]
		if len(s.Nodes) != 4 || len(s.PerNode) != 1 || s.PerNode[own.HostID] == nil {
			t.Fatalf("sidecar %d: %d nodes, node data of %v; want the whole ring and its own node only", i, len(s.Nodes), s.PerNode)
		}
		for _, n := range s.Nodes {
			if n.Targeted != (n.HostID == own.HostID) {
				t.Errorf("sidecar %d: node %s targeted %v", i, n.Address, n.Targeted)
			}
		}
		d := s.PerNode[own.HostID]
		tmpl := c.PerNode[own.Template]
		if d.Address != own.Address || d.LoadBytes != tmpl.LoadBytes {
			t.Errorf("sidecar %d: node data of %s with load %g, want %s with %g", i, d.Address, d.LoadBytes, own.Address, tmpl.LoadBytes)
		}
		busy, idle := d.Tables["shop.orders_t00000"], d.Tables["shop.orders_t00001"]
		if busy == nil || idle == nil || d.Tables["system.local"] == nil || d.Tables["shop.orders"] != nil || len(d.Tables) != 3 {
			t.Fatalf("sidecar %d tables: %v", i, d.Tables)
		}
		if busy.DiskUsageBytes != tmpl.Tables["shop.orders"].DiskUsageBytes || busy.LocalWrites.PerSecond != 5 {
			t.Errorf("sidecar %d: busy copy %+v, want the template's figures", i, busy)
		}
		if idle.DiskUsageBytes != idleDiskBytes || idle.LocalWrites.PerSecond != 0 || idle.LocalWrites.Rate != 0 {
			t.Errorf("sidecar %d: idle copy %+v, want small and idle", i, idle)
		}
		if len(d.HotPartitions) != 2 || d.HotPartitions[0].Table != "orders_t00000" || d.HotPartitions[1].Table != "orders_t00001" {
			t.Errorf("sidecar %d: hot partitions %+v, want the sample once per copy", i, d.HotPartitions)
		}
		if len(d.GossipLoad) != 4 {
			t.Errorf("sidecar %d: gossip load of %d nodes, want the 4 of the fleet", i, len(d.GossipLoad))
		}
		if tmpl.Tables["shop.orders"].Table != "orders" {
			t.Fatalf("Rekey changed the captured snapshot")
		}
		var own2, cluster int
		for _, st := range s.Sources {
			switch st.Node {
			case own.Address:
				own2++
			case "":
				cluster++
			default:
				t.Errorf("sidecar %d: a source of node %s", i, st.Node)
			}
			if !st.Taken.Equal(now) {
				t.Errorf("sidecar %d: source taken %v, want moved to %v", i, st.Taken, now)
			}
		}
		if own2 != 1 || cluster != 1 {
			t.Errorf("sidecar %d: %d own and %d cluster-wide sources, want 1 and 1", i, own2, cluster)
		}
		var shop *model.Keyspace
		for k := range s.Schema.Keyspaces {
			if s.Schema.Keyspaces[k].Name == "shop" {
				shop = &s.Schema.Keyspaces[k]
			}
		}
		if shop == nil || len(shop.Tables) != 2 || shop.Replication["dc1"] != "3" || shop.Replication["dc2"] != "3" || shop.Replication["class"] == "" {
			t.Errorf("sidecar %d: keyspace shop %+v, want 2 tables replicated 3 in each DC", i, shop)
		}
	}
}
