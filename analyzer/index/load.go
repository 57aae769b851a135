package index

import (
	"github.com/partmon/partmon/analyzer/internal/set"
	"github.com/partmon/partmon/model"
)

// Load is the node's own load figure, else what another node's gossip
// says of it (Cassandra 4.1+ gossip_info); 0 when nobody knows. A figure
// that is not a finite size (garbage from a node) is not known.
func (ix *Index) Load(n *model.Node) float64 {
	s := ix.Snapshot
	known := func(v float64) bool { return v > 0 && Finite(v) }
	if nd := s.PerNode[n.HostID]; nd != nil && known(nd.LoadBytes) {
		return nd.LoadBytes
	}
	for _, hostID := range set.Keys(s.PerNode) {
		if nd := s.PerNode[hostID]; nd != nil && known(nd.GossipLoad[n.Address]) {
			return nd.GossipLoad[n.Address]
		}
	}
	return 0
}

// LoadSkews is each node's load ÷ the mean load of its DC, over the nodes
// whose load is known; a DC with fewer than two known loads gets none.
func (ix *Index) LoadSkews() (loads, skews map[string]float64) {
	nodes := ix.Snapshot.Nodes
	loads = map[string]float64{}
	sum := map[string]float64{}
	count := map[string]int{}
	for i := range nodes {
		n := &nodes[i]
		if l := ix.Load(n); l > 0 {
			loads[n.HostID] = l
			sum[n.DC] += l
			count[n.DC]++
		}
	}
	skews = map[string]float64{}
	for i := range nodes {
		n := &nodes[i]
		l, ok := loads[n.HostID]
		if !ok || count[n.DC] < 2 {
			continue
		}
		skews[n.HostID] = l / (sum[n.DC] / float64(count[n.DC]))
	}
	return loads, skews
}
