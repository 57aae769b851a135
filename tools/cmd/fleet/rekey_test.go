package main

import (
	"fmt"
	"math"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer"
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
	// 7 nodes in 2 DCs: dc1 gets 4 (two racks of 2, since 3 racks cannot
	// hold 4 equally), dc2 gets 3 (three racks of 1). Each DC's tokens split
	// the ring evenly: dc1 in quarters, dc2 in thirds shifted by half a third.
	shape := Shape{Sidecars: 7, Tables: 3, DCs: 2, Racks: 3, FirstIP: netip.MustParseAddr("127.0.1.1")}
	ring := Ring(shape, c.Nodes)
	for i, tc := range []struct {
		addr, dc, rack, template string
		token                    int64
	}{
		{"127.0.1.1", "dc1", "r1", "h10.0.0.1", -1 << 63},
		{"127.0.1.2", "dc2", "r1", "h10.0.0.2", -6148914691236517206}, // -2^63 + 2^64/6
		{"127.0.1.3", "dc1", "r2", "h10.0.0.3", -1 << 62},
		{"127.0.1.4", "dc2", "r2", "h10.0.0.1", 0},
		{"127.0.1.5", "dc1", "r1", "h10.0.0.2", 1}, // dc1's even token 0 is dc2's already
		{"127.0.1.6", "dc2", "r3", "h10.0.0.3", 6148914691236517205},
		{"127.0.1.7", "dc1", "r2", "h10.0.0.1", 1 << 62},
	} {
		n := ring[i]
		if n.Address != tc.addr || n.DC != tc.dc || n.Rack != tc.rack || n.Template != tc.template || n.Targeted ||
			len(n.Tokens) != 1 || n.Tokens[0] != tc.token {
			t.Errorf("node %d = %s %s %s %v from %s (targeted %v), want %s %s %s [%d] from %s", i, n.Address, n.DC, n.Rack, n.Tokens, n.Template, n.Targeted,
				tc.addr, tc.dc, tc.rack, tc.token, tc.template)
		}
	}
}

func TestEvenRacks(t *testing.T) {
	for _, tc := range []struct{ nodes, want, racks int }{
		{5, 3, 1}, {50, 3, 2}, {150, 3, 3}, {4, 3, 2}, {3, 3, 3}, {2, 3, 2}, {1, 3, 1}, {12, 5, 4}, {7, 1, 1},
	} {
		if got := evenRacks(tc.nodes, tc.want); got != tc.racks {
			t.Errorf("evenRacks(%d nodes, %d wanted) = %d, want %d", tc.nodes, tc.want, got, tc.racks)
		}
	}
}

// TestFleetRingIsFair re-keys the real capture as make scale does and runs
// the real analyzer on it: the fleet's ring must give no node more than its
// share of any keyspace, or the ownership-skew alerts would muddy the one
// planted problem. An uneven ring (3 racks over 5 nodes of a DC) gave the
// lone rack's node all of its DC's data: 1.67 times its share, critical.
func TestFleetRingIsFair(t *testing.T) {
	c, tmpl := realCapture(t)
	for _, tc := range []struct{ sidecars, dcs, racks int }{
		{1, 1, 3}, {3, 2, 3}, {7, 2, 3}, {10, 2, 3}, {11, 3, 2}, {100, 2, 3}, {300, 2, 3},
	} {
		shape := Shape{Sidecars: tc.sidecars, Tables: 2, DCs: tc.dcs, Racks: tc.racks, FirstIP: netip.MustParseAddr("127.0.1.1")}
		ring := Ring(shape, c.Nodes)
		assertEqualRacks(t, shape, ring)
		tables := ScaleTables(shape, tmpl.Healthy)
		snap := Rekey(tmpl.Snapshot, shape, ring, tables, 0, c.Taken)
		for _, p := range tmpl.Problems { // their keyspaces have replication factors of their own
			tmpl.Plant(snap, ring[0], p, true, shape.DCs)
		}
		r := analyzer.Analyze(snap, nil, analyzer.DefaultThresholds())
		for _, f := range r.Findings {
			if f.Kind == analyzer.KindOwnershipSkew {
				t.Errorf("%+v: %s ownership skew %.3f on %s %v in keyspace %s", tc, f.Severity, f.Value, f.Node, f.Nodes, f.Keyspace)
			}
		}
		keyspaces := map[string]bool{}
		for _, o := range r.Ownership {
			if o.Keyspace == "" {
				continue // raw token ownership ignores DCs; nothing alerts on it
			}
			keyspaces[o.Keyspace] = true
			if math.Abs(o.Skew-1) > 1e-3 {
				t.Errorf("%+v: %s owns %.4f of %s, %.4f times its share; want its share", tc, o.Node, o.Owns, o.Keyspace, o.Skew)
			}
		}
		if !keyspaces["pm_clean"] || !keyspaces["pm_hot"] {
			t.Errorf("%+v: ownership of keyspaces %v, want pm_clean and pm_hot", tc, keyspaces)
		}
	}
}

