package analyzer

import (
	"math/rand/v2"
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
