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
	if !single || len(group) < 2 {
		return a.vnodeAdvice(n, group, where, max(ks.repl.FactorIn(n.DC), 1))
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

// vnodeAdvice evens out a vnode ring. Cassandra refuses nodetool move on a
// node with more than one token, and a replacement node takes over the dead
// node's tokens (docs/sources.md, "Tokens on vnode rings"): only new tokens
// help, chosen by the allocator for new or re-bootstrapped nodes.
func (a *analysis) vnodeAdvice(n *model.Node, group []*model.Node, where string, rf int) string {
	counts := make([]int, 0, len(group))
	for _, m := range group {
		if m.HostID != n.HostID {
			counts = append(counts, len(m.Tokens))
		}
	}
	sort.Ints(counts)
	mine := len(n.Tokens)
	usual := mine
	if len(counts) > 0 {
		usual = counts[len(counts)/2]
	}
	never := "nodetool move refuses a node with more than one token, and replacing " + n.Address +
		" (replace_address_first_boot) keeps its tokens, so neither evens it out"
	if a.s.Engine == model.EngineScyllaDB {
		return fmt.Sprintf("vnodes (%d tokens on %s, %d typical in %s): a ScyllaDB node draws num_tokens random tokens when it bootstraps; %s; "+
			"adding nodes to %s or re-bootstrapping %s (decommission, clear its data, bootstrap) draws new tokens; run nodetool cleanup on the other nodes of %s afterwards",
			mine, n.Address, usual, where, never, where, n.Address, where)
	}
	allocator := fmt.Sprintf("allocate_tokens_for_local_replication_factor: %d", rf)
	if mine != usual {
		return fmt.Sprintf("vnodes: %s has %d tokens where the other nodes of %s have %d, and a node's share grows with its token count; %s; "+
			"re-bootstrap %s with num_tokens: %d and %s (decommission it, clear its data directories, start it again), then run nodetool cleanup on the other nodes of %s",
			n.Address, mine, where, usual, never, n.Address, usual, allocator, where)
	}
	return fmt.Sprintf("vnodes (%d tokens on each node of %s): tokens chosen at random (without the token allocator) leave %s uneven; %s; "+
		"add nodes to %s with %s and num_tokens: %d (the allocator gives a new node the tokens that even out the DC's replicated load), "+
		"or re-bootstrap %s the same way (decommission it, clear its data directories, start it again); run nodetool cleanup on the older nodes of %s afterwards",
		mine, where, where, never, where, allocator, mine, n.Address, where)
}
