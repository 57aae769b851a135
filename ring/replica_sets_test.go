package ring

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestReplicaSetsByHand: rings walked on paper (ownership_test.go's rings).
func TestReplicaSetsByHand(t *testing.T) {
	tests := []struct {
		name  string
		nodes string // which ring
		r     Replication
		dc    string
		want  [][]string // per range, in ring order
	}{
		// Ring A A B C A B C C.
		{"simple rf 2", "uneven", ownSimple("2"), "", [][]string{
			{"A", "B"}, {"A", "B"}, {"B", "C"}, {"C", "A"}, {"A", "B"}, {"B", "C"}, {"C", "A"}, {"C", "A"}}},
		{"simple rf above the nodes: all, in walk order", "uneven", ownSimple("5"), "", [][]string{
			{"A", "B", "C"}, {"A", "B", "C"}, {"B", "C", "A"}, {"C", "A", "B"}, {"A", "B", "C"}, {"B", "C", "A"}, {"C", "A", "B"}, {"C", "A", "B"}}},
		// Ring A B C D A B C D; D alone in r2: rf 2 takes one of r1 and D.
		{"nts racks", "lonely rack", ownNTS("dc1", "2"), "dc1", [][]string{
			{"A", "D"}, {"B", "D"}, {"C", "D"}, {"D", "A"}, {"A", "D"}, {"B", "D"}, {"C", "D"}, {"D", "A"}}},
		// Ring A C B D E A C B: dc2 = C D E in one rack; rf 2 there.
		{"nts other dc's tokens map to the next own token", "two dc", ownNTS("dc1", "1", "dc2", "2"), "dc2", [][]string{
			{"C", "D"}, {"C", "D"}, {"D", "E"}, {"D", "E"}, {"E", "C"}, {"C", "D"}, {"C", "D"}, {"C", "D"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := ownUnevenRing
			switch tc.nodes {
			case "lonely rack":
				n = ownLonelyRackRing
			case "two dc":
				n = ownTwoDCRing
			}
			ranges, dcs, err := ReplicaSets(n, tc.r)
			if err != nil {
				t.Fatal(err)
			}
			if len(ranges) != 8 || ranges[0].Start != ownEighth(7) || ranges[0].End != ownEighth(0) || ranges[3].Share != 0.125 {
				t.Fatalf("ranges %+v", ranges)
			}
			i := slices.IndexFunc(dcs, func(d DCReplicas) bool { return d.DC == tc.dc })
			if i < 0 {
				t.Fatalf("no DC %q in %+v", tc.dc, dcs)
			}
			for k, want := range tc.want {
				if got := dcs[i].Holders[k]; !slices.Equal(got, want) {
					t.Errorf("range %d: holders %v, want %v", k, got, want)
				}
			}
		})
	}
}

// TestReplicaSetsMatchOracle: on random rings with vnodes, DCs and racks,
// every range's holders are the transcribed strategies' replicas (per DC, in
// walk order), and each node's ranges add up to its effective ownership.
func TestReplicaSetsMatchOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 2))
	tests := []struct {
		spec ownRingSpec
		r    Replication
	}{
		{ownUniformRing("6 nodes 4 vnodes", 6, 4, 1, 1), ownSimple("3")},
		{ownUniformRing("9 nodes 3 racks", 9, 8, 1, 3), ownNTS("dc1", "3")},
		{ownUniformRing("two DCs, two racks", 12, 4, 2, 2), ownNTS("dc1", "3", "dc2", "2")},
		{ownUniformRing("rf above the nodes", 2, 4, 1, 1), ownNTS("dc1", "3")},
	}
	for _, tc := range tests {
		t.Run(tc.spec.name, func(t *testing.T) {
			nodes := ownRandomRing(tc.spec, rng)
			oracle := newOwnOracle(nodes)
			ranges, dcs, err := ReplicaSets(nodes, tc.r)
			if err != nil {
				t.Fatal(err)
			}
			dcOf := map[string]string{}
			for _, n := range nodes {
				dcOf[n.HostID] = n.DC
			}
			summed := map[string]float64{}
			for i := range ranges {
				want := oracle.replicas(i, tc.r)
				for _, dc := range dcs {
					var wantDC []string
					for _, id := range want {
						if dc.DC == "" || dcOf[id] == dc.DC {
							wantDC = append(wantDC, id)
						}
					}
					if !slices.Equal(dc.Holders[i], wantDC) {
						t.Fatalf("range %d dc %q: holders %v, want %v", i, dc.DC, dc.Holders[i], wantDC)
					}
					for _, id := range dc.Holders[i] {
						summed[id] += ranges[i].Share
					}
				}
			}
			owns, err := EffectiveOwnership(nodes, tc.r)
			if err != nil {
				t.Fatal(err)
			}
			assertOwns(t, summed, owns, 1e-9)
		})
	}
}

func TestReplicaSetsRefusesLocalStrategy(t *testing.T) {
	if _, _, err := ReplicaSets(ownUnevenRing, Replication{Class: StrategyLocal}); err == nil {
		t.Fatal("LocalStrategy: want an error")
	}
}
