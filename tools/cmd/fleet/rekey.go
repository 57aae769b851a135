package main

import (
	"fmt"
	"math"
	"math/big"
	"net/netip"
	"sort"
	"strconv"
	"time"

	"github.com/partmon/partmon/model"
)

// Shape is the fleet a captured snapshot is re-keyed into.
type Shape struct {
	Sidecars int        // nodes, one sidecar each
	Tables   int        // user tables every node holds (Cassandra's own come on top)
	DCs      int        // data centres; nodes are dealt to them in turn
	Racks    int        // most racks per DC, assigned round robin (see evenRacks)
	FirstIP  netip.Addr // the first sidecar's address; the others follow it
	// Mix is MixBusy (the default when empty) or MixRealistic: what the
	// user tables look like (mix.go).
	Mix string
	// IdleShare, with MixBusy only, makes the last share of the user tables
	// small and idle (no operations, a tiny disk use); 0 keeps them all busy.
	IdleShare float64
}

// Validate says what is wrong with a shape.
func (s Shape) Validate() error {
	switch {
	case s.Sidecars < 1 || s.Tables < 1:
		return fmt.Errorf("sidecars %d and tables %d must be at least 1", s.Sidecars, s.Tables)
	case s.DCs < 1 || s.Racks < 1 || s.DCs > s.Sidecars:
		return fmt.Errorf("dcs %d must be between 1 and the sidecars (%d), racks %d at least 1", s.DCs, s.Sidecars, s.Racks)
	case !s.FirstIP.Is4():
		return fmt.Errorf("first address %v is not IPv4", s.FirstIP)
	case s.IdleShare < 0 || s.IdleShare > 1:
		return fmt.Errorf("idle share %g is not in [0, 1]", s.IdleShare)
	case s.Mix != "" && validMix(s.Mix) != nil:
		return validMix(s.Mix)
	case s.Mix == MixRealistic && s.IdleShare > 0:
		return fmt.Errorf("idle share %g: the %s mix has its own idle tables", s.IdleShare, MixRealistic)
	}
	return nil
}

// FleetNode is one re-keyed node and the captured node it replays.
type FleetNode struct {
	model.Node
	Template string // host ID of the captured node whose data it serves
}

// Addresses returns n consecutive IPv4 addresses from first, skipping each
// block's .0 and .255 (127.0.1.1 … 127.0.1.254, 127.0.2.1 …).
func Addresses(first netip.Addr, n int) []netip.Addr {
	out := make([]netip.Addr, 0, n)
	for a := first; len(out) < n; a = a.Next() {
		b := a.As4()
		if b[3] == 0 || b[3] == 255 {
			continue
		}
		out = append(out, a)
	}
	return out
}

// Ring builds the fleet's nodes: addresses from the shape, DCs and, within
// a DC, racks round robin, one Murmur3 token each, and the captured nodes
// replayed in turn. The ring is fair, as an operator builds one: each DC's
// tokens split the ring evenly and its racks hold equally many nodes, so no
// node owns more than its share of a keyspace (NetworkTopologyStrategy
// spreads a range's replicas over distinct racks first, so the nodes of a
// smaller rack would over-own). Skews are only ever planted.
func Ring(s Shape, captured []model.Node) []FleetNode {
	addrs := Addresses(s.FirstIP, s.Sidecars)
	out := make([]FleetNode, s.Sidecars)
	taken := map[int64]bool{}
	for i := range out {
		// DCs interleave around the ring, so each DC's nodes split its
		// ranges evenly (contiguous blocks would skew every DC's ownership).
		dc, inDC := i%s.DCs, i/s.DCs
		dcNodes := nodesInDC(s, dc)
		tmpl := captured[i%len(captured)]
		n := tmpl
		n.HostID = fmt.Sprintf("00000000-0000-4000-8000-%012d", i+1)
		n.Address = addrs[i].String()
		n.DC = "dc" + strconv.Itoa(dc+1)
		n.Rack = "r" + strconv.Itoa(inDC%evenRacks(dcNodes, s.Racks)+1)
		n.Tokens = []int64{freeToken(dcToken(dc, inDC, s.DCs, dcNodes), taken)}
		n.Targeted = false
		out[i] = FleetNode{Node: n, Template: tmpl.HostID}
	}
	return out
}

// nodesInDC is how many of the shape's nodes DC dc (0-based) gets when
// nodes are dealt to the DCs in turn.
func nodesInDC(s Shape, dc int) int { return (s.Sidecars - dc + s.DCs - 1) / s.DCs }

