package ring

import (
	"math/rand/v2"
	"testing"
)

// The per-DC cache gives every keyspace exactly what EffectiveOwnership
// gives it alone, for 50 NetworkTopologyStrategy maps over three DCs (one
// with a lone rack of one token, one DC not in the ring), SimpleStrategy
// and EverywhereStrategy, whatever order they come in.
func TestOwnershipCacheMatchesEffective(t *testing.T) {
	spec := ownUniformRing("cache", 30, 16, 3, 3)
	spec.dcs[2].racks = append(spec.dcs[2].racks, ownRackSpec{nodes: 1, tokens: 1})
	nodes := ownRandomRing(spec, rand.New(rand.NewPCG(3, 4)))
	repls := append(benchmarkReplications(50),
		map[string]string{"class": "SimpleStrategy", "replication_factor": "3"},
		map[string]string{"class": "SimpleStrategy", "replication_factor": "2"},
		map[string]string{"class": "EverywhereStrategy"},
		map[string]string{"class": "NetworkTopologyStrategy", "dc1": "2", "dc9": "3"},
		map[string]string{"class": "NetworkTopologyStrategy", "dc1": "3/1"})
	cache := NewOwnershipCache(nodes)
	for _, order := range [][]int{rand.Perm(len(repls)), rand.Perm(len(repls))} {
		for _, i := range order {
			r, err := ParseReplication(repls[i])
			if err != nil {
				t.Fatal(err)
			}
			want, err := EffectiveOwnership(nodes, r)
			if err != nil {
				t.Fatal(err)
			}
			got, err := cache.Effective(r)
			if err != nil {
				t.Fatalf("%v: %v", repls[i], err)
			}
			if len(got) != len(want) {
				t.Fatalf("%v: %d nodes, want %d", repls[i], len(got), len(want))
			}
			for host, w := range want {
				if g, ok := got[host]; !ok || g != w {
					t.Fatalf("%v: %s owns %v (present %v), want %v", repls[i], host, g, ok, w)
				}
			}
		}
	}
	if len(cache.perDC) > 3*3+2 {
		t.Errorf("%d per-DC walks for three DCs at factors 1-3 and two more; want at most 11", len(cache.perDC))
	}
}

// A ring Cassandra would not form is each keyspace's error, as before.
func TestOwnershipCacheBadRing(t *testing.T) {
	nodes := ownRandomRing(ownUniformRing("bad", 3, 2, 1, 1), rand.New(rand.NewPCG(5, 6)))
	nodes[1].Tokens[0] = nodes[0].Tokens[0]
	cache := NewOwnershipCache(nodes)
	if _, err := cache.Effective(ownNTS("dc1", "3")); err == nil {
		t.Fatal("duplicate token: no error")
	}
}
