// Package ring is the token ring's arithmetic as Cassandra computes it for
// nodetool: every token's share, each node's raw and effective ownership
// under SimpleStrategy, NetworkTopologyStrategy (racks, vnodes, transient
// replicas) and EverywhereStrategy, replication maps as system_schema stores
// them, and every range's replica set. It knows nothing of an analysis: it
// takes a snapshot's nodes and gives figures by host ID.
package ring

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/partmon/partmon/model"
)

// Ownership is computed the way nodetool computes "Owns" (Cassandra 4.0-5.0,
// docs/sources.md, "Ownership"): Murmur3Partitioner.describeOwnership gives
// every token the share of the ring in (predecessor, token], rounded to six
// decimals; StorageService sums those shares per node, over the node's own
// tokens (raw) or over every range it replicates (effective).
//
// nodetool keeps each share as a Java float and sums floats; partmon keeps
// the same rounded shares in float64, which differs by less than 1e-6.

// ringUnits is the ring size describeOwnership divides by: Long.MAX_VALUE -
// (Long.MIN_VALUE + 1) = 2^64 - 2. Gaps are taken modulo it too.
const ringUnits uint64 = math.MaxUint64 - 1

// shareScale is 10^(describeOwnership's BigDecimal scale).
const shareScale = 1_000_000

// errNoTokens is returned for a ring without a single token.
var errNoTokens = errors.New("no node has tokens: the ring is empty")

// TokenRing is the sorted token ring of a snapshot's nodes with every
// token's nodetool share. Build it once per snapshot with NewTokenRing when
// computing several keyspaces: sorting 256k vnodes is a good part of the
// cost. It is read-only after construction and safe for concurrent use.
type TokenRing struct {
	tokens []int64
	owner  []int32 // index into nodes
	share  []float64
	nodes  []model.Node
	// hasTokens[i] is true when nodes[i] owns at least one token: nodes
	// without tokens are not ring members for the replication strategies.
	hasTokens []bool
}

// NewTokenRing builds the ring. Duplicate tokens or host IDs and nodes
// without a host ID are errors (Cassandra would not form such a ring, so the
// snapshot is inconsistent); so is a ring without tokens.
func NewTokenRing(nodes []model.Node) (*TokenRing, error) {
	return buildTokenRing(nodes)
}

// Len is the number of tokens of the ring, which is also its number of ranges.
func (ring *TokenRing) Len() int { return len(ring.tokens) }

// RawOwnership is nodetool status without a keyspace when effective
// ownership is unavailable (StorageService.getOwnershipWithPort): each node's
// share of the token ring, with no replication. Keyed by host ID; a node
// without tokens owns 0. The values add up to 1 (up to rounding).
func RawOwnership(nodes []model.Node) (map[string]float64, error) {
	ring, err := buildTokenRing(nodes)
	if err != nil {
		return nil, err
	}
	return ring.Raw(), nil
}

// Raw is RawOwnership of the ring's nodes.
func (ring *TokenRing) Raw() map[string]float64 {
	owns := make([]float64, len(ring.nodes))
	for i, s := range ring.share {
		owns[ring.owner[i]] += s
	}
	return ring.byHostID(owns)
}

// EffectiveOwnership is "Owns (effective)" of nodetool status <keyspace>:
// the share of the keyspace's data each node holds a replica of (full and
// transient replicas alike, as Cassandra counts them). Within a datacenter
// the values add up to min(RF, nodes). Keyed by host ID; nodes that hold no
// replica (no tokens, or a DC the keyspace does not replicate to) get 0.
func EffectiveOwnership(nodes []model.Node, r Replication) (map[string]float64, error) {
	ring, err := buildTokenRing(nodes)
	if err != nil {
		return nil, err
	}
	return ring.Effective(r)
}

// Effective is EffectiveOwnership of the ring's nodes.
func (ring *TokenRing) Effective(r Replication) (map[string]float64, error) {
	owns := make([]float64, len(ring.nodes))
	switch r.Class {
	case StrategySimple:
		ring.simpleOwnership(r.Factor.All, owns)
	case StrategyNetworkTopology:
		ring.networkTopologyOwnership(r.DCs, owns)
	case StrategyEverywhere:
		total := ring.totalShare()
		for i := range owns {
			if ring.hasTokens[i] {
				owns[i] = total
			}
		}
	case StrategyLocal:
		return nil, errors.New("ownership of a LocalStrategy keyspace is meaningless: every node keeps its own data")
	case "":
		return nil, errors.New("replication has no class")
	default:
		return nil, fmt.Errorf("replication class %q is not supported", r.Class)
	}
	return ring.byHostID(owns), nil
}

