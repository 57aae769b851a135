package keys

import (
	"slices"
	"sort"
	"strings"
	"sync"
)

// matcher finds every learned key form in a string in one pass
// (Aho–Corasick over the forms' bytes), however many keys are known; it is
// built once per change of the key set. Replacement keeps the rule a
// search per form had: longest form first (then the smaller text), every
// occurrence standing as a word, left to right, none overlapping one
// already replaced. Word boundaries are read in the original string.
type matcher struct {
	forms []form  // by priority: longest first, then by text
	first []int32 // node i's edges are edges[first[i]:first[i+1]], by byte
	edges []edge
	fail  []int32 // the longest proper suffix of node i's text that is a node
	out   []int32 // the form ending at node i, its index in forms; -1 for none
	dict  []int32 // the next node down i's fail chain with a form; 0 for none

	mu   sync.Mutex
	memo map[string]string // strings scrubbed before (bounded by memoMax)
}

type edge struct {
	b  byte
	to int32
}

// The memo holds up to memoMax strings of up to memoMaxLen bytes, then
// starts afresh: a report's summaries and sources repeat from cycle to
// cycle, log lines mostly do not.
const (
	memoMax    = 8192
	memoMaxLen = 2048
)

// newMatcher builds the matcher of forms; two forms of the same text keep
// the one whose replacement sorts first.
func newMatcher(forms []form) *matcher {
	slices.SortFunc(forms, func(a, b form) int {
		if c := strings.Compare(a.text, b.text); c != 0 {
			return c
		}
		return strings.Compare(a.shown, b.shown)
	})
	size := 1 // nodes at most: the root and a node per byte
	for _, f := range forms {
		size += len(f.text)
	}
	m := &matcher{memo: map[string]string{}}
	type tmpEdge struct {
		from int32
		edge
	}
	edges := make([]tmpEdge, 0, size-1)
	m.out = make([]int32, 1, size)
	m.out[0] = -1
	var path []int32 // path[d] is the node of the previous text's first d+1 bytes
	prev := ""
	for _, f := range forms {
		if f.text == "" || (f.text == prev && len(m.forms) > 0) {
			continue
		}
		lcp := 0
		for lcp < len(prev) && lcp < len(f.text) && prev[lcp] == f.text[lcp] {
			lcp++
		}
		path = path[:lcp]
		node := int32(0)
		if lcp > 0 {
			node = path[lcp-1]
		}
		for d := lcp; d < len(f.text); d++ {
			next := int32(len(m.out))
			m.out = append(m.out, -1)
			edges = append(edges, tmpEdge{node, edge{f.text[d], next}})
			path = append(path, next)
			node = next
		}
		m.out[node] = int32(len(m.forms))
		m.forms = append(m.forms, f)
		prev = f.text
	}
	// Edges grouped by node: the texts came in byte order, so each node's
	// edges come in byte order too.
	n := len(m.out)
	m.first = make([]int32, n+1)
	for _, e := range edges {
		m.first[e.from+1]++
	}
	for i := 1; i <= n; i++ {
		m.first[i] += m.first[i-1]
	}
	m.edges = make([]edge, len(edges))
	at := append([]int32(nil), m.first[:n]...)
	for _, e := range edges {
		m.edges[at[e.from]] = e.edge
		at[e.from]++
	}
	m.links()
	m.rank()
	return m
}

// links sets the fail and dict links, breadth first.
func (m *matcher) links() {
	n := len(m.out)
	m.fail, m.dict = make([]int32, n), make([]int32, n)
	queue := make([]int32, 0, n)
	for _, e := range m.edges[m.first[0]:m.first[1]] {
		queue = append(queue, e.to)
	}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, e := range m.edges[m.first[u]:m.first[u+1]] {
			f := m.fail[u]
			for f != 0 && m.child(f, e.b) < 0 {
				f = m.fail[f]
			}
			if c := m.child(f, e.b); c >= 0 && c != e.to {
				m.fail[e.to] = c
			}
			if fv := m.fail[e.to]; m.out[fv] >= 0 {
				m.dict[e.to] = fv
			} else {
				m.dict[e.to] = m.dict[fv]
			}
			queue = append(queue, e.to)
		}
	}
}

