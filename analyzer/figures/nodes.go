// Package figures builds the status page's figures of a report (the nodes,
// ownership, replica placements, key histories, the ring heatmaps) from the
// snapshot's index and the history, with what the rules hand in (findings
// counted, keys sampled) as plain values: no rule reads them, and they read
// nothing of the rules.
package figures

import (
	"github.com/partmon/partmon/analyzer/index"
	"github.com/partmon/partmon/ring"
)

// NodeSummary is one node of the ring with its load and token figures.
type NodeSummary struct {
	HostID    string  `json:"host_id"`
	Address   string  `json:"address"`
	DC        string  `json:"dc"`
	Rack      string  `json:"rack"`
	Tokens    int     `json:"tokens"`
	LoadBytes float64 `json:"load_bytes"`
	// LoadSkew is this node's load ÷ the mean load of its DC; 0 when unknown.
	LoadSkew float64 `json:"load_skew"`
	Targeted bool    `json:"targeted"`
	// Stale is true when some node-local source could not be read this cycle.
	Stale bool `json:"stale"`
	// DataAgeSeconds is the age of the oldest node-local data partmon holds for it.
	DataAgeSeconds float64 `json:"data_age_seconds"`
	// TokenValues are the node's tokens, sorted ascending (Snapshot.Nodes[].Tokens);
	// the status page draws the ring from them. Empty when unknown.
	TokenValues []int64 `json:"token_values,omitempty"`
}

// Ownership is a node's effective ownership of one keyspace's data,
// computed the way nodetool status does. Keyspace "" is the raw token
// ownership with no replication.
type Ownership struct {
	Keyspace string  `json:"keyspace"`
	HostID   string  `json:"host_id"`
	Node     string  `json:"node"`
	DC       string  `json:"dc"`
	Rack     string  `json:"rack"`
	Owns     float64 `json:"owns"` // 0..1 for raw; 0..RF_dc summed over a DC for effective
	// Skew is Owns ÷ (RF_dc ÷ N_dc): 1 is a fair share.
	Skew float64 `json:"skew"`
}

// Nodes are the ring's nodes in ring order with their loads and freshness.
func Nodes(ix *index.Index) []NodeSummary {
	s := ix.Snapshot
	fr := ix.Scope.Fresh
	loads, skews := ix.LoadSkews()
	out := make([]NodeSummary, 0, len(s.Nodes))
	for _, n := range s.Nodes {
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
			DataAgeSeconds: f.Age(s.Taken),
			TokenValues:    append([]int64(nil), n.Tokens...),
		})
	}
	return out
}

// Owners are every node's ownership: raw ("") then every keyspace's.
func Owners(ix *index.Index) []Ownership {
	nodes := ix.Snapshot.Nodes
	o := ix.Ownership()
	var out []Ownership
	add := func(keyspace string, owns, skew map[string]float64) {
		for _, n := range nodes {
			v, ok := owns[n.HostID]
			if !ok {
				continue
			}
			out = append(out, Ownership{
				Keyspace: keyspace, HostID: n.HostID, Node: n.Address, DC: n.DC, Rack: n.Rack,
				Owns: v, Skew: skew[n.HostID],
			})
		}
	}
	if o.Raw != nil {
		add("", o.Raw, ring.OwnershipSkew(nodes, o.Raw, ring.Replication{}))
	}
	for _, ks := range o.Keyspaces {
		if ks.Owns != nil {
			add(ks.Keyspace.Name, ks.Owns, ks.Skew)
		}
	}
	return out
}
