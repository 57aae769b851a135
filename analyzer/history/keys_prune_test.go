package history

import (
	"fmt"
	"math/rand"
	"sort"
	"testing"
)

// The heap drops exactly the series a sort of all of them would drop.
func TestLeastRecentAsSorted(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for round := 0; round < 200; round++ {
		n, keep := rng.Intn(60), rng.Intn(40)
		all := make([]keyRef, n)
		for i := range all {
			all[i] = keyRef{fmt.Sprintf("t%d", rng.Intn(4)), fmt.Sprintf("k%d", i), int64(rng.Intn(5))}
		}
		sorted := append([]keyRef(nil), all...)
		sort.Slice(sorted, func(i, j int) bool { return sorted[i].before(sorted[j]) })
		want := map[keyRef]bool{}
		if n > keep {
			for _, r := range sorted[keep:] {
				want[r] = true
			}
		}
		got := leastRecent(all, keep)
		if len(got) != len(want) {
			t.Fatalf("n %d keep %d: %d dropped, want %d", n, keep, len(got), len(want))
		}
		for _, r := range got {
			if !want[r] {
				t.Fatalf("n %d keep %d: dropped %v, which a sort keeps", n, keep, r)
			}
		}
	}
}