// rank renumbers the forms by priority: longest first, then by text.
func (m *matcher) rank() {
	idx := make([]int32, len(m.forms))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(i, j int32) int {
		a, b := m.forms[i].text, m.forms[j].text
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	newOf := make([]int32, len(idx))
	forms := make([]form, len(idx))
	for r, old := range idx {
		newOf[old] = int32(r)
		forms[r] = m.forms[old]
	}
	m.forms = forms
	for i, o := range m.out {
		if o >= 0 {
			m.out[i] = newOf[o]
		}
	}
}

// child is the node after u on byte b, -1 for none.
func (m *matcher) child(u int32, b byte) int32 {
	es := m.edges[m.first[u]:m.first[u+1]]
	lo, hi := 0, len(es)
	for lo < hi {
		mid := (lo + hi) / 2
		if es[mid].b < b {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(es) && es[lo].b == b {
		return es[lo].to
	}
	return -1
}

// match is one occurrence of forms[form] standing as a word at s[start:].
type match struct{ start, form int32 }

// scrub replaces the forms standing as words in s.
func (m *matcher) scrub(s string) string {
	memo := len(s) <= memoMaxLen
	if memo {
		m.mu.Lock()
		r, ok := m.memo[s]
		m.mu.Unlock()
		if ok {
			return r
		}
	}
	r := m.replace(s, m.find(s))
	if memo {
		m.mu.Lock()
		if len(m.memo) >= memoMax {
			m.memo = map[string]string{}
		}
		m.memo[s] = r
		m.mu.Unlock()
	}
	return r
}

// find lists every form's occurrences in s that stand as words.
func (m *matcher) find(s string) []match {
	var found []match
	u := int32(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		for {
			if v := m.child(u, c); v >= 0 {
				u = v
				break
			}
			if u == 0 {
				break
			}
			u = m.fail[u]
		}
		o := u
		if m.out[o] < 0 {
			o = m.dict[o]
		}
		for ; o != 0; o = m.dict[o] {
			f := m.out[o]
			text := m.forms[f].text
			start, end := i+1-len(text), i+1
			before := start == 0 || !isWord(text[0]) || !isWord(s[start-1])
			after := end == len(s) || !isWord(text[len(text)-1]) || !isWord(s[end])
			if before && after {
				found = append(found, match{int32(start), f})
			}
		}
	}
	return found
}

// replace writes s with the occurrences found replaced, the first form
// by priority first, each left to right, skipping any that overlaps one
// taken.
func (m *matcher) replace(s string, found []match) string {
	if len(found) == 0 {
		return s
	}
	sort.Slice(found, func(i, j int) bool {
		if found[i].form != found[j].form {
			return found[i].form < found[j].form
		}
		return found[i].start < found[j].start
	})
	var taken []match // by start
	for _, f := range found {
		start, end := int(f.start), int(f.start)+len(m.forms[f.form].text)
		i := sort.Search(len(taken), func(i int) bool { return int(taken[i].start) >= start })
		if i < len(taken) && int(taken[i].start) < end {
			continue // overlaps the next taken
		}
		if i > 0 && int(taken[i-1].start)+len(m.forms[taken[i-1].form].text) > start {
			continue // overlaps the previous taken
		}
		taken = append(taken, match{})
		copy(taken[i+1:], taken[i:])
		taken[i] = f
	}
	var b []byte
	at := 0
	for _, t := range taken {
		b = append(b, s[at:t.start]...)
		b = append(b, m.forms[t.form].shown...)
		at = int(t.start) + len(m.forms[t.form].text)
	}
	return string(append(b, s[at:]...))
}
