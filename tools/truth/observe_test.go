package truth

import (
	"errors"
	"sync"
	"testing"
	"time"
)

// TestOnEachNodeNeverMeetsOnANode: a node's pairs run one after the other
// (two profileload windows on one node would share its samplers), every
// pair runs, errors are all returned, and different nodes do run together.
func TestOnEachNodeNeverMeetsOnANode(t *testing.T) {
	pairs := []nodeTable{
		{"n1", "ks.a"}, {"n1", "ks.b"}, {"n1", "ks.c"},
		{"n2", "ks.a"}, {"n2", "ks.b"},
		{"n3", "ks.a"},
	}
	var mu sync.Mutex
	running := map[string]int{}
	ran := map[nodeTable]bool{}
	most, together := 0, 0
	errs := onEachNode(pairs, func(p nodeTable) error {
		mu.Lock()
		running[p.node]++
		most = max(most, running[p.node])
		busy := 0
		for _, n := range running {
			if n > 0 {
				busy++
			}
		}
		together = max(together, busy)
		ran[p] = true
		mu.Unlock()
		// Stay until another node is busy too (or long enough to tell that
		// none will be): lanes that ran one after the other fail below.
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			mu.Lock()
			seen := together
			mu.Unlock()
			if seen >= 2 {
				break
			}
			time.Sleep(time.Millisecond)
		}
		mu.Lock()
		running[p.node]--
		mu.Unlock()
		if p.table == "ks.b" {
			return errors.New(p.node + " failed")
		}
		return nil
	})
	if most != 1 {
		t.Errorf("up to %d pairs ran at once on one node, want 1", most)
	}
	if together < 2 {
		t.Errorf("at most %d nodes sampled at once, want the nodes side by side", together)
	}
	if len(ran) != len(pairs) {
		t.Errorf("%d of %d pairs ran", len(ran), len(pairs))
	}
	if len(errs) != 2 {
		t.Errorf("got %d errors (%v), want the 2 of the failing pairs", len(errs), errs)
	}
}
