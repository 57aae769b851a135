package ring

import (
	"errors"
	"fmt"

	"github.com/partmon/partmon/model"
)

// TokenRange is the range (Start, End] of the ring; the first range wraps
// (Start is the ring's last token). Share is its nodetool share.
type TokenRange struct {
	Start, End int64
	Share      float64
}

// DCReplicas are the replicas one DC holds of every range (SimpleStrategy
// and EverywhereStrategy: DC "" is the whole ring).
type DCReplicas struct {
	DC string
	RF int
	// Holders[i] are the host IDs holding range i's replicas in placement
	// order: Holders[i][0] is the first replica met walking from its end.
	Holders [][]string
}

// ReplicaSets are the replica holders of every range of the ring under r,
// placed by the same walks as Effective (so the shares of the ranges a node
// holds add up to its effective ownership).
func (ring *TokenRing) ReplicaSets(r Replication) ([]TokenRange, []DCReplicas, error) {
	n := len(ring.tokens)
	ranges := make([]TokenRange, n)
	for i, t := range ring.tokens {
		ranges[i] = TokenRange{Start: ring.tokens[(i+n-1)%n], End: t, Share: ring.share[i]}
	}
	ids := func(chosen []int32) []string {
		out := make([]string, len(chosen))
		for k, node := range chosen {
			out[k] = ring.nodes[node].HostID
		}
		return out
	}
	switch r.Class {
	case StrategySimple, StrategyEverywhere:
		rf := r.Factor.All
		if r.Class == StrategyEverywhere {
			rf = len(ring.nodes)
		}
		dc := DCReplicas{RF: rf, Holders: make([][]string, n)}
		if rf > 0 {
			ring.simpleWalks(rf, func(start int, chosen []int32) { dc.Holders[start] = ids(chosen) })
		}
		return ranges, []DCReplicas{dc}, nil
	case StrategyNetworkTopology:
		return ranges, ring.dcReplicaSets(r.DCs, ids), nil
	case StrategyLocal:
		return nil, nil, errors.New("a LocalStrategy keyspace has no replica sets: every node keeps its own data")
	}
	return nil, nil, fmt.Errorf("replication class %q is not supported", r.Class)
}

// dcReplicaSets maps every ring token to the sub-ring position its walk
// meets first in each DC, and gives it that position's replicas.
func (ring *TokenRing) dcReplicaSets(dcs map[string]ReplicationFactor, ids func([]int32) []string) []DCReplicas {
	dcNames, subRings, nodeDC := ring.dcSubRings(dcs)
	out := make([]DCReplicas, 0, len(dcNames))
	for d, sub := range subRings {
		rf := dcs[dcNames[d]].All
		dc := DCReplicas{DC: dcNames[d], RF: rf, Holders: make([][]string, len(ring.tokens))}
		m := len(sub.node)
		if m == 0 {
			out = append(out, dc)
			continue
		}
		atPos := make([][]string, m)
		ring.dcWalks(sub, rf, func(start int, chosen []int32) { atPos[start] = ids(chosen) })
		next := 0 // the sub-ring position at or after ring token i
		for i, owner := range ring.owner {
			dc.Holders[i] = atPos[next%m]
			if nodeDC[owner] == d {
				next++
			}
		}
		out = append(out, dc)
	}
	return out
}

// ReplicaSets is TokenRing.ReplicaSets of nodes' ring.
func ReplicaSets(nodes []model.Node, r Replication) ([]TokenRange, []DCReplicas, error) {
	ring, err := buildTokenRing(nodes)
	if err != nil {
		return nil, nil, err
	}
	return ring.ReplicaSets(r)
}
