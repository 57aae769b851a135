package ring

import "github.com/partmon/partmon/model"

// OwnershipCache computes the effective ownership of a snapshot's
// keyspaces on one token ring, built once (sorting 256k vnodes costs as
// much as a walk). Under NetworkTopologyStrategy a node's ownership depends
// only on its own DC's factor (each DC's walk places replicas on its own
// nodes alone), so walks are kept per (DC, factor): 50 keyspaces with 50
// different replication maps over three DCs need at most a walk per
// distinct DC factor, not one per keyspace. Not safe for concurrent use.
type OwnershipCache struct {
	ring  *TokenRing
	err   error
	bySig map[string]map[string]float64 // non-NTS replications by Replication.String
	perDC map[string]map[string]float64 // "dc\x00factor" → host ID → owns
}

// NewOwnershipCache builds the nodes' ring once; its error, if any, is
// Ring's and every Effective's.
func NewOwnershipCache(nodes []model.Node) *OwnershipCache {
	ring, err := NewTokenRing(nodes)
	return &OwnershipCache{ring: ring, err: err, bySig: map[string]map[string]float64{}, perDC: map[string]map[string]float64{}}
}

// Ring is the ring the cache walks, or why it could not be built.
func (c *OwnershipCache) Ring() (*TokenRing, error) { return c.ring, c.err }

// Effective is EffectiveOwnership(nodes, r), each walk done once.
func (c *OwnershipCache) Effective(r Replication) (map[string]float64, error) {
	if c.err != nil {
		return nil, c.err
	}
	if r.Class != StrategyNetworkTopology {
		sig := r.String()
		if o, ok := c.bySig[sig]; ok {
			return o, nil
		}
		o, err := c.ring.Effective(r)
		if err == nil {
			c.bySig[sig] = o
		}
		return o, err
	}
	out := make(map[string]float64, len(c.ring.nodes))
	for _, n := range c.ring.nodes {
		out[n.HostID] = 0
	}
	for dc, f := range r.DCs {
		key := dc + "\x00" + f.String()
		o, ok := c.perDC[key]
		if !ok {
			var err error
			if o, err = c.ring.Effective(Replication{Class: StrategyNetworkTopology, DCs: map[string]ReplicationFactor{dc: f}}); err != nil {
				return nil, err
			}
			c.perDC[key] = o
		}
		for _, n := range c.ring.nodes {
			if n.DC == dc {
				out[n.HostID] = o[n.HostID]
			}
		}
	}
	return out, nil
}
