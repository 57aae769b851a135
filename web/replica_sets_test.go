package web

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net/http/httptest"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/ring"
)

// shapedRing is nodes × perNode tokens over dcs DCs (node i in DC i mod
// dcs, two racks a DC) in the shape real clusters have: 256 random tokens
// (no allocator, as 3.x-born clusters), or for fewer nearly even slices
// handed out in shuffled rounds (the allocator's shape).
func shapedRing(nodes, perNode, dcs int) []model.Node {
	rng := rand.New(rand.NewPCG(uint64(nodes*1000+perNode), uint64(dcs)))
	ms := make([]model.Node, nodes)
	for i := range ms {
		ms[i] = model.Node{HostID: fmt.Sprintf("h%02d", i), Address: fmt.Sprintf("10.0.%d.%d", i%dcs+1, i+1),
			DC: fmt.Sprintf("dc%d", i%dcs+1), Rack: fmt.Sprintf("r%d", i/dcs%2+1)}
	}
	total := nodes * perNode
	slice := ^uint64(0) / uint64(total)
	seen := map[int64]bool{}
	for k := 0; k < total; k += nodes {
		order := rng.Perm(nodes)
		for j, n := range order {
			tok := int64(rng.Uint64())
			if perNode < 256 {
				tok = int64(uint64(1)<<63 + uint64(k+j)*slice + rng.Uint64N(slice/8))
			}
			for seen[tok] {
				tok++
			}
			seen[tok] = true
			ms[n].Tokens = append(ms[n].Tokens, tok)
		}
	}
	return ms
}

// placedReport is the ring of ms with keyspace ks placed by repl and the
// hot keys sampled in ks.t (hottest first as listed), plus a hot key of
// another keyspace, which no set of ks may be marked with.
func placedReport(t *testing.T, ms []model.Node, repl ring.Replication, hot []analyzer.HeatKey) *analyzer.Report {
	t.Helper()
	ranges, dcs, err := ring.ReplicaSets(ms, repl)
	if err != nil {
		t.Fatal(err)
	}
	r := &analyzer.Report{Placements: []analyzer.Placement{{Keyspaces: []string{"ks"}, Replication: "test", Ranges: ranges, DCs: dcs}}}
	for _, n := range ms {
		r.Nodes = append(r.Nodes, analyzer.NodeSummary{HostID: n.HostID, Address: n.Address, DC: n.DC, Rack: n.Rack, TokenValues: n.Tokens})
	}
	r.Heat = &analyzer.HeatMaps{Maps: []analyzer.HeatMap{{Keyspace: "ks", Table: "t", Keys: hot}}}
	return r
}

type wantSet struct {
	share  float64
	ranges int
	hot    []int
}

// wantSets walks every range of the ring apart from the analyzer and
// groups them per DC by the addresses holding their replicas.
func wantSets(r *analyzer.Report, repl ring.Replication, hot []analyzer.HeatKey) map[string]map[string]*wantSet {
	order := map[string]int{}
	for i, n := range r.Nodes {
		order[n.Address] = i
	}
	key := func(addrs []string) string {
		a := append([]string(nil), addrs...)
		sort.Slice(a, func(i, j int) bool { return order[a[i]] < order[a[j]] })
		return strings.Join(a, " ")
	}
	out := map[string]map[string]*wantSet{}
	var ends []int64
	for _, n := range r.Nodes {
		ends = append(ends, n.TokenValues...)
	}
	w := newRingWalk(r)
	for _, end := range ends {
		start, _, owners := w.walk(end, repl)
		for dc, addrs := range owners {
			if out[dc] == nil {
				out[dc] = map[string]*wantSet{}
			}
			w := out[dc][key(addrs)]
			if w == nil {
				w = &wantSet{}
				out[dc][key(addrs)] = w
			}
			w.share += float64(uint64(end-start)) / math.Pow(2, 64)
			w.ranges++
		}
	}
	for i, h := range hot {
		if h.Keyspace != "ks" {
			continue
		}
		_, _, owners := w.walk(h.Token, repl)
		for dc, addrs := range owners {
			out[dc][key(addrs)].hot = append(out[dc][key(addrs)].hot, i+1)
		}
	}
	return out
}

var setRowRE = regexp.MustCompile(`<tr class="replica-set( hot)?" id="([^"]+)" data-nodes="([^"]*)" data-ranges="(\d+)" data-hot="([^"]*)">`)

