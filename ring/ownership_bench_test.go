package ring

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/partmon/partmon/model"
)

// 1,000 nodes × 256 vnodes = 256,000 tokens, 3 DCs of 3 racks each.
func benchmarkRing() []model.Node {
	return ownRandomRing(ownUniformRing("bench", 1000, 256, 3, 3), rand.New(rand.NewPCG(1, 2)))
}

func BenchmarkEffectiveOwnership1000x256(b *testing.B) {
	nodes := benchmarkRing()
	r := ownNTS("dc1", "3", "dc2", "3", "dc3", "3")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EffectiveOwnership(nodes, r); err != nil {
			b.Fatal(err)
		}
	}
}

// Rack repeats used up and one rack with a single token: the walks that
// must find that rack take the binary-search path.
func BenchmarkEffectiveOwnershipRareRack1000x256(b *testing.B) {
	spec := ownUniformRing("bench", 999, 256, 3, 1)
	spec.dcs[0].racks = append(spec.dcs[0].racks, ownRackSpec{nodes: 1, tokens: 1})
	nodes := ownRandomRing(spec, rand.New(rand.NewPCG(1, 2)))
	r := ownNTS("dc1", "3", "dc2", "3", "dc3", "3")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EffectiveOwnership(nodes, r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEffectiveOwnershipSimple1000x256(b *testing.B) {
	nodes := benchmarkRing()
	r := ownSimple("3")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EffectiveOwnership(nodes, r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRawOwnership1000x256(b *testing.B) {
	nodes := benchmarkRing()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := RawOwnership(nodes); err != nil {
			b.Fatal(err)
		}
	}
}

// The ring built once per snapshot and reused for each keyspace.
func BenchmarkTokenRingEffective1000x256(b *testing.B) {
	ring, err := NewTokenRing(benchmarkRing())
	if err != nil {
		b.Fatal(err)
	}
	r := ownNTS("dc1", "3", "dc2", "3", "dc3", "3")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ring.Effective(r); err != nil {
			b.Fatal(err)
		}
	}
}

// benchmarkReplications are distinct NetworkTopologyStrategy replication
// maps with 1-3 replicas in any of the three DCs, all three DCs at RF 3
// first.
func benchmarkReplications(distinct int) []map[string]string {
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
	return repls
}

// BenchmarkReplicaSetsKeyspaces1000x256 is every range's replica set for
// each of 50 distinct replications on the same ring, the ring built once:
// the analyzer's report carries none beyond 4,096 ranges, but this is their
// cost if it did.
func BenchmarkReplicaSetsKeyspaces1000x256(b *testing.B) {
	ring, err := NewTokenRing(benchmarkRing())
	if err != nil {
		b.Fatal(err)
	}
	var repls []Replication
	for _, m := range benchmarkReplications(50) {
		r, err := ParseReplication(m)
		if err != nil {
			b.Fatal(err)
		}
		repls = append(repls, r)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, r := range repls {
			if _, _, err := ring.ReplicaSets(r); err != nil {
				b.Fatal(err)
			}
		}
	}
}
