package analyzer

import (
	"github.com/partmon/partmon/analyzer/index"
	"github.com/partmon/partmon/analyzer/internal/set"

	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/ring"
)

// nodeLoad is the node's own load figure, else what another node's gossip
// says of it (Cassandra 4.1+ gossip_info); 0 when nobody knows. A figure
// that is not a finite size (garbage from a node) is not known.
func (a figures) nodeLoad(n *model.Node) float64 {
	known := func(v float64) bool { return v > 0 && index.Finite(v) }
	if nd := a.s.PerNode[n.HostID]; nd != nil && known(nd.LoadBytes) {
		return nd.LoadBytes
	}
	for _, hostID := range set.Keys(a.s.PerNode) {
		if nd := a.s.PerNode[hostID]; nd != nil && known(nd.GossipLoad[n.Address]) {
			return nd.GossipLoad[n.Address]
		}
	}
	return 0
}

// loadSkews is each node's load ÷ the mean load of its DC, over the nodes
// whose load is known; a DC with fewer than two known loads gets none.
func (a *analysis) loadSkews() (loads, skews map[string]float64) {
	loads = map[string]float64{}
	sum := map[string]float64{}
	count := map[string]int{}
	for i := range a.s.Nodes {
		n := &a.s.Nodes[i]
		if l := (figures{a}).nodeLoad(n); l > 0 {
			loads[n.HostID] = l
			sum[n.DC] += l
			count[n.DC]++
		}
	}
	skews = map[string]float64{}
	for i := range a.s.Nodes {
		n := &a.s.Nodes[i]
		l, ok := loads[n.HostID]
		if !ok || count[n.DC] < 2 {
			continue
		}
		skews[n.HostID] = l / (sum[n.DC] / float64(count[n.DC]))
	}
	return loads, skews
}

// nodeSummaries fills Report.Nodes in ring order.
func (a figures) nodeSummaries() []NodeSummary {
	fr := a.sc.Fresh
	loads, skews := a.loadSkews()
	out := make([]NodeSummary, 0, len(a.s.Nodes))
	for _, n := range a.s.Nodes {
		f := fr[n.Address]
		out = append(out, NodeSummary{
			HostID:         n.HostID,
			Address:        n.Address,
			DC:             n.DC,
			Rack:           n.Rack,
			Tokens:         len(n.Tokens),
			LoadBytes:      loads[n.HostID],
			LoadSkew:       skews[n.HostID],
			Targeted:       n.Targeted,
			Stale:          f.IsStale(),
			DataAgeSeconds: f.Age(a.s.Taken),
			TokenValues:    append([]int64(nil), n.Tokens...),
		})
	}
	return out
}

// ownershipFigures fills Report.Ownership: raw ("") then every keyspace.
func (a figures) ownershipFigures() []Ownership {
	var out []Ownership
	add := func(keyspace string, owns, skew map[string]float64) {
		for _, n := range a.s.Nodes {
			o, ok := owns[n.HostID]
			if !ok {
				continue
			}
			out = append(out, Ownership{
				Keyspace: keyspace, HostID: n.HostID, Node: n.Address, DC: n.DC, Rack: n.Rack,
				Owns: o, Skew: skew[n.HostID],
			})
		}
	}
	if a.raw != nil {
		add("", a.raw, ring.OwnershipSkew(a.s.Nodes, a.raw, ring.Replication{}))
	}
	for _, ks := range a.keyspaces {
		if ks.owns != nil {
			add(ks.ks.Name, ks.owns, ks.skew)
		}
	}
	return out
}

// figures are the report's figures for the page (everything but findings), read from the index; no rule reads them.
type figures struct{ *analysis }
