package web

import (
	"fmt"
	stdhtml "html"
	"regexp"
	"strings"
	"testing"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/ring"
	"github.com/partmon/partmon/tools/reporttest"
)

// placementReport is a report of nodes (one DC per dcs entry, racks round
// robin) with tokens spread evenly, and one keyspace placed by r.
func placementReport(t *testing.T, dcs []string, perNode int, r ring.Replication, skew map[int]float64) *analyzer.Report {
	t.Helper()
	var nodes []model.Node
	for i, dc := range dcs {
		n := model.Node{HostID: fmt.Sprintf("h%02d", i), Address: fmt.Sprintf("10.0.0.%d", i+1), DC: dc, Rack: fmt.Sprintf("r%d", i%3+1)}
		nodes = append(nodes, n)
	}
	total := len(dcs) * perNode
	for k := range total {
		// Token k of the ring goes to node k mod N: every node's ranges interleave.
		nodes[k%len(dcs)].Tokens = append(nodes[k%len(dcs)].Tokens, int64(uint64(1)<<63+uint64(k)*(^uint64(0)/uint64(total))))
	}
	ranges, reps, err := ring.ReplicaSets(nodes, r)
	if err != nil {
		t.Fatal(err)
	}
	rep := &analyzer.Report{Placements: []analyzer.Placement{{Keyspaces: []string{"ks_a", "ks_b"}, Replication: "test replication",
		Ranges: ranges, DCs: reps}}}
	for i, n := range nodes {
		rep.Nodes = append(rep.Nodes, analyzer.NodeSummary{HostID: n.HostID, Address: n.Address, DC: n.DC, Rack: n.Rack, TokenValues: n.Tokens})
		s := 1.0
		if v, ok := skew[i]; ok {
			s = v
		}
		rep.Ownership = append(rep.Ownership, analyzer.Ownership{Keyspace: "ks_a", HostID: n.HostID, Node: n.Address, DC: n.DC, Rack: n.Rack, Owns: 0.5 * s, Skew: s})
	}
	return rep
}

var addressRE = regexp.MustCompile(`on (10\.0\.0\.\d+) `)

func TestReplicaRings(t *testing.T) {
	simple := ring.Replication{Class: ring.StrategySimple, Factor: ring.ReplicationFactor{All: 3}}
	tests := []struct {
		name         string
		dcs          []string
		perNode      int
		r            ring.Replication
		wantRings    []string // ring labels, outermost first
		wantPatterns int
	}{
		{"3 nodes, 1 token, RF 3", []string{"dc1", "dc1", "dc1"}, 1, simple, []string{"replica 1", "replica 2", "replica 3"}, 0},
		{"4 nodes, 4 vnodes, RF 2", []string{"dc1", "dc1", "dc1", "dc1"}, 4,
			ring.Replication{Class: ring.StrategySimple, Factor: ring.ReplicationFactor{All: 2}}, []string{"replica 1", "replica 2"}, 0},
		{"two DCs, NTS dc1:2 dc2:1", []string{"dc1", "dc2", "dc1", "dc2", "dc1"}, 2,
			ring.Replication{Class: ring.StrategyNetworkTopology, DCs: map[string]ring.ReplicationFactor{"dc1": {All: 2}, "dc2": {All: 1}}},
			[]string{"dc1 replica 1", "dc1 replica 2", "dc2 replica 1"}, 0},
		{"10 nodes: the ninth and tenth are patterned", []string{"dc1", "dc1", "dc1", "dc1", "dc1", "dc1", "dc1", "dc1", "dc1", "dc1"}, 1, simple,
			[]string{"replica 1", "replica 2", "replica 3"}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := placementReport(t, tc.dcs, tc.perNode, tc.r, map[int]float64{0: 1.35, 1: 1.19, 2: 0.7})
			pics := newReplicaPictures(rep, nil)
			html := renderPart(t, "replicas", pics)
			svgs := parseSVGs(t, html, "replica-rings")
			if len(svgs) != 1 {
				t.Fatalf("want one picture for two keyspaces of one replication, got %d", len(svgs))
			}
			if !strings.Contains(html, "<b>ks_a, ks_b</b> · test replication") {
				t.Error("the picture does not say which keyspaces it shows")
			}
			ranges := len(rep.Placements[0].Ranges)
			rings := svgs[0].find("g", "replica-ring")
			var labels []string
			drawn := make([][]string, len(rings)) // per ring, per range: the node's address
			for k, g := range rings {
				labels = append(labels, g.title())
				arcs := g.find("path", "replica-arc")
				if len(arcs) != ranges {
					t.Errorf("ring %s: %d arcs, want one per range (%d)", g.title(), len(arcs), ranges)
				}
				for _, a := range arcs {
					m := addressRE.FindStringSubmatch(a.title())
					if m == nil {
						t.Fatalf("arc title %q names no node", a.title())
					}
					drawn[k] = append(drawn[k], m[1])
					if want := paintOf(rep, m[1]); a.attr("stroke") != want {
						t.Errorf("arc of %s painted %s, want %s", m[1], a.attr("stroke"), want)
					}
				}
			}
			if strings.Join(labels, ",") != strings.Join(tc.wantRings, ",") {
				t.Errorf("rings %v, want %v", labels, tc.wantRings)
			}
			// The text table says what the rings show: row i, column k is ring k's arc i.
			rows := regexp.MustCompile(`(?s)<tr class="replica-row-text">(.*?)</tr>`).FindAllStringSubmatch(html, -1)
			if len(rows) != ranges {
				t.Fatalf("%d text rows, want %d", len(rows), ranges)
			}
			cell := regexp.MustCompile(`<td>([^<]*)</td>`)
			for i, row := range rows {
				cells := cell.FindAllStringSubmatch(row[1], -1)
				for k := range rings {
					if k >= len(cells) || k >= len(drawn) || i >= len(drawn[k]) || cells[k][1] != drawn[k][i] {
						t.Fatalf("text row %d column %d disagrees with ring %d: %v vs %v", i, k, k, cells, drawn[k])
					}
				}
			}
			if got := strings.Count(html, "<pattern id="); got != tc.wantPatterns {
				t.Errorf("%d patterns defined, want %d", got, tc.wantPatterns)
			}
			if !strings.Contains(stdhtml.UnescapeString(html), "skewed: 1.35× its fair share (warning at 1.20×)") {
				t.Error("node 1's skew of 1.35 is not flagged in words")
			}
			if strings.Count(html, "skewed:") != 1 {
				t.Error("a node under the warning is flagged as skewed")
			}
		})
	}
}

