package analyzer

import (
	"fmt"
	"math"
	"math/bits"
	"sort"
	"strconv"
	"strings"

	"github.com/partmon/partmon/analyzer/index"
	"github.com/partmon/partmon/internal/format"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/ring"
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

// allocatorChoice is the one allocate_tokens_for_local_replication_factor
// partmon names for a DC. The allocator reads it from the bootstrapping
// node's cassandra.yaml and evens out the DC's replicated ownership for that
// one factor (TokenAllocation, 4.0+), so every keyspace of the DC is served
// by the same value. Chosen: the RF of the keyspace holding the most data in
// the DC (where an uneven node costs most disk), ties and unknown sizes by
// the highest RF, then by name.
type allocatorChoice struct {
	rf       int
	keyspace string
	bytes    float64 // the keyspace's disk usage over the DC's nodes; 0 unknown
	total    float64 // every judged keyspace's
}

// allocatorChoices is each DC's allocatorChoice, by DC name.
func (a tokenAdvice) allocatorChoices() map[string]allocatorChoice {
	bytes := map[string]map[string]float64{}
	for _, t := range a.tables {
		for _, tn := range t.nodes {
			if tn.stats == nil || tn.node == nil {
				continue
			}
			if bytes[tn.node.DC] == nil {
				bytes[tn.node.DC] = map[string]float64{}
			}
			bytes[tn.node.DC][t.keyspace] += float64(max(tn.stats.DiskUsageBytes, 0))
		}
	}
	out := map[string]allocatorChoice{}
	for _, n := range a.s.Nodes {
		if _, done := out[n.DC]; done || len(n.Tokens) == 0 {
			continue
		}
		var best allocatorChoice
		for _, ks := range a.keyspaces { // by name
			rf := ks.repl.FactorIn(n.DC)
			if ks.skew == nil || ks.repl.Class == ring.StrategyEverywhere || rf < 1 {
				continue
			}
			b := bytes[n.DC][ks.ks.Name]
			best.total += b
			if best.keyspace == "" || b > best.bytes || (b == best.bytes && rf > best.rf) {
				best.rf, best.keyspace, best.bytes = rf, ks.ks.Name, b
			}
		}
		out[n.DC] = best
	}
	return out
}

// allocatorWhy says which factor the DC's allocator gets and why, and what
// it means for this keyspace when its RF is another.
func allocatorWhy(ks *keyspaceView, dc string, c allocatorChoice) string {
	why := fmt.Sprintf("the RF of %s, which holds the most data in %s (%s of %s)", c.keyspace, dc, format.Bytes(c.bytes), format.Bytes(c.total))
	if c.bytes <= 0 {
		why = fmt.Sprintf("the highest RF in %s, %s's (table sizes unknown)", dc, c.keyspace)
	}
	s := fmt.Sprintf("one factor for all of %s (the allocator reads it from each joining node's cassandra.yaml): %d, %s", dc, c.rf, why)
	rf := ks.repl.FactorIn(dc)
	if rf == c.rf || c.keyspace == "" {
		return s
	}
	return s + fmt.Sprintf("; %s has RF %d: tokens allocated for RF %d aim at RF %d's replicated ownership, not RF %d's, so part of %s's skew can remain with that setting; "+
		"choose %d instead only if %s's balance matters more than %s's",
		ks.ks.Name, rf, c.rf, c.rf, rf, ks.ks.Name, rf, ks.ks.Name, c.keyspace)
}

// ownershipAdvice says how to even out a node's ownership: with one token
// per node, the balanced token layout of its group (moving this node, and
// naming the others' targets); with vnodes, the token allocator at the
// DC's one factor (choice).
func (a tokenAdvice) ownershipAdvice(ks *keyspaceView, n *model.Node, choice allocatorChoice) string {
	var group []*model.Node
	for i := range a.s.Nodes {
		m := &a.s.Nodes[i]
		if len(m.Tokens) > 0 && index.PlacementGroup(ks.repl, m) == index.PlacementGroup(ks.repl, n) {
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
	if g := index.PlacementGroup(ks.repl, n); g != "" {
		where = g
	}
	if !single || len(group) < 2 {
		if choice.rf < 1 { // no keyspace to choose from: this one's factor
			choice = allocatorChoice{rf: max(ks.repl.FactorIn(n.DC), 1), keyspace: ks.ks.Name}
		}
		return a.vnodeAdvice(ks, n, group, where, choice)
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
func (a tokenAdvice) vnodeAdvice(ks *keyspaceView, n *model.Node, group []*model.Node, where string, choice allocatorChoice) string {
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
	allocator := fmt.Sprintf("allocate_tokens_for_local_replication_factor: %d", choice.rf)
	why := allocatorWhy(ks, n.DC, choice)
	if mine != usual {
		return fmt.Sprintf("vnodes: %s has %d tokens where the other nodes of %s have %d, and a node's share grows with its token count; %s; "+
			"re-bootstrap %s with num_tokens: %d and %s (decommission it, clear its data directories, start it again), then run nodetool cleanup on the other nodes of %s; %s",
			n.Address, mine, where, usual, never, n.Address, usual, allocator, where, why)
	}
	return fmt.Sprintf("vnodes (%d tokens on each node of %s): tokens chosen at random (without the token allocator) leave %s uneven; %s; "+
		"add nodes to %s with %s and num_tokens: %d (the allocator gives a new node the tokens that even out the DC's replicated load), "+
		"or re-bootstrap %s the same way (decommission it, clear its data directories, start it again); run nodetool cleanup on the older nodes of %s afterwards; %s",
		mine, where, where, never, where, allocator, mine, n.Address, where, why)
}

// tokenAdvice is the ownership rules' advice on tokens: the allocator a keyspace can use, vnode counts.
type tokenAdvice struct{ *analysis }