// OwnershipSkew is each node's ownership ÷ its fair share: 1 is fair, 1.2
// owns 20 % more than its share. The fair share in a datacenter is
// min(RF_dc, N_dc) ÷ N_dc, N_dc being the DC's nodes with tokens: RF is capped
// because a DC of N nodes holds at most N copies, and that is exactly what its
// effective ownerships add up to. SimpleStrategy ignores datacenters, so its
// fair share is min(RF, N) ÷ N over the whole ring. For raw ownership (pass
// the zero Replication) RF is 1 over the whole ring: fair = 1 ÷ N. With
// EverywhereStrategy the fair share is 1.
//
// Nodes whose DC receives no replicas, and nodes missing from owns, are left
// out; so is everything for a class without a fair share (LocalStrategy,
// unknown classes).
func OwnershipSkew(nodes []model.Node, owns map[string]float64, r Replication) map[string]float64 {
	ringNodes := 0
	perDC := make(map[string]int)
	for _, n := range nodes {
		if len(n.Tokens) > 0 {
			ringNodes++
			perDC[n.DC]++
		}
	}
	fairShare := func(n model.Node) float64 {
		switch r.Class {
		case "":
			if ringNodes == 0 {
				return 0
			}
			return 1 / float64(ringNodes)
		case StrategySimple:
			if ringNodes == 0 {
				return 0
			}
			return float64(min(r.Factor.All, ringNodes)) / float64(ringNodes)
		case StrategyNetworkTopology:
			inDC := perDC[n.DC]
			if inDC == 0 {
				return 0
			}
			return float64(min(r.DCs[n.DC].All, inDC)) / float64(inDC)
		case StrategyEverywhere:
			return 1
		}
		return 0
	}
	skew := make(map[string]float64, len(nodes))
	for _, n := range nodes {
		o, ok := owns[n.HostID]
		fair := fairShare(n)
		if !ok || fair <= 0 {
			continue
		}
		skew[n.HostID] = o / fair
	}
	return skew
}

// ownedToken is a token with the index of its node.
type ownedToken struct {
	token int64
	owner int32
}

