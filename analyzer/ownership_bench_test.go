package analyzer

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/partmon/partmon/analyzer/figures"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/analyzer/scope"
	"github.com/partmon/partmon/model"
)

// The ring arithmetic's own benchmarks are in ring/ownership_bench_test.go;
// this is what an analysis cycle spends on it.

// benchmarkRing is 1,000 nodes × 256 vnodes = 256,000 tokens at random, 3
// DCs of 3 racks each, nodes round robin over the racks: the ring of the
// ring package's benchmarks (the same seed and order of draws).
func benchmarkRing() []model.Node {
	const nodes, vnodes, dcs, racks = 1000, 256, 3, 3
	rng := rand.New(rand.NewPCG(1, 2))
	used := map[int64]bool{}
	var out []model.Node
	for d := range dcs {
		for r := range racks {
			inRack := nodes / (dcs * racks)
			if d*racks+r < nodes%(dcs*racks) {
				inRack++
			}
			for range inRack {
				i := len(out)
				n := model.Node{HostID: fmt.Sprintf("host-%04d", i), Address: fmt.Sprintf("10.%d.%d.%d", i>>16, i>>8&255, i&255),
					DC: fmt.Sprintf("dc%d", d+1), Rack: fmt.Sprintf("rack%d", r+1)}
				for len(n.Tokens) < vnodes {
					if tk := int64(rng.Uint64()); !used[tk] {
						used[tk] = true
						n.Tokens = append(n.Tokens, tk)
					}
				}
				slices.Sort(n.Tokens)
				out = append(out, n)
			}
		}
	}
	return out
}

// benchmarkSnapshot is benchmarkRing's 1,000 × 256 nodes with keyspaces
// keyspaces of one table each, replicated by distinct of the replications
// below (round robin): NetworkTopologyStrategy with 1-3 replicas in any of
// the three DCs, all three DCs at RF 3 first.
func benchmarkSnapshot(nodes []model.Node, keyspaces, distinct int) *model.Snapshot {
	var repls []map[string]string
	for i := 63; i > 0 && len(repls) < distinct; i-- { // i's base-4 digits are the DCs' RFs
		m := map[string]string{"class": "org.apache.cassandra.locator.NetworkTopologyStrategy"}
		for d, rest := 0, i; d < 3; d, rest = d+1, rest/4 {
			if rest%4 == 0 {
				continue
			}
			m[fmt.Sprintf("dc%d", d+1)] = strconv.Itoa(rest % 4)
		}
		repls = append(repls, m)
	}
	s := &model.Snapshot{Taken: t0, Cluster: "bench", Engine: model.EngineCassandra, Nodes: nodes}
	for k := range keyspaces {
		ks := model.Keyspace{Name: fmt.Sprintf("ks%02d", k), Replication: repls[k%len(repls)]}
		tb := table("t", pk("id", "text", 0), col("v", "blob"))
		tb.Keyspace = ks.Name
		ks.Tables = []model.Table{tb}
		s.Schema.Keyspaces = append(s.Schema.Keyspaces, ks)
	}
	return s
}

// BenchmarkOwnershipKeyspaces1000x256 is what one analysis cycle spends on
// ownership (raw, effective and skew per keyspace) and replica sets
// (Report.Placements) on 1,000 nodes × 256 vnodes, for one keyspace and
// for 50 keyspaces with 5 or 50 distinct replications, side by side in one
// run: the analyzer computes each distinct replication once.
func BenchmarkOwnershipKeyspaces1000x256(b *testing.B) {
	nodes := benchmarkRing()
	for _, c := range []struct{ keyspaces, distinct int }{{1, 1}, {50, 5}, {50, 50}} {
		s := benchmarkSnapshot(nodes, c.keyspaces, c.distinct)
		h := history.New(history.Limits{})
		b.Run(fmt.Sprintf("keyspaces=%d/replications=%d", c.keyspaces, c.distinct), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				a := newAnalysis(s, scope.Of(s), h, DefaultThresholds())
				if len(a.keyspaces) != c.keyspaces || a.keyspaces[0].owns == nil {
					b.Fatalf("%d keyspaces analysed, the first's ownership %v; want %d with ownership (notes %v)",
						len(a.keyspaces), a.keyspaces[0].owns != nil, c.keyspaces, a.notes)
				}
				figures.Placements(a.ix)
			}
		})
	}
}
