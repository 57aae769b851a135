package keys

import (
	"fmt"
	"slices"
	"strconv"
	"testing"
)

type LearnInner struct {
	Key   string
	Other string
}

type learnTree struct {
	Name     string
	Figures  map[string]struct{ A, B int64 }
	Children []*learnTree
	Any      any
	LearnInner
	Lists map[string][]LearnInner
}

// LearnFrom finds every key field however deep, through pointers,
// interfaces, maps, embedded and recursive types, and learns no other string.
func TestLearnFromFindsEveryKey(t *testing.T) {
	k := New(Omitted, nil, 0)
	v := &learnTree{Name: "not-a-key", Figures: map[string]struct{ A, B int64 }{"x": {1, 2}},
		Children: []*learnTree{{LearnInner: LearnInner{Key: "k-child"}, Any: LearnInner{Key: "k-any"}}},
		Lists:    map[string][]LearnInner{"t": {{Key: "k-list", Other: "free"}}}}
	v.Key = "k-top"
	LearnFrom(k, v)
	var got []string
	for key := range k.known {
		got = append(got, key)
	}
	slices.Sort(got)
	if want := []string{"k-any", "k-child", "k-list", "k-top"}; !slices.Equal(got, want) {
		t.Errorf("learned %q, want %q", got, want)
	}
}

// The known keys: a set learned again keeps its matcher (no rebuild while
// nothing changes, even past maxKnown); the keys of the latest call are
// never forgotten; the set stays within its bound, the keys named least
// recently dropped first; Show and ID answer as before from what is kept.
func TestLearnKeepsASteadySetAndItsBound(t *testing.T) {
	names := func(prefix string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = prefix + strconv.Itoa(i)
		}
		return out
	}
	k := New(Hashed, secret, 0)
	fresh := New(Hashed, secret, 0)
	steady := names("steady-", maxKnown+5000) // more than maxKnown in one call
	k.Learn(steady...)
	m := k.learned()
	for i := 0; i < 3; i++ {
		k.Learn(steady...)
		k.Learn(steady[:10]...) // a report's keys, named again
		if k.learned() != m {
			t.Fatalf("round %d: the matcher was rebuilt for a key set that did not change", i)
		}
	}
	for _, key := range []string{steady[0], steady[len(steady)-1]} {
		if got, want := k.Show(key), fresh.Token(key); got != want {
			t.Errorf("Show(%q) = %q, want %q", key, got, want)
		}
		if got := k.Scrub("key " + key + " end"); got != "key "+fresh.Token(key)+" end" {
			t.Errorf("Scrub with %q = %q", key, got)
		}
	}
	if got, want := k.ID("finding-1"), fresh.ID("finding-1"); got != want || k.ID("finding-1") != want {
		t.Errorf("ID = %q, want %q", got, want)
	}
	// Many calls of new keys: the set stays within its bound and the last
	// call's keys stay known.
	var last []string
	for i := 0; i < 12; i++ {
		last = names(fmt.Sprintf("churn%d-", i), 10000)
		k.Learn(last...)
		if len(k.known) > k.limit {
			t.Fatalf("call %d: %d keys known, bound %d", i, len(k.known), k.limit)
		}
	}
	for _, key := range last {
		if k.known[key] == nil {
			t.Fatalf("key %q of the last call forgotten", key)
		}
	}
	if k.known[steady[0]] != nil {
		t.Errorf("the key named least recently still known")
	}
	if k.learned() == m {
		t.Errorf("the matcher was not rebuilt after the set changed")
	}
}