// assertEqualRacks checks that every DC's racks hold equally many nodes.
func assertEqualRacks(t *testing.T, s Shape, ring []FleetNode) {
	t.Helper()
	perRack := map[string]map[string]int{} // dc → rack → nodes
	for _, n := range ring {
		if perRack[n.DC] == nil {
			perRack[n.DC] = map[string]int{}
		}
		perRack[n.DC][n.Rack]++
	}
	if len(perRack) != s.DCs {
		t.Errorf("%d sidecars: %d DCs, want %d", s.Sidecars, len(perRack), s.DCs)
	}
	for dc, racks := range perRack {
		size := -1
		for rack, nodes := range racks {
			if size >= 0 && nodes != size {
				t.Errorf("%d sidecars: %s has racks of different sizes %v (%s)", s.Sidecars, dc, racks, rack)
			}
			size = nodes
		}
	}
}

func TestScaleTables(t *testing.T) {
	healthy := []model.Table{{Keyspace: "b", Name: "y"}, {Keyspace: "a", Name: "x"}}
	for _, tc := range []struct {
		tables int
		mix    string
		idle   float64
		want   []string // keyspace.name, idle marked with *, large with + and its GiB
	}{
		{1, "", 0, []string{"a.x_t00000"}},
		{4, MixBusy, 0, []string{"a.x_t00000", "b.y_t00001", "a.x_t00002", "b.y_t00003"}},
		{4, MixBusy, 0.5, []string{"a.x_t00000", "b.y_t00001", "a.x_t00002*", "b.y_t00003*"}},
		{3, "", 1, []string{"a.x_t00000*", "b.y_t00001*", "a.x_t00002*"}},
		{7, MixRealistic, 0, []string{"a.x_t00000", "b.y_t00001", "a.x_t00002", "b.y_t00003", "a.x_t00004", "b.y_t00005+1", "a.x_t00006*"}},
	} {
		got := ScaleTables(Shape{Tables: tc.tables, Mix: tc.mix, IdleShare: tc.idle}, healthy)
		if len(got) != len(tc.want) {
			t.Fatalf("%d tables: got %d", tc.tables, len(got))
		}
		for j, st := range got {
			name := model.TableKey(st.Keyspace, st.Name)
			switch st.kind {
			case kindIdle:
				name += "*"
			case kindLarge:
				name += fmt.Sprintf("+%d", st.size>>30)
			}
			if name != tc.want[j] {
				t.Errorf("%d tables, mix %q, idle %g: table %d = %s, want %s", tc.tables, tc.mix, tc.idle, j, name, tc.want[j])
			}
		}
	}
}

// The realistic mix holds its stated shares: 70 % idle, 25 % busy, 5 %
// large, the large ones 1 to 5 GiB.
func TestRealisticShares(t *testing.T) {
	tables := ScaleTables(Shape{Tables: 1000, Mix: MixRealistic}, []model.Table{{Keyspace: "a", Name: "x"}})
	n := map[tableKind]int{}
	sizes := map[int64]int{}
	for _, st := range tables {
		n[st.kind]++
		if st.kind == kindLarge {
			sizes[st.size>>30]++
		}
	}
	if n[kindIdle] != 700 || n[kindBusy] != 250 || n[kindLarge] != 50 {
		t.Errorf("1,000 realistic tables: %v, want 700 idle, 250 busy, 50 large", n)
	}
	for g := int64(1); g <= 5; g++ {
		if sizes[g] != 10 {
			t.Errorf("large tables by GiB %v, want 10 each of 1 to 5", sizes)
		}
	}
	if tables[0].kind != kindBusy {
		t.Errorf("table 0 (the planted growth's) is %v, want busy", tables[0].kind)
	}
}

func TestShapeValidate(t *testing.T) {
	ok := Shape{Sidecars: 1, Tables: 1, DCs: 1, Racks: 1, FirstIP: netip.MustParseAddr("127.0.1.1")}
	for _, tc := range []struct {
		mix  string
		idle float64
		want string // in the error; "" valid
	}{
		{"", 0, ""}, {MixBusy, 0.9, ""}, {MixRealistic, 0, ""},
		{"bursty", 0, `mix "bursty"`},
		{MixRealistic, 0.5, "has its own idle tables"},
		{MixBusy, 1.5, "not in [0, 1]"},
	} {
		s := ok
		s.Mix, s.IdleShare = tc.mix, tc.idle
		err := s.Validate()
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("mix %q idle %g: %v, want %q", tc.mix, tc.idle, err, tc.want)
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
		// The template has writes only: the busy copy keeps them and gets
		// half as many reads, and a tombstone histogram of as many reads at 0.
		if busy.DiskUsageBytes != tmpl.Tables["shop.orders"].DiskUsageBytes || busy.LocalWrites.PerSecond != 5 || busy.LocalWrites.Count != 10 ||
			busy.LocalReads.PerSecond != 2.5 || busy.LocalReads.Count != 5 ||
			busy.TombstonesPerRead.Count != 5 || busy.TombstonesPerRead.P99 != 0 {
			t.Errorf("sidecar %d: busy copy %+v, want the template's writes, half as many reads, tombstones 0 over 5 reads", i, busy)
		}
		if idle.DiskUsageBytes != idleDiskBytes || idle.LocalWrites != (model.Ops{}) || idle.LocalReads != (model.Ops{}) || idle.TombstonesPerRead.Count != 0 {
			t.Errorf("sidecar %d: idle copy %+v, want small and never read or written", i, idle)
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

// realCapture is the capture make scale replays, and its template.
func realCapture(t *testing.T) (*model.Snapshot, *Template) {
	t.Helper()
	c, err := readSnapshot("testdata/fixture-cluster-snapshot.gz")
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := NewTemplate(c)
	if err != nil {
		t.Fatal(err)
	}
	return c, tmpl
}
