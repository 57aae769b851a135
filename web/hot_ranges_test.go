package web

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/ring"
)

// vnodeReport is nodes × perNode random tokens (Cassandra's choice without
// the allocator), one keyspace ks placed by SimpleStrategy RF 3, and hot
// keys sampled in ks.t at the given tokens.
func vnodeReport(t *testing.T, nodes, perNode int, hot map[string]int64) *analyzer.Report {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(nodes), uint64(perNode)))
	var ms []model.Node
	seen := map[int64]bool{}
	for i := range nodes {
		n := model.Node{HostID: fmt.Sprintf("h%02d", i), Address: fmt.Sprintf("10.0.0.%d", i+1), DC: "dc1", Rack: fmt.Sprintf("r%d", i%3+1)}
		for len(n.Tokens) < perNode {
			if tok := int64(rng.Uint64()); !seen[tok] {
				seen[tok] = true
				n.Tokens = append(n.Tokens, tok)
			}
		}
		sort.Slice(n.Tokens, func(a, b int) bool { return n.Tokens[a] < n.Tokens[b] })
		ms = append(ms, n)
	}
	repl := ring.Replication{Class: ring.StrategySimple, Factor: ring.ReplicationFactor{All: 3}}
	ranges, dcs, err := ring.ReplicaSets(ms, repl)
	if err != nil {
		t.Fatal(err)
	}
	r := &analyzer.Report{Placements: []analyzer.Placement{{Keyspaces: []string{"ks"}, Replication: "SimpleStrategy rf 3", Ranges: ranges, DCs: dcs}}}
	for _, n := range ms {
		r.Nodes = append(r.Nodes, analyzer.NodeSummary{HostID: n.HostID, Address: n.Address, DC: n.DC, Rack: n.Rack, TokenValues: n.Tokens})
	}
	m := analyzer.HeatMap{Keyspace: "ks", Table: "t"}
	// Listed coldest first ("warm" at 0.45, then "hot" at 0.9): the page sorts.
	keys := make([]string, 0, len(hot))
	for k := range hot {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	share := 0.45
	for _, key := range slices.Backward(keys) {
		m.Keys = append(m.Keys, analyzer.HeatKey{Keyspace: "ks", Table: "t", Key: key, Token: hot[key], OK: true, Share: share})
		share *= 2
	}
	m.Keys = append(m.Keys, analyzer.HeatKey{Keyspace: "ks", Table: "t", Key: "unplaced", Why: "no token: type varint is not supported"})
	r.Heat = &analyzer.HeatMaps{Maps: []analyzer.HeatMap{m}}
	return r
}

// walkReplicas is SimpleStrategy rf 3 by walkPlacement: the range holding
// token and its three replicas.
func walkReplicas(r *analyzer.Report, token int64) (start, end int64, owners []string) {
	start, end, per := walkPlacement(r, token, ring.Replication{Class: ring.StrategySimple, Factor: ring.ReplicationFactor{All: 3}})
	return start, end, per[""]
}

// walkPlacement works placement out apart from the analyzer: the range
// holding token ends at the first ring token at or after it; its replicas
// are met walking clockwise from there. SimpleStrategy takes the first rf
// distinct nodes (DC ""). NetworkTopologyStrategy fills each DC's rf
// (at most its nodes) with nodes of racks not yet seen in that DC, and
// takes a node of a seen rack only while rf minus the DC's racks allows
// repeats (NetworkTopologyStrategy.calculateNaturalReplicas, 4.0+).
func walkPlacement(r *analyzer.Report, token int64, repl ring.Replication) (start, end int64, owners map[string][]string) {
	return newRingWalk(r).walk(token, repl)
}

// ringWalk is the report's ring sorted once, with each DC's nodes and racks.
type ringWalk struct {
	ring             []walkToken
	nodesIn, racksIn map[string]int
}

type walkToken struct {
	t int64
	n analyzer.NodeSummary
}

func newRingWalk(r *analyzer.Report) *ringWalk {
	w := &ringWalk{nodesIn: map[string]int{}, racksIn: map[string]int{}}
	racks := map[string]bool{}
	for _, n := range r.Nodes {
		for _, t := range n.TokenValues {
			w.ring = append(w.ring, walkToken{t, n})
		}
		w.nodesIn[n.DC]++
		if !racks[n.DC+"/"+n.Rack] {
			racks[n.DC+"/"+n.Rack] = true
			w.racksIn[n.DC]++
		}
	}
	sort.Slice(w.ring, func(i, j int) bool { return w.ring[i].t < w.ring[j].t })
	return w
}