// evenRacks is the most racks, up to want, that nodes split into equally:
// the largest divisor of nodes not above want (5 nodes and 3 racks wanted
// make 1 rack; 50 make 2; 150 make 3).
func evenRacks(nodes, want int) int {
	for r := min(want, nodes); r > 1; r-- {
		if nodes%r == 0 {
			return r
		}
	}
	return 1
}

// dcToken is the token of the k-th of a DC's n nodes: the DC's tokens split
// the Murmur3 ring evenly, DC d's shifted by d/dcs of its step so the DCs
// interleave. When every DC has N/dcs nodes this is -2^63 + i·2^64/N for
// node i = k·dcs + d (what deploy/local/cluster assigns).
func dcToken(d, k, dcs, n int) int64 {
	t := new(big.Int).Lsh(big.NewInt(1), 64)
	t.Mul(t, big.NewInt(int64(k*dcs+d)))
	t.Quo(t, big.NewInt(int64(n*dcs)))
	t.Add(t, big.NewInt(math.MinInt64))
	return t.Int64()
}

// freeToken is t, or the next token no node holds yet: DCs of different
// sizes can land on the same even token, and a ring needs distinct ones
// (a shift of one token out of 2^64 changes no ownership figure).
func freeToken(t int64, taken map[int64]bool) int64 {
	for taken[t] {
		t++
	}
	taken[t] = true
	return t
}

// TableName is the name of the j-th scaled copy of a captured table.
func TableName(template string, j int) string { return fmt.Sprintf("%s_t%05d", template, j) }

// scaledTable is one user table of the fleet and the captured table it copies.
type scaledTable struct {
	model.Table
	template string // model.TableKey of the captured table
	kind     tableKind
	size     int64 // disk use of a large table
}

// ScaleTables names s.Tables user tables, copying the given captured
// tables in turn (sorted, so the result does not depend on map order), each
// of the kind the shape's mix gives it.
func ScaleTables(s Shape, healthy []model.Table) []scaledTable {
	sorted := append([]model.Table(nil), healthy...)
	sort.Slice(sorted, func(a, b int) bool {
		return model.TableKey(sorted[a].Keyspace, sorted[a].Name) < model.TableKey(sorted[b].Keyspace, sorted[b].Name)
	})
	out := make([]scaledTable, s.Tables)
	for j := range out {
		tmpl := sorted[j%len(sorted)]
		t := tmpl
		t.Name = TableName(tmpl.Name, j)
		out[j] = scaledTable{Table: t, template: model.TableKey(tmpl.Keyspace, tmpl.Name), kind: s.kindOf(j)}
		if out[j].kind == kindLarge {
			out[j].size = largeBytes(j)
		}
	}
	return out
}

// Rekey builds sidecar i's snapshot: the fleet's whole ring and schema, and
// node-local data for its own node only (what a real sidecar reads),
// copied from the captured node it replays, with every table, address and
// time re-keyed. taken is the snapshot's time.
func Rekey(c *model.Snapshot, s Shape, ring []FleetNode, tables []scaledTable, i int, taken time.Time) *model.Snapshot {
	own := ring[i]
	out := &model.Snapshot{
		Taken: taken, Cluster: c.Cluster, Engine: c.Engine, Version: c.Version, Partitioner: c.Partitioner,
		Schema:  rekeySchema(c.Schema, tables, s.DCs),
		PerNode: map[string]*model.NodeData{},
	}
	for k, n := range ring {
		node := n.Node
		node.Targeted = k == i
		out.Nodes = append(out.Nodes, node)
	}
	tmplNode := capturedNode(c, own.Template)
	if src := c.PerNode[own.Template]; src != nil {
		out.PerNode[own.HostID] = rekeyNodeData(src, own.Node, ring, tables, systemKeyspaces(c.Schema))
	}
	out.Sources = rekeySources(c.Sources, tmplNode.Address, own.Address, c.Taken, taken)
	return out
}

func capturedNode(c *model.Snapshot, hostID string) model.Node {
	for _, n := range c.Nodes {
		if n.HostID == hostID {
			return n
		}
	}
	return model.Node{}
}