// sortOwnedTokens sorts by token with an LSD radix sort of eight byte-wide
// digits: for 256k vnodes several times faster than a comparison sort (and
// than wider digits, whose buckets no longer fit the cache), which matters
// as the ring is built for every keyspace. It may return the scratch
// buffer rather than its argument.
func sortOwnedTokens(a []ownedToken) []ownedToken {
	if len(a) < 256 {
		slices.SortFunc(a, func(x, y ownedToken) int { return cmp.Compare(x.token, y.token) })
		return a
	}
	// Flipping the sign bit orders signed tokens as unsigned keys.
	key := func(t int64) uint64 { return uint64(t) ^ 1<<63 }
	buf := make([]ownedToken, len(a))
	var count [256]int
	for shift := uint(0); shift < 64; shift += 8 {
		clear(count[:])
		for _, ot := range a {
			count[key(ot.token)>>shift&0xff]++
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for _, ot := range a {
			d := key(ot.token) >> shift & 0xff
			buf[count[d]] = ot
			count[d]++
		}
		a, buf = buf, a
	}
	return a
}

// buildTokenRing sorts every node's tokens into one ring and computes the
// shares.
func buildTokenRing(nodes []model.Node) (*TokenRing, error) {
	if len(nodes) > math.MaxInt32 {
		return nil, fmt.Errorf("%d nodes is more than the ring can index", len(nodes))
	}
	total := 0
	seenHosts := make(map[string]int, len(nodes))
	for i, n := range nodes {
		if n.HostID == "" {
			return nil, fmt.Errorf("node %q has no host ID", n.Address)
		}
		if j, dup := seenHosts[n.HostID]; dup {
			return nil, fmt.Errorf("host ID %s appears twice (nodes %q and %q)", n.HostID, nodes[j].Address, n.Address)
		}
		seenHosts[n.HostID] = i
		total += len(n.Tokens)
	}
	if total == 0 {
		return nil, errNoTokens
	}
	all := make([]ownedToken, 0, total)
	for i, n := range nodes {
		for _, t := range n.Tokens {
			all = append(all, ownedToken{token: t, owner: int32(i)})
		}
	}
	all = sortOwnedTokens(all)
	ring := &TokenRing{
		tokens:    make([]int64, total),
		owner:     make([]int32, total),
		nodes:     nodes,
		hasTokens: make([]bool, len(nodes)),
	}
	for i, ot := range all {
		if i > 0 && ot.token == all[i-1].token {
			return nil, fmt.Errorf("token %d is claimed twice (by %q and %q)", ot.token, nodes[all[i-1].owner].Address, nodes[ot.owner].Address)
		}
		ring.tokens[i] = ot.token
		ring.owner[i] = ot.owner
		ring.hasTokens[ot.owner] = true
	}
	ring.share = describeOwnership(ring.tokens)
	return ring, nil
}

// describeOwnership is Murmur3Partitioner.describeOwnership over sorted,
// distinct tokens: share(t_i) = ((t_i - t_{i-1} + R) mod R) / R rounded to six
// decimals HALF_EVEN, t_0 measured from the last token; a lone token owns 1.
func describeOwnership(sorted []int64) []float64 {
	shares := make([]float64, len(sorted))
	if len(sorted) == 1 {
		shares[0] = 1
		return shares
	}
	for i := 1; i < len(sorted); i++ {
		// The true gap is in [1, 2^64-1]: exact as a wrapping uint64 difference.
		gap := uint64(sorted[i]) - uint64(sorted[i-1])
		if gap >= ringUnits {
			gap -= ringUnits // Java's BigInteger mod R, for gaps of 2^64-2 and 2^64-1
		}
		shares[i] = roundedShare(gap)
	}
	// The first token's gap is t_0 - t_last + R, a value in [-1, 2^64-3];
	// the wrapping difference below is that value + 2.
	wrapped := uint64(sorted[0]) - uint64(sorted[len(sorted)-1])
	var gap uint64
	if wrapped >= 2 {
		gap = wrapped - 2
	} else {
		gap = ringUnits - 1 // -1 mod R
	}
	shares[0] = roundedShare(gap)
	return shares
}

// roundedShare is gap/R rounded HALF_EVEN to six decimals, gap < R. With
// R = 2·(2^63-1) and 2^63-1 odd and prime to 5, a tie cannot occur, but the
// rule costs nothing.
func roundedShare(gap uint64) float64 {
	hi, lo := bits.Mul64(gap, shareScale)
	q, rem := bits.Div64(hi, lo, ringUnits) // hi < shareScale < R: no overflow
	if half := ringUnits - rem; rem > half || (rem == half && q%2 == 1) {
		q++
	}
	return float64(q) / shareScale
}

func (ring *TokenRing) totalShare() float64 {
	total := 0.0
	for _, s := range ring.share {
		total += s
	}
	return total
}

func (ring *TokenRing) byHostID(owns []float64) map[string]float64 {
	out := make(map[string]float64, len(owns))
	for i, o := range owns {
		out[ring.nodes[i].HostID] = o
	}
	return out
}

// simpleOwnership is SimpleStrategy: the replicas of (pred(t), t] are the
// first rf distinct nodes met walking clockwise from t.
func (ring *TokenRing) simpleOwnership(rf int, owns []float64) {
	members := 0
	for _, has := range ring.hasTokens {
		if has {
			members++
		}
	}
	if rf <= 0 {
		return
	}
	if rf >= members {
		// Every node replicates every range: skip walks that would each
		// have to find all nodes.
		total := ring.totalShare()
		for i, has := range ring.hasTokens {
			if has {
				owns[i] = total
			}
		}
		return
	}
	ring.simpleWalks(rf, func(start int, chosen []int32) {
		for _, node := range chosen {
			owns[node] += ring.share[start]
		}
	})
}

// simpleWalks calls visit with the replicas of every range (pred(t), t] in
// ring order, each the first rf distinct nodes met walking clockwise from
// t (fewer when the ring has fewer). chosen is reused between calls.
func (ring *TokenRing) simpleWalks(rf int, visit func(start int, chosen []int32)) {
	n := len(ring.tokens)
	// chosenIn[node] == walk marks the nodes already taken by this walk,
	// so no set is cleared between walks. A walk skips only tokens of nodes
	// it has chosen: at most rf × tokens-per-node steps.
	chosenIn := make([]int, len(ring.nodes))
	chosen := make([]int32, 0, rf)
	for start := range n {
		walk := start + 1
		chosen = chosen[:0]
		for q, steps := start, 0; len(chosen) < rf && steps < n; steps++ {
			node := ring.owner[q]
			if chosenIn[node] != walk {
				chosenIn[node] = walk
				chosen = append(chosen, node)
			}
			if q++; q == n {
				q = 0
			}
		}
		visit(start, chosen)
	}
}
