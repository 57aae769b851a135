package keys

import (
	"slices"
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
