package ring

import "sort"

// networkTopologyOwnership is NetworkTopologyStrategy. Cassandra walks the
// whole ring from each token, filling every DC at once; a DC's choice depends
// only on its own nodes in ring order (racks are keyed by (dc, rack)), so
// each DC is computed alone on its own sub-ring. All ring tokens whose walk
// meets the same DC token first get the same replicas in that DC, so each
// sub-ring position is walked once, weighted by the shares of those tokens.
func (ring *TokenRing) networkTopologyOwnership(dcs map[string]ReplicationFactor, owns []float64) {
	dcNames, subRings, _ := ring.dcSubRings(dcs)
	for d, sub := range subRings {
		if len(sub.node) == 0 {
			continue // a DC in the map with no nodes
		}
		ring.dcOwnership(sub, dcs[dcNames[d]].All, owns)
	}
}

// dcSubRings splits the ring into the sub-rings of the DCs that get
// replicas (see splitByDC), each position weighted by the shares of the
// ring tokens whose walk meets it first.
func (ring *TokenRing) dcSubRings(dcs map[string]ReplicationFactor) ([]string, []*dcRing, []int) {
	dcNames, subRings, nodeDC, nodeRack := ring.splitByDC(dcs)
	// A ring token's walk meets first, in each DC, the DC token at or after
	// it: pending[d] collects the shares of ring tokens until the next DC
	// token; what is left after the last one wraps to the first.
	pending := make([]float64, len(subRings))
	for i, owner := range ring.owner {
		for d := range pending {
			pending[d] += ring.share[i]
		}
		d := nodeDC[owner]
		if d < 0 {
			continue
		}
		sub := subRings[d]
		r := nodeRack[owner]
		sub.rackPos[r] = append(sub.rackPos[r], int32(len(sub.node)))
		sub.node = append(sub.node, owner)
		sub.rack = append(sub.rack, r)
		sub.weight = append(sub.weight, pending[d])
		pending[d] = 0
	}
	for d, sub := range subRings {
		if len(sub.node) > 0 {
			sub.weight[0] += pending[d]
		}
	}
	return dcNames, subRings, nodeDC
}

// splitByDC numbers the DCs that get replicas (by name) and each one's racks,
// and makes each DC's empty sub-ring, sized for its tokens. nodeDC[i] is node
// i's DC number (-1: no replicas there, or no tokens), nodeRack[i] its rack
// number within that DC.
func (ring *TokenRing) splitByDC(dcs map[string]ReplicationFactor) (dcNames []string, subRings []*dcRing, nodeDC []int, nodeRack []int32) {
	for dc, rf := range dcs {
		if rf.All > 0 {
			dcNames = append(dcNames, dc)
		}
	}
	sort.Strings(dcNames)
	dcIndex := make(map[string]int, len(dcNames))
	for i, dc := range dcNames {
		dcIndex[dc] = i
	}
	nodeDC = make([]int, len(ring.nodes))
	nodeRack = make([]int32, len(ring.nodes))
	rackIndex := make(map[[2]string]int32)
	rackTokens := make([][]int, len(dcNames)) // per DC, per rack: token count, to size rackPos
	subRings = make([]*dcRing, len(dcNames))
	for i := range subRings {
		subRings[i] = &dcRing{}
	}
	for i, n := range ring.nodes {
		d, ok := dcIndex[n.DC]
		if !ok || !ring.hasTokens[i] {
			nodeDC[i] = -1
			continue
		}
		nodeDC[i] = d
		subRings[d].members++
		r, seen := rackIndex[[2]string{n.DC, n.Rack}]
		if !seen {
			r = int32(len(rackTokens[d]))
			rackIndex[[2]string{n.DC, n.Rack}] = r
			rackTokens[d] = append(rackTokens[d], 0)
		}
		nodeRack[i] = r
		rackTokens[d][r] += len(n.Tokens)
	}
	for d, sub := range subRings {
		total := 0
		sub.rackPos = make([][]int32, len(rackTokens[d]))
		for r, count := range rackTokens[d] {
			sub.rackPos[r] = make([]int32, 0, count)
			total += count
		}
		sub.node = make([]int32, 0, total)
		sub.rack = make([]int32, 0, total)
		sub.weight = make([]float64, 0, total)
	}
	return dcNames, subRings, nodeDC, nodeRack
}

