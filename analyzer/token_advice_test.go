package analyzer

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/partmon/partmon/model"
)

// randomTokens draws n distinct random tokens per node, as Cassandra does
// without the token allocator.
func randomTokens(rng *rand.Rand, nodes, n int) [][]int64 {
	seen := map[int64]bool{}
	out := make([][]int64, nodes)
	for i := range out {
		for len(out[i]) < n {
			t := int64(rng.Uint64())
			if t == math.MinInt64 || seen[t] {
				continue
			}
			seen[t] = true
			out[i] = append(out[i], t)
		}
	}
	return out
}

// The advice for an uneven ring: a balanced layout with nodetool move on
// one token per node; on vnode rings never a move (Cassandra refuses it),
// the allocator for new or re-bootstrapped nodes, the node's token count
// when it is not its peers'.
func TestOwnershipAdviceByRing(t *testing.T) {
	q := int64(1) << 62
	cases := []struct {
		name    string
		tokens  [][]int64
		repl    map[string]string
		engine  model.Engine
		want    []string
		wantNot []string
	}{
		{name: "one token per node", repl: simple("1"),
			tokens:  [][]int64{{0}, {q / 2}, {q}, {math.MaxInt64}},
			want:    []string{"single-token ring: move 10.0.0.4 to token ", "(nodetool move ", "nodetool cleanup on every node of the ring"},
			wantNot: []string{"allocate_tokens", "vnodes"}},
		{name: "16 tokens per node", repl: nts("dc1", "3"), tokens: randomTokens(rand.New(rand.NewPCG(1, 1)), 4, 16),
			want: []string{"vnodes (16 tokens on each node of dc1)", "nodetool move refuses a node with more than one token",
				"replace_address_first_boot) keeps its tokens", "allocate_tokens_for_local_replication_factor: 3 and num_tokens: 16",
				"re-bootstrap 10.0.0.", "nodetool cleanup on the older nodes of dc1"},
			wantNot: []string{"(nodetool move ", "to token "}},
		{name: "256 tokens per node, SimpleStrategy", repl: simple("2"), tokens: randomTokens(rand.New(rand.NewPCG(2, 2)), 3, 256),
			want:    []string{"vnodes (256 tokens on each node of the ring)", "allocate_tokens_for_local_replication_factor: 2 and num_tokens: 256"},
			wantNot: []string{"(nodetool move ", "num_tokens: 16"}},
		{name: "one node with twice the tokens", repl: nts("dc1", "3"),
			tokens: append(randomTokens(rand.New(rand.NewPCG(3, 3)), 3, 16), randomTokens(rand.New(rand.NewPCG(4, 4)), 1, 32)...),
			want: []string{"vnodes: 10.0.0.4 has 32 tokens where the other nodes of dc1 have 16", "re-bootstrap 10.0.0.4 with num_tokens: 16 and allocate_tokens_for_local_replication_factor: 3",
				"nodetool move refuses"},
			wantNot: []string{"(nodetool move "}},
		{name: "ScyllaDB vnodes", repl: nts("dc1", "3"), engine: model.EngineScyllaDB, tokens: randomTokens(rand.New(rand.NewPCG(5, 5)), 3, 256),
			want:    []string{"a ScyllaDB node draws num_tokens random tokens when it bootstraps", "nodetool move refuses", "re-bootstrapping 10.0.0."},
			wantNot: []string{"allocate_tokens", "(nodetool move "}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newSnap()
			if c.engine != "" {
				b.s.Engine = c.engine
			}
			for i, toks := range c.tokens {
				b.node(hostID(i+1), addr(i+1), "dc1", "r1", toks...)
			}
			b.keyspace("ks", c.repl)
			a := analysisOf(t, b.s)
			n := &a.s.Nodes[len(a.s.Nodes)-1] // the odd one out where there is one
			advice := a.ownershipAdvice(a.ksByName["ks"], n)
			for _, s := range c.want {
				if !strings.Contains(advice, s) {
					t.Errorf("%s: advice lacks %q: %s", n.Address, s, advice)
				}
			}
			for _, s := range c.wantNot {
				if strings.Contains(advice, s) {
					t.Errorf("%s: advice has %q: %s", n.Address, s, advice)
				}
			}
		})
	}
}