// On 3 and 6 nodes × 16 and 256 tokens (48 to 1,536 ranges), on one DC and
// two, under SimpleStrategy and NetworkTopologyStrategy with racks, each
// DC's ranges are grouped by the nodes holding their replicas as an
// independent walk finds them: each set once, its share the sum of its
// ranges' widths, its count of ranges; the hot keys' sets marked with their
// numbers and first, hottest first, then largest first; the hot ranges
// list links to the set.
func TestReplicaSetGroups(t *testing.T) {
	simple := ring.Replication{Class: ring.StrategySimple, Factor: ring.ReplicationFactor{All: 3}}
	nts1 := ring.Replication{Class: ring.StrategyNetworkTopology, DCs: map[string]ring.ReplicationFactor{"dc1": {All: 3}}}
	nts2 := ring.Replication{Class: ring.StrategyNetworkTopology, DCs: map[string]ring.ReplicationFactor{"dc1": {All: 3}, "dc2": {All: 2}}}
	hot := []analyzer.HeatKey{
		{Keyspace: "ks", Table: "t", Key: "hot", Token: 1234567890123456789, OK: true, Share: 0.9},
		{Keyspace: "ks", Table: "t", Key: "warm", Token: -8000000000000000000, OK: true, Share: 0.45},
		{Keyspace: "other", Table: "t", Key: "elsewhere", Token: 42, OK: true, Share: 0.3},
	}
	for _, shape := range []struct{ nodes, tokens int }{{3, 16}, {3, 256}, {6, 16}, {6, 256}} {
		for _, c := range []struct {
			name string
			dcs  int
			repl ring.Replication
		}{{"SimpleStrategy rf 3", 1, simple}, {"NTS dc1:3, two racks", 1, nts1}, {"NTS dc1:3 dc2:2, two DCs", 2, nts2}} {
			t.Run(fmt.Sprintf("%d nodes × %d tokens, %s", shape.nodes, shape.tokens, c.name), func(t *testing.T) {
				r := placedReport(t, shapedRing(shape.nodes, shape.tokens, c.dcs), c.repl, hot)
				want := wantSets(r, c.repl, hot)
				pic := newRingPicture(r)
				pics := newReplicaPictures(r, pic.Hot)
				linkHotSets(pic.Hot, pics)
				if len(pics.Pictures) != 1 || len(pics.Pictures[0].Sets) != len(want) {
					t.Fatalf("%d pictures; want one with a group per DC (%d)", len(pics.Pictures), len(want))
				}
				html := renderPart(t, "replicas", pics)
				nodesIn := map[string]int{}
				for _, n := range r.Nodes {
					nodesIn[n.DC]++
					nodesIn[""]++
				}
				for _, g := range pics.Pictures[0].Sets {
					checkSetGroup(t, g, want[g.DC], html)
					wantNote := ""
					if nodesIn[g.DC] < g.RF {
						wantNote = fmt.Sprintf("%d ranges with fewer replicas than rf %d: the DC has fewer nodes", g.Ranges, g.RF)
					}
					if g.Note != wantNote {
						t.Errorf("%s: note %q, want %q", g.Label, g.Note, wantNote)
					}
				}
				for _, h := range pic.Hot {
					if first := pics.Pictures[0].Sets[0].Sets[0]; h.Number == 1 && h.SetID != first.ID {
						t.Errorf("the hottest range links to %q, want the first set %q", h.SetID, first.ID)
					}
				}
				if ring := renderPart(t, "ring", pic); !strings.Contains(ring, `(<a href="#`+pic.Hot[0].SetID+`">its replica set</a>)`) {
					t.Error("the hot ranges list does not link the hottest range to its replica set")
				}
			})
		}
	}
}

func checkSetGroup(t *testing.T, g replicaSetGroup, want map[string]*wantSet, html string) {
	t.Helper()
	if len(g.Sets) != len(want) || g.More != "" {
		t.Fatalf("%s: %d sets (more: %q), want %d", g.Label, len(g.Sets), g.More, len(want))
	}
	block := html[strings.Index(html, `<div class="replica-sets" id="`+g.ID+`"`):]
	block = block[:strings.Index(block, "</table>")]
	rows := setRowRE.FindAllStringSubmatch(block, -1)
	if len(rows) != len(g.Sets) {
		t.Fatalf("%s: %d rows drawn for %d sets", g.Label, len(rows), len(g.Sets))
	}
	total := 0.0
	for i, s := range g.Sets {
		w, ok := want[s.Addresses]
		if !ok {
			t.Fatalf("%s: set %q is not one the walk finds: %v", g.Label, s.Addresses, keysOf(want))
		}
		var hot []string
		for _, n := range w.hot {
			hot = append(hot, strconv.Itoa(n))
		}
		if math.Abs(s.Share-w.share) > 1e-9 || s.Ranges != w.ranges || rows[i][5] != strings.Join(hot, " ") ||
			rows[i][3] != s.Addresses || rows[i][4] != strconv.Itoa(w.ranges) || (rows[i][1] != "") != (len(hot) > 0) {
			t.Errorf("%s set %s: share %.9f, %d ranges, row %q; want %.9f, %d ranges, hot %v",
				g.Label, s.Addresses, s.Share, s.Ranges, rows[i][0], w.share, w.ranges, hot)
		}
		if !strings.Contains(block, s.ShareText) {
			t.Errorf("%s: the share %s of %s is not written", g.Label, s.ShareText, s.Addresses)
		}
		total += s.Share
		if i > 0 {
			checkSetOrder(t, g.Sets[i-1], s, want)
		}
	}
	if math.Abs(total-1) > 1e-9 {
		t.Errorf("%s: the sets' shares add up to %.9f, not the whole ring", g.Label, total)
	}
}