func paintOf(r *analyzer.Report, address string) string {
	for i, n := range r.Nodes {
		if n.Address == address {
			_, _, paint := nodePaint(i)
			return paint
		}
	}
	return ""
}

// TestReplicaPicturesCap: at most replicaMaxPictures replications drawn,
// the rest named with their keyspaces.
func TestReplicaPicturesCap(t *testing.T) {
	base := placementReport(t, []string{"dc1", "dc1", "dc1"}, 1,
		ring.Replication{Class: ring.StrategySimple, Factor: ring.ReplicationFactor{All: 1}}, nil)
	p := base.Placements[0]
	base.Placements = nil
	for i := range replicaMaxPictures + 2 {
		q := p
		q.Keyspaces, q.Replication = []string{fmt.Sprintf("ks%d", i)}, fmt.Sprintf("SimpleStrategy rf %d", i+1)
		base.Placements = append(base.Placements, q)
	}
	pics := newReplicaPictures(base, nil)
	if len(pics.Pictures) != replicaMaxPictures || len(pics.LeftOut) != 2 {
		t.Fatalf("%d pictures, %d left out", len(pics.Pictures), len(pics.LeftOut))
	}
	html := renderPart(t, "replicas", pics)
	if !strings.Contains(html, "Not drawn: ks4 (SimpleStrategy rf 5); ks5 (SimpleStrategy rf 6).") {
		t.Error("the replications not drawn are not named")
	}
}

// TestReplicaRingsOfAnAnalyzedReport: the analyzer's placements through the
// status page: three keyspaces of one replication (NTS dc1:2 over three
// nodes of 16 vnodes) are one picture of two rings, one arc per token range,
// and every node of the ownership table is in its legend.
func TestReplicaRingsOfAnAnalyzedReport(t *testing.T) {
	r := reporttest.Large(120)
	eLatest := &publish.Latest{}
	e := exporter.New(eLatest, exporter.Options{})
	eLatest.Publish(r)
	page := get(t, newTestHandler(t, eLatest, e, nil).URL+"/").body
	svgs := parseSVGs(t, page, "replica-rings")
	if len(svgs) != 1 {
		t.Fatalf("%d pictures, want one for the one replication", len(svgs))
	}
	if !strings.Contains(page, `data-keyspaces="ks00, ks01, ks02"`) {
		t.Error("the picture does not name the three keyspaces it stands for")
	}
	tokens := 0
	for _, n := range r.Nodes {
		tokens += len(n.TokenValues)
	}
	rings := svgs[0].find("g", "replica-ring")
	if len(rings) != 2 {
		t.Fatalf("%d rings, want RF 2", len(rings))
	}
	for _, g := range rings {
		if got := len(g.find("path", "replica-arc")); got != tokens {
			t.Errorf("ring %s: %d arcs, want one per range (%d)", g.title(), got, tokens)
		}
	}
	legend := page[strings.Index(page, `<table class="replica-legend">`):]
	legend = legend[:strings.Index(legend, "</table>")]
	for _, n := range r.Nodes {
		if !strings.Contains(legend, n.Address) {
			t.Errorf("node %s is not in the legend", n.Address)
		}
	}
}