// rekeySchema keeps system keyspaces as captured and puts the scaled
// tables into their template's keyspace, with per-DC replication spread
// over the fleet's DCs at the captured factor.
func rekeySchema(c model.Schema, tables []scaledTable, dcs int) model.Schema {
	byKeyspace := map[string][]model.Table{}
	for _, t := range tables {
		byKeyspace[t.Keyspace] = append(byKeyspace[t.Keyspace], t.Table)
	}
	var out model.Schema
	for _, ks := range c.Keyspaces {
		if !ks.System {
			ts, ok := byKeyspace[ks.Name]
			if !ok {
				continue
			}
			ks.Tables = ts
			ks.Replication = rekeyReplication(ks.Replication, dcs)
		}
		out.Keyspaces = append(out.Keyspaces, ks)
	}
	return out
}

// rekeyReplication gives each fleet DC the captured per-DC factor (the
// first DC's); SimpleStrategy and the like are kept as they are.
func rekeyReplication(r map[string]string, dcs int) map[string]string {
	factor, ok := r["dc1"]
	if !ok {
		return r
	}
	out := map[string]string{}
	for k, v := range r {
		if k == "class" || k == "replication_factor" {
			out[k] = v
		}
	}
	for d := 1; d <= dcs; d++ {
		out["dc"+strconv.Itoa(d)] = factor
	}
	return out
}

// rekeyNodeData copies a captured node's data onto a fleet node: Cassandra's
// own tables as they are, each scaled table from its template, the key
// lists of the copied tables renamed, gossip load for every fleet node.
func rekeyNodeData(src *model.NodeData, own model.Node, ring []FleetNode, tables []scaledTable, system map[string]bool) *model.NodeData {
	out := *src
	out.HostID, out.Address = own.HostID, own.Address
	out.Tables = map[string]*model.TableStats{}
	copies := map[string][]scaledTable{} // template key → its copies
	for _, t := range tables {
		copies[t.template] = append(copies[t.template], t)
	}
	for key, st := range src.Tables {
		if _, scaled := copies[key]; !scaled && system[st.Keyspace] {
			out.Tables[key] = st
		}
	}
	for _, t := range tables {
		st, ok := src.Tables[t.template]
		if !ok {
			continue
		}
		c := *st
		c.Table = t.Name
		switch t.kind {
		case kindIdle:
			makeIdle(&c)
		case kindLarge:
			makeLarge(&c, t.size)
		default:
			makeBusy(&c)
		}
		out.Tables[model.TableKey(t.Keyspace, t.Name)] = &c
	}
	out.TopPartitions = nil
	for _, p := range src.TopPartitions {
		for _, t := range copies[model.TableKey(p.Keyspace, p.Table)] {
			p.Table = t.Name
			out.TopPartitions = append(out.TopPartitions, p)
		}
	}
	out.HotPartitions = nil
	for _, p := range src.HotPartitions {
		for _, t := range copies[model.TableKey(p.Keyspace, p.Table)] {
			p.Table = t.Name
			out.HotPartitions = append(out.HotPartitions, p)
		}
	}
	// Large* are ScyllaDB's and log evidence names problems: the healthy
	// tables replayed here have neither.
	out.LargePartitions, out.LargeRows, out.LargeCells, out.LogEvidence = nil, nil, nil, nil
	out.GossipLoad = nil
	if len(src.GossipLoad) > 0 {
		out.GossipLoad = map[string]float64{}
		for _, n := range ring {
			out.GossipLoad[n.Address] = src.LoadBytes
		}
	}
	return &out
}

// systemKeyspaces are Cassandra's own, which every node holds as captured.
func systemKeyspaces(s model.Schema) map[string]bool {
	out := map[string]bool{}
	for _, ks := range s.Keyspaces {
		if ks.System {
			out[ks.Name] = true
		}
	}
	return out
}

// rekeySources keeps the cluster-wide statuses and the captured node's own,
// moved to the fleet node's address and to the fleet's time.
func rekeySources(c []model.SourceStatus, from, to string, capturedAt, taken time.Time) []model.SourceStatus {
	shift := taken.Sub(capturedAt)
	var out []model.SourceStatus
	for _, st := range c {
		switch st.Node {
		case "":
		case from:
			st.Node = to
		default:
			continue
		}
		st.Taken = moved(st.Taken, shift)
		st.LastSuccess = moved(st.LastSuccess, shift)
		st.FirstAttempt = moved(st.FirstAttempt, shift)
		out = append(out, st)
	}
	return out
}

func moved(t time.Time, d time.Duration) time.Time {
	if t.IsZero() {
		return t
	}
	return t.Add(d)
}
