package keys

import (
	"fmt"
	"testing"
)

// benchKeyer has learned n keys shaped as the sampler learns them: e-mail
// addresses, numbers and composite keys.
func benchKeyer(n int) *Keyer {
	k := New(Hashed, secret, 0)
	keys := make([]string, n)
	for i := range keys {
		switch i % 3 {
		case 0:
			keys[i] = fmt.Sprintf("user.%06d@example.org", i)
		case 1:
			keys[i] = fmt.Sprintf("%d", 1000000+i*7)
		default:
			keys[i] = fmt.Sprintf("tenant-%d:2026-12-%02d", i, i%28+1)
		}
	}
	k.Learn(keys...)
	return k
}

// benchLines are 1,000 strings of a report (summaries, statements, log
// lines), one in ten naming a key, each made unique by round so that no
// memo answers them.
func benchLines(round, n int) []string {
	out := make([]string, 1000)
	for i := range out {
		switch {
		case n > 0 && i%10 == 0:
			out[i] = fmt.Sprintf("partition user.%06d@example.org of ks%03d.t%02d holds %d tombstones (reported by 10.1.0.%d), round %d", (i*3)%n/3*3, i%50, i%20, 1000+i, i%30, round)
		case i%10 == 5:
			out[i] = fmt.Sprintf(`{"level":"warn","msg":"SELECT * FROM ks%03d.t%02d WHERE id = 'x-%d' LIMIT 5000","round":%d}`, i%50, i%20, i, round)
		default:
			out[i] = fmt.Sprintf("reads of ks%03d.t%02d on 10.1.0.%d scan %d tombstones at p99 (max 3,000) for 100 live rows at p99, round %d", i%50, i%20, i%30, 1000+i, round)
		}
	}
	return out
}

func benchScrub(b *testing.B, keys int) {
	k := benchKeyer(keys)
	k.Scrub("warm") // the matcher is built once per key set, not per string
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		lines := benchLines(i, keys)
		b.StartTimer()
		for _, l := range lines {
			k.Scrub(l)
		}
	}
}

// Scrubbing 1,000 report strings never seen before with 0, 2,000 and
// 20,000 learned keys: the cost must not grow with the keys.
func BenchmarkScrub0Keys(b *testing.B)     { benchScrub(b, 0) }
func BenchmarkScrub2000Keys(b *testing.B)  { benchScrub(b, 2000) }
func BenchmarkScrub20000Keys(b *testing.B) { benchScrub(b, 20000) }

// What a change of the key set costs: the matcher rebuilt for 20,000 keys.
func BenchmarkScrubBuild20000Keys(b *testing.B) {
	k := benchKeyer(20000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k.mu.Lock()
		k.forms = nil
		k.mu.Unlock()
		k.Scrub("x")
	}
}