func (w *ringWalk) walk(token int64, repl ring.Replication) (start, end int64, owners map[string][]string) {
	tokens := w.ring
	i := 0
	for i < len(tokens) && tokens[i].t < token {
		i++
	}
	i %= len(tokens)
	start, end = tokens[(i+len(tokens)-1)%len(tokens)].t, tokens[i].t
	owners = map[string][]string{}
	if repl.Class == ring.StrategySimple {
		for k := 0; k < len(tokens) && len(owners[""]) < repl.Factor.All; k++ {
			if a := tokens[(i+k)%len(tokens)].n.Address; !containsString(owners[""], a) {
				owners[""] = append(owners[""], a)
			}
		}
		return start, end, owners
	}
	left, repeats, seen, wanted := map[string]int{}, map[string]int{}, map[string]bool{}, 0
	for dc, rf := range repl.DCs {
		left[dc], repeats[dc] = min(rf.All, w.nodesIn[dc]), rf.All-w.racksIn[dc]
		wanted += left[dc]
	}
	for k := 0; k < len(tokens) && wanted > 0; k++ {
		n := tokens[(i+k)%len(tokens)].n
		if left[n.DC] == 0 || containsString(owners[n.DC], n.Address) {
			continue
		}
		if seen[n.DC+"/"+n.Rack] {
			if repeats[n.DC] <= 0 {
				continue
			}
			repeats[n.DC]--
		}
		seen[n.DC+"/"+n.Rack] = true
		owners[n.DC] = append(owners[n.DC], n.Address)
		left[n.DC]--
		wanted--
	}
	return start, end, owners
}

// On 3 and 6 nodes × 16 and 256 tokens (48 to 1,536 ranges), the ring
// section points at each hot key's range and lists it with its token
// bounds, its owner and its three replicas, hottest first; the key without
// a token gets no row.
func TestHotRangesOnVnodeRings(t *testing.T) {
	hot := map[string]int64{"hot": 1234567890123456789, "warm": -8000000000000000000}
	for _, c := range []struct{ nodes, tokens int }{{3, 16}, {3, 256}, {6, 16}, {6, 256}} {
		t.Run(fmt.Sprintf("%d nodes × %d tokens", c.nodes, c.tokens), func(t *testing.T) {
			r := vnodeReport(t, c.nodes, c.tokens, hot)
			pic := newRingPicture(r)
			if !pic.VNodes || pic.Ranges != c.nodes*c.tokens || len(pic.Arcs) != c.nodes {
				t.Fatalf("vnodes %v, %d ranges, %d node arcs; want a vnode ring of %d ranges, one arc per node", pic.VNodes, pic.Ranges, len(pic.Arcs), c.nodes*c.tokens)
			}
			if len(pic.Dots) != 0 || len(pic.Inner) < c.nodes {
				t.Errorf("%d dots, %d inner arcs: want no dots, the ranges on the inner ring", len(pic.Dots), len(pic.Inner))
			}
			html := renderPart(t, "ring", pic)
			svgs := parseSVGs(t, html, "ring")
			if len(svgs) != 1 {
				t.Fatalf("%d ring pictures", len(svgs))
			}
			marks := svgs[0].find("g", "hot-mark")
			if len(pic.Hot) != 2 || len(marks) != 2 {
				t.Fatalf("%d hot ranges, %d pointers; want 2 each (the unplaced key has none)", len(pic.Hot), len(marks))
			}
			for i, key := range []string{"hot", "warm"} {
				h := pic.Hot[i]
				start, end, owners := walkReplicas(r, hot[key])
				wantRange := fmt.Sprintf("(%d, %d]", start, end)
				wantReplicas := fmt.Sprintf("replica 1 %s, replica 2 %s, replica 3 %s", owners[0], owners[1], owners[2])
				if h.Key != key || h.Range != wantRange || h.Owner != owners[0] || h.Replicas != wantReplicas {
					t.Errorf("hot range %d: %+v; want key %s, range %s, owner %s, replicas %s", i+1, h, key, wantRange, owners[0], wantReplicas)
				}
				item := fmt.Sprintf(`<li class="hot-range" data-start="%d" data-end="%d" data-key="%s"><b>key <code>%s</code></b> of ks.t`, start, end, key, key)
				if !strings.Contains(html, item) || !strings.Contains(html, "range <code>"+wantRange+"</code>") ||
					!strings.Contains(html, `owned by <b>`+owners[0]+`</b>; replicas: <span class="replicas">`+wantReplicas+`</span>`) {
					t.Errorf("the hot ranges list lacks %s's item with its range, owner and replicas", key)
				}
				if !strings.Contains(html, `<li class="hot-range"`) || strings.Index(html, `data-key="hot"`) > strings.Index(html, `data-key="warm"`) {
					t.Error("hot ranges not listed hottest first")
				}
				if title := marks[i].title(); !strings.Contains(title, wantRange) || !strings.Contains(title, wantReplicas) {
					t.Errorf("pointer %d's title %q does not name the range and replicas", i+1, title)
				}
			}
		})
	}
}

// A ring without replica sets (a keyspace whose replication is not
// understood) still names the range and owner, and says the replicas are
// unknown.
func TestHotRangeReplicasUnknown(t *testing.T) {
	r := vnodeReport(t, 3, 16, map[string]int64{"hot": 42})
	r.Placements = nil
	pic := newRingPicture(r)
	if len(pic.Hot) != 1 || !strings.HasPrefix(pic.Hot[0].Replicas, "unknown: no replica sets for ks") || pic.Hot[0].Owner == "" {
		t.Fatalf("hot ranges %+v", pic.Hot)
	}
}
