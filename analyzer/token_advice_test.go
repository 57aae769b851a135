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
			advice := tokenAdvice{a}.ownershipAdvice(a.ksByName["ks"], n, tokenAdvice{a}.allocatorChoices()[n.DC])
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

// allocatorSettings are the allocate_tokens_for_local_replication_factor
// values an advice names.
func allocatorSettings(advice string) []string {
	const key = "allocate_tokens_for_local_replication_factor: "
	var out []string
	for rest := advice; ; {
		i := strings.Index(rest, key)
		if i < 0 {
			return out
		}
		rest = rest[i+len(key):]
		out = append(out, strings.FieldsFunc(rest, func(r rune) bool { return r < '0' || r > '9' })[0])
	}
}

// The allocator takes one factor a DC (the node's cassandra.yaml): on a DC
// holding keyspaces of RF 3 and RF 1 every finding of the DC names the same
// setting, the RF of the keyspace with the most data there (ties and unknown
// sizes: the highest RF), and the other keyspace's advice says why its skew
// stays. A DC whose keyspaces share one RF gets that RF and no such remark.
func TestOneAllocatorSettingPerDC(t *testing.T) {
	const key = "kv"
	cases := []struct {
		name string
		dcs  []string // of nodes 1-4 and 5-8
		repl map[string]map[string]string
		// bytes per node of each keyspace's table, by DC
		bytes   map[string]map[string]int64
		want    map[string]string // DC → the one factor named
		explain map[string]string // keyspace → a phrase its advice carries
		plain   []string          // keyspaces whose advice needs no remark
	}{
		{name: "RF 3 holds the most data, RF 1 beside it", dcs: []string{"dc1"},
			repl:    map[string]map[string]string{"big": nts("dc1", "3"), "small": nts("dc1", "1")},
			bytes:   map[string]map[string]int64{"dc1": {"big": 10 * gib, "small": gib}},
			want:    map[string]string{"dc1": "3"},
			explain: map[string]string{"big": "one factor for all of dc1 (the allocator reads it from each joining node's cassandra.yaml): 3, the RF of big, which holds the most data in dc1 (40 GiB of 44 GiB)", "small": "small has RF 1: tokens allocated for RF 3 aim at RF 3's replicated ownership, not RF 1's"}},
		{name: "RF 1 holds the most data", dcs: []string{"dc1"},
			repl:  map[string]map[string]string{"big": nts("dc1", "3"), "small": nts("dc1", "1")},
			bytes: map[string]map[string]int64{"dc1": {"big": gib, "small": 10 * gib}},
			want:  map[string]string{"dc1": "1"}, explain: map[string]string{"big": "big has RF 3"}},
		{name: "sizes unknown: the highest RF", dcs: []string{"dc1"},
			repl: map[string]map[string]string{"big": nts("dc1", "3"), "small": nts("dc1", "1")},
			want: map[string]string{"dc1": "3"}, explain: map[string]string{"small": "the highest RF in dc1, big's (table sizes unknown)"}},
		{name: "two DCs, each its own", dcs: []string{"dc1", "dc2"},
			repl:  map[string]map[string]string{"a": nts("dc1", "3", "dc2", "1"), "b": nts("dc1", "1", "dc2", "2")},
			bytes: map[string]map[string]int64{"dc1": {"a": 10 * gib, "b": gib}, "dc2": {"a": gib, "b": 5 * gib}},
			want:  map[string]string{"dc1": "3", "dc2": "2"}},
		{name: "one RF in the DC: no remark", dcs: []string{"dc1"},
			repl:  map[string]map[string]string{"a": nts("dc1", "3"), "b": nts("dc1", "3")},
			bytes: map[string]map[string]int64{"dc1": {"a": gib, "b": 2 * gib}},
			want:  map[string]string{"dc1": "3"}, plain: []string{"a", "b"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newSnap()
			tokens := randomTokens(rand.New(rand.NewPCG(7, 7)), 4*len(c.dcs), 16)
			for i, toks := range tokens {
				b.node(hostID(i+1), addr(i+1), c.dcs[i/4], "r1", toks...)
			}
			for _, name := range []string{"a", "b", "big", "small"} {
				if r, ok := c.repl[name]; ok {
					b.keyspace(name, r, table(key, pk("k", "text", 0)))
					for i := range tokens {
						if v := c.bytes[c.dcs[i/4]][name]; v > 0 {
							b.stats(hostID(i+1), name, key, model.TableStats{DiskUsageBytes: v})
						}
					}
				}
			}
			th := DefaultThresholds()
			th.OwnershipSkewWarning, th.OwnershipSkewCritical = 1.0001, 1.0002 // every uneven node, to read the advice
			fs := ruleOwnershipSkew(analysisWith(t, b.s, nil, th))
			named := map[string]map[string]bool{}
			remarked := map[string]string{}
			for _, f := range fs {
				if named[f.DC] == nil {
					named[f.DC] = map[string]bool{}
				}
				for _, v := range allocatorSettings(f.Advice) {
					named[f.DC][v] = true
				}
				remarked[f.Keyspace] += f.Advice + " | "
			}
			for dc, want := range c.want {
				if len(named[dc]) != 1 || !named[dc][want] {
					t.Errorf("%s: advice names allocator factors %v, want %s alone", dc, named[dc], want)
				}
			}
			for ks, phrase := range c.explain {
				if !strings.Contains(remarked[ks], phrase) {
					t.Errorf("%s's advice lacks %q: %s", ks, phrase, remarked[ks])
				}
			}
			for _, ks := range c.plain {
				if remarked[ks] == "" || strings.Contains(remarked[ks], " has RF ") {
					t.Errorf("%s's advice: want findings and no remark on another RF: %s", ks, remarked[ks])
				}
			}
		})
	}
}
