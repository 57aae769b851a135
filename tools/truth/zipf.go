package truth

import (
	"math"
	"math/rand/v2"
	"sort"
)

// popularity picks partition indexes 0..n-1: zipf with any exponent s > 0
// (the standard library's rand.Zipf needs s > 1, while production key
// popularity, and YCSB's default 0.99, is below 1), or uniform. Rank k
// (0-based) has weight 1/(k+1)^s, so partition 0 is the most popular.
type popularity struct {
	n   int
	cdf []float64 // nil: uniform
}

func newPopularity(kind string, s float64, n int) *popularity {
	p := &popularity{n: n}
	if kind != "zipf" {
		return p
	}
	p.cdf = make([]float64, n)
	sum := 0.0
	for k := 0; k < n; k++ {
		sum += 1 / math.Pow(float64(k+1), s)
		p.cdf[k] = sum
	}
	for k := range p.cdf {
		p.cdf[k] /= sum
	}
	return p
}

func (p *popularity) pick(rng *rand.Rand) int {
	if p.cdf == nil {
		return rng.IntN(p.n)
	}
	u := rng.Float64()
	i := sort.SearchFloat64s(p.cdf, u)
	return min(i, p.n-1)
}

// share is the expected share of picks that land on rank k.
func (p *popularity) share(k int) float64 {
	if p.cdf == nil {
		return 1 / float64(p.n)
	}
	if k == 0 {
		return p.cdf[0]
	}
	return p.cdf[k] - p.cdf[k-1]
}
