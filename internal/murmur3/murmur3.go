// Package murmur3 computes the tokens Cassandra's Murmur3Partitioner gives
// partition keys, so a key named in a sampler's or a log's text can be placed
// on the ring. It imports only the standard library.
package murmur3

import (
	"encoding/binary"
	"math"
	"math/bits"
)

const (
	c1 = 0x87c37b91114253d5
	c2 = 0x4cf5ad432745937f
)

// Hash128 is Cassandra's MurmurHash.hash3_x64_128: MurmurHash3 x64 128 with
// one difference from the reference, kept here on purpose: tail bytes are
// sign-extended (Java's (long) of a byte) before they are shifted in, so
// keys whose length is not a multiple of 16 and whose tail holds a byte
// ≥ 0x80 hash differently from the C version.
func Hash128(data []byte, seed uint64) (h1, h2 uint64) {
	h1, h2 = seed, seed
	n := len(data) / 16
	for i := 0; i < n; i++ {
		k1 := binary.LittleEndian.Uint64(data[i*16:])
		k2 := binary.LittleEndian.Uint64(data[i*16+8:])
		h1 ^= mixK1(k1)
		h1 = bits.RotateLeft64(h1, 27) + h2
		h1 = h1*5 + 0x52dce729
		h2 ^= mixK2(k2)
		h2 = bits.RotateLeft64(h2, 31) + h1
		h2 = h2*5 + 0x38495ab5
	}
	tail := data[n*16:]
	var k1, k2 uint64
	for i := len(tail) - 1; i >= 8; i-- {
		k2 ^= signed(tail[i]) << (8 * uint(i-8))
	}
	if len(tail) > 8 {
		h2 ^= mixK2(k2)
	}
	for i := min(len(tail), 8) - 1; i >= 0; i-- {
		k1 ^= signed(tail[i]) << (8 * uint(i))
	}
	if len(tail) > 0 {
		h1 ^= mixK1(k1)
	}
	h1 ^= uint64(len(data))
	h2 ^= uint64(len(data))
	h1 += h2
	h2 += h1
	h1, h2 = fmix(h1), fmix(h2)
	h1 += h2
	h2 += h1
	return h1, h2
}

// signed widens a byte as Java does: 0x80..0xff become negative longs.
func signed(b byte) uint64 { return uint64(int64(int8(b))) }

func mixK1(k uint64) uint64 { return bits.RotateLeft64(k*c1, 31) * c2 }
func mixK2(k uint64) uint64 { return bits.RotateLeft64(k*c2, 33) * c1 }

func fmix(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}

// Token is Murmur3Partitioner.getToken of a serialized partition key: the
// first half of the hash with seed 0, Long.MIN_VALUE moved to Long.MAX_VALUE
// (the minimum token belongs to no key), and the minimum for an empty key.
func Token(key []byte) int64 {
	if len(key) == 0 {
		return math.MinInt64
	}
	h1, _ := Hash128(key, 0)
	if t := int64(h1); t != math.MinInt64 {
		return t
	}
	return math.MaxInt64
}