// dcRing is one datacenter's sub-ring: its tokens in ring order.
type dcRing struct {
	node []int32 // owner, an index into the nodes slice
	rack []int32 // rack index within the DC
	// weight is the sum of the shares of the ring tokens whose walk meets
	// this DC token first in the DC.
	weight []float64
	// rackPos[r] are the sub-ring positions of rack r, ascending.
	rackPos [][]int32
	members int
}

// linearRackSearch is how many tokens a walk looks at one by one for an
// unseen rack before it asks every unseen rack for its next position.
const linearRackSearch = 64

// dcOwnership adds one DC's effective ownership to owns, following
// NetworkTopologyStrategy.DatacenterEndpoints: rfLeft = min(rf, nodes in
// DC), acceptableRackRepeats = rf - racks in DC; a node from an unseen rack
// is always taken, one from a seen rack only while repeats are left.
func (ring *TokenRing) dcOwnership(d *dcRing, rf int, owns []float64) {
	if min(rf, d.members) == d.members {
		// Every node of the DC replicates every range.
		total := ring.totalShare()
		for _, node := range d.node {
			owns[node] = total
		}
		return
	}
	ring.dcWalks(d, rf, func(start int, chosen []int32) {
		for _, node := range chosen {
			owns[node] += d.weight[start]
		}
	})
}

// dcWalks calls visit with the replicas in this DC of every sub-ring
// position, in placement order (NetworkTopologyStrategy.DatacenterEndpoints,
// see dcOwnership). chosen is reused between calls.
func (ring *TokenRing) dcWalks(d *dcRing, rf int, visit func(start int, chosen []int32)) {
	m := len(d.node)
	racks := len(d.rackPos)
	needed := min(rf, d.members)
	chosenIn := make([]int, len(ring.nodes))
	rackSeenIn := make([]int, racks)
	chosen := make([]int32, 0, needed)
	for start := range m {
		walk := start + 1
		chosen = chosen[:0]
		left, repeats := needed, rf-racks
		for q, steps := start, 0; left > 0 && steps < m; {
			if repeats <= 0 {
				// Only a node from an unseen rack can be taken now.
				dist, ok := d.nextUnseenRack(q, m-steps, rackSeenIn, walk)
				if !ok {
					break
				}
				q, steps = (q+dist)%m, steps+dist
			}
			node, rack := d.node[q], d.rack[q]
			if chosenIn[node] != walk {
				if rackSeenIn[rack] == walk {
					repeats--
				}
				rackSeenIn[rack] = walk
				chosenIn[node] = walk
				chosen = append(chosen, node)
				left--
			}
			if q++; q == m {
				q = 0
			}
			steps++
		}
		visit(start, chosen)
	}
}

// nextUnseenRack is the distance from q to the first sub-ring position
// whose rack was not seen in this walk, if it is below limit. It scans a few
// positions, then asks each unseen rack for its next position, so a rack
// with few tokens costs a binary search rather than a lap of the ring.
func (d *dcRing) nextUnseenRack(q, limit int, rackSeenIn []int, walk int) (int, bool) {
	m := len(d.node)
	scan := min(limit, linearRackSearch)
	for dist := range scan {
		p := q + dist
		if p >= m {
			p -= m
		}
		if rackSeenIn[d.rack[p]] != walk {
			return dist, true
		}
	}
	best := limit
	for r, positions := range d.rackPos {
		if rackSeenIn[r] == walk {
			continue
		}
		k := sort.Search(len(positions), func(k int) bool { return int(positions[k]) >= q })
		var dist int
		if k < len(positions) {
			dist = int(positions[k]) - q
		} else {
			dist = int(positions[0]) + m - q
		}
		best = min(best, dist)
	}
	return best, best < limit
}
