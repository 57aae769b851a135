package index

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/partmon/partmon/analyzer/internal/set"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/ring"
)

// Ownership is the ring's token ownership and every keyspace's effective
// ownership, computed once per index (on first use) for the rules and the
// page figures alike.
type Ownership struct {
	// RingLen is the number of nodes with tokens.
	RingLen int
	// Ring is the nodes' token ring, nil when it cannot be built.
	Ring *ring.TokenRing
	// Raw is the raw token ownership by host ID, nil without a ring.
	Raw map[string]float64
	// Keyspaces are the non-system keyspaces, by name.
	Keyspaces []*Keyspace
	// Notes say what could not be computed, in the order it was met.
	Notes []string
}

// Keyspace is a keyspace with its parsed replication and ownership.
type Keyspace struct {
	Keyspace *model.Keyspace
	// Repl is the parsed replication; zero when it was not understood.
	Repl ring.Replication
	// Owns and Skew are effective ownership and ownership ÷ fair share by
	// host ID; nil when the replication could not be used.
	Owns map[string]float64
	Skew map[string]float64
}

// ownership is the lazily built Ownership of an Index.
type ownership struct {
	once sync.Once
	o    *Ownership
}

// Ownership is the snapshot's ownership, computed on the first call.
func (ix *Index) Ownership() *Ownership {
	ix.own.once.Do(func() { ix.own.o = ownershipOf(ix.Snapshot) })
	return ix.own.o
}

func ownershipOf(s *model.Snapshot) *Ownership {
	o := &Ownership{}
	note := func(format string, args ...any) { o.Notes = append(o.Notes, fmt.Sprintf(format, args...)) }
	for i := range s.Nodes {
		if len(s.Nodes[i].Tokens) > 0 {
			o.RingLen++
		}
	}
	var rings *ring.OwnershipCache
	if o.RingLen == 0 {
		note("no node has tokens: ownership not computed")
	} else {
		rings = ring.NewOwnershipCache(s.Nodes)
		if tokens, err := rings.Ring(); err != nil {
			note("raw ownership not computed: %v", err)
		} else {
			o.Ring, o.Raw = tokens, tokens.Raw()
		}
	}
	// Keyspaces with the same replication share their ownership: compute it once.
	type owned struct {
		owns, skew map[string]float64
		err        error
	}
	cache := map[string]owned{}
	for i := range s.Schema.Keyspaces {
		ks := &s.Schema.Keyspaces[i]
		if ks.System {
			continue
		}
		v := &Keyspace{Keyspace: ks}
		o.Keyspaces = append(o.Keyspaces, v)
		r, err := ring.ParseReplication(ks.Replication)
		if err != nil {
			note("keyspace %s: replication not understood, ownership skipped: %v", ks.Name, err)
			continue
		}
		v.Repl = r
		if o.RingLen == 0 {
			continue
		}
		sig := ReplicationSignature(ks.Replication)
		c, ok := cache[sig]
		if !ok {
			c.owns, c.err = rings.Effective(r)
			if c.err == nil {
				c.skew = ring.OwnershipSkew(s.Nodes, c.owns, r)
			}
			cache[sig] = c
		}
		if c.err != nil {
			note("keyspace %s: ownership skipped: %v", ks.Name, c.err)
			continue
		}
		v.Owns, v.Skew = c.owns, c.skew
	}
	sort.Slice(o.Keyspaces, func(i, j int) bool { return o.Keyspaces[i].Keyspace.Name < o.Keyspaces[j].Keyspace.Name })
	return o
}

// ReplicationSignature is a replication map in a canonical form: keyspaces
// with the same signature place their replicas alike.
func ReplicationSignature(m map[string]string) string {
	var b strings.Builder
	for _, k := range set.Keys(m) {
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(m[k])
		b.WriteByte(';')
	}
	return b.String()
}

// FullReplica: a node owning this much of a keyspace holds all of it, so
// routing, not placement, decides its share of the traffic.
const FullReplica = 0.999

// PlacementGroup is the set of nodes that share a keyspace's replicas: the
// DC for NetworkTopologyStrategy, the whole ring otherwise.
func PlacementGroup(r ring.Replication, n *model.Node) string {
	if r.Class == ring.StrategyNetworkTopology {
		return n.DC
	}
	return ""
}
