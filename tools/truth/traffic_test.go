package truth

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestTrafficSeed(t *testing.T) {
	now := time.Unix(1_796_206_734, 42)
	for _, c := range []struct {
		name  string
		asked uint64
		now   time.Time
		want  uint64
	}{
		{"asked for", 7, now, 7},
		{"from the clock", 0, now, uint64(now.UnixNano())},
		{"never 0, which means 'from the clock'", 0, time.Unix(0, 0), 1},
	} {
		if got := trafficSeed(c.asked, c.now); got != c.want {
			t.Errorf("%s: trafficSeed(%d) = %d, want %d", c.name, c.asked, got, c.want)
		}
	}
}

// A run's seed draws the same keys again, and another seed other keys: what
// makes runs independent samples and one of them repeatable.
func TestSeedDrawsTheKeys(t *testing.T) {
	st := &stream{pop: newPopularity("zipf", 0.9, 1000)}
	draw := func(seed uint64) []int {
		rng := rand.New(rand.NewPCG(seed, 0))
		keys := make([]int, 200)
		for i := range keys {
			keys[i] = st.pick(rng)
		}
		return keys
	}
	if !slices.Equal(draw(11), draw(11)) {
		t.Error("the same seed drew other keys")
	}
	if slices.Equal(draw(11), draw(12)) {
		t.Error("another seed drew the same keys")
	}
}