// checkSetOrder: hot sets first, hottest first; then the largest.
func checkSetOrder(t *testing.T, a, b replicaSet, want map[string]*wantSet) {
	t.Helper()
	ha, hb := want[a.Addresses].hot, want[b.Addresses].hot
	switch {
	case len(ha) == 0 && len(hb) > 0:
		t.Errorf("hot set %s after %s", b.Addresses, a.Addresses)
	case len(ha) > 0 && len(hb) > 0 && ha[0] > hb[0]:
		t.Errorf("set of hot range %d before hot range %d's", ha[0], hb[0])
	case len(ha) == 0 && len(hb) == 0 && a.Share < b.Share:
		t.Errorf("set %s (%.4f) before the larger %s (%.4f)", a.Addresses, a.Share, b.Addresses, b.Share)
	}
}

func keysOf(m map[string]*wantSet) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Past replicaMaxSets sets the rest are summed in one line: 12 nodes at RF
// 3 make far more than 24 sets on 256 random tokens.
func TestReplicaSetsCap(t *testing.T) {
	simple := ring.Replication{Class: ring.StrategySimple, Factor: ring.ReplicationFactor{All: 3}}
	r := placedReport(t, shapedRing(12, 256, 1), simple, nil)
	want := wantSets(r, simple, nil)[""]
	g := newReplicaPictures(r, nil).Pictures[0].Sets[0]
	if len(want) <= replicaMaxSets || len(g.Sets) != replicaMaxSets {
		t.Fatalf("%d sets listed of %d", len(g.Sets), len(want))
	}
	var shares []float64
	for _, s := range want {
		shares = append(shares, s.share)
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(shares)))
	rest, ranges := 0.0, 0
	for _, w := range want {
		if w.share < shares[replicaMaxSets-1] {
			rest += w.share
			ranges += w.ranges
		}
	}
	wantMore := fmt.Sprintf("%d more sets, %s of the ring in %d ranges, are not listed", len(want)-replicaMaxSets, smallPercent(rest), ranges)
	if g.More != wantMore {
		t.Errorf("more: %q, want %q", g.More, wantMore)
	}
}

// Past replicaMaxTitledArcs ranges each replica ring is one path per node:
// every range is still drawn (one arc segment each), in its holder's
// colour, and each path's title counts the node's ranges and share as the
// independent walk finds them.
func TestReplicaRingsFoldedPerNode(t *testing.T) {
	repl := ring.Replication{Class: ring.StrategyNetworkTopology, DCs: map[string]ring.ReplicationFactor{"dc1": {All: 3}, "dc2": {All: 2}}}
	r := placedReport(t, shapedRing(6, 256, 2), repl, nil)
	w := newRingWalk(r)
	// per ring label, per address: ranges held as that replica
	want := map[string]map[string]int{}
	for _, n := range r.Nodes {
		for _, end := range n.TokenValues {
			_, _, owners := w.walk(end, repl)
			for dc, addrs := range owners {
				for k, a := range addrs {
					label := replicaLabel(dc, k+1)
					if want[label] == nil {
						want[label] = map[string]int{}
					}
					want[label][a]++
				}
			}
		}
	}
	html := renderPart(t, "replicas", newReplicaPictures(r, nil))
	rings := parseSVGs(t, html, "replica-rings")[0].find("g", "replica-ring")
	if len(rings) != 5 {
		t.Fatalf("%d rings, want 5 (dc1:3 dc2:2)", len(rings))
	}
	titleRE := regexp.MustCompile(`^(.+) on (10\.0\.\d\.\d+) \(dc\d/r\d\): (\d+) ranges, `)
	for _, g := range rings {
		paths := g.find("path", "replica-arc")
		got := map[string]int{}
		for _, p := range paths {
			m := titleRE.FindStringSubmatch(p.title())
			if m == nil || m[1] != g.title() {
				t.Fatalf("ring %s: path title %q", g.title(), p.title())
			}
			n, _ := strconv.Atoi(m[3])
			if segs := strings.Count(p.attr("d"), "M "); segs != n {
				t.Errorf("ring %s, %s: %d arcs drawn for %d ranges", g.title(), m[2], segs, n)
			}
			if p.attr("stroke") != paintOf(r, m[2]) {
				t.Errorf("ring %s: %s painted %s", g.title(), m[2], p.attr("stroke"))
			}
			got[m[2]] += n
		}
		if fmt.Sprint(got) != fmt.Sprint(want[g.title()]) {
			t.Errorf("ring %s: ranges per node %v, the walk's %v", g.title(), got, want[g.title()])
		}
	}
}

// The page of 6 nodes × 256 tokens over two DCs stays under 1 MB (it was
// 2.3 MB with a titled arc per range on every replica ring).
func TestVnodePageSize(t *testing.T) {
	w := httptest.NewRecorder()
	vnodePage(t).ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if size := w.Body.Len(); size > 1<<20 {
		t.Errorf("the 6 × 256 page is %d bytes, over 1 MiB", size)
	}
}
