package analyzer

import (
	"fmt"
	"math"
	"math/bits"
	"sort"
	"strconv"
	"strings"

	"github.com/partmon/partmon/model"
)

// balancedTokens spaces n single-token nodes evenly around the ring. tokens
// are the nodes' current tokens, sorted; the result keeps their order and
// anchors the layout on the node whose choice moves the others least.
func balancedTokens(tokens []int64) []int64 {
	n := len(tokens)
	if n < 2 {
		return append([]int64(nil), tokens...)
	}
	step, _ := bits.Div64(1, 0, uint64(n)) // 2^64 ÷ n
	layout := func(anchor int) []int64 {
		out := make([]int64, n)
		for i := range tokens {
			t := int64(uint64(tokens[anchor]) + uint64(i-anchor)*step)
			if t == math.MinInt64 { // the minimum token is never a node's
				t++
			}
			out[i] = t
		}
		return out
	}
	best, bestCost := 0, math.Inf(1)
	for k := range tokens {
		cost := 0.0
		for i, t := range layout(k) {
			cost += ringDistance(tokens[i], t)
		}
		if cost < bestCost {
			best, bestCost = k, cost
		}
	}
	return layout(best)
}

// ringDistance is the shorter way around the ring between two tokens.
func ringDistance(a, b int64) float64 {
	d := uint64(a - b)
	return float64(min(d, -d))
}

// ownershipAdvice says how to even out a node's ownership: with one token
// per node, the balanced token layout of its group (moving this node, and
// naming the others' targets); with vnodes, the token allocator.
func (a *analysis) ownershipAdvice(ks *keyspaceView, n *model.Node) string {
	var group []*model.Node
	for i := range a.s.Nodes {
		m := &a.s.Nodes[i]
		if len(m.Tokens) > 0 && placementGroup(ks.repl, m) == placementGroup(ks.repl, n) {
			group = append(group, m)
		}
	}
	single := true
	for _, m := range group {
		if len(m.Tokens) != 1 {
			single = false
		}
	}
	where := "the ring"
	if g := placementGroup(ks.repl, n); g != "" {
		where = g
	}
	rf := ks.repl.FactorIn(n.DC)
	if !single || len(group) < 2 {
		return fmt.Sprintf("vnodes (%d tokens on %s): random token choice leaves %s uneven; new nodes should use allocate_tokens_for_local_replication_factor: %d (num_tokens: 16); to fix %s itself, decommission it and bootstrap it again with that setting, then run nodetool cleanup on the other nodes of %s",
			len(n.Tokens), n.Address, where, max(rf, 1), n.Address, where)
	}
	sort.Slice(group, func(i, j int) bool { return group[i].Tokens[0] < group[j].Tokens[0] })
	current := make([]int64, len(group))
	for i, m := range group {
		current[i] = m.Tokens[0]
	}
	target := balancedTokens(current)
	var mine int64
	var moves []string
	for i, m := range group {
		if m.HostID == n.HostID {
			mine = target[i]
		}
		if target[i] != current[i] && len(moves) < 8 {
			moves = append(moves, m.Address+" → "+strconv.FormatInt(target[i], 10))
		}
	}
	return fmt.Sprintf("single-token ring: move %s to token %d (nodetool move %d) so %s's %d nodes are evenly spaced; the balanced layout moves %s; run nodetool cleanup on every node of %s afterwards",
		n.Address, mine, mine, where, len(group), strings.Join(moves, ", "), where)
}
