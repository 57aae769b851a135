package web

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/ring"
)

const (
	// replicaMaxSets bounds one DC's rows: 6 nodes at RF 3 make at most
	// 20 sets; a large ring's tail is summed in one line.
	replicaMaxSets = 24
	replicaSetBar  = 100.0 // px of the largest set's bar
)

// replicaSetGroup is one DC's ranges grouped by the nodes holding their
// replicas there (the whole ring for SimpleStrategy): on a vnode ring the
// replica rings are a barcode, while the sets are few.
type replicaSetGroup struct {
	ID, DC, Label string
	RF, Ranges    int
	BarWidth      float64
	Sets          []replicaSet
	More          string // the rows left out, summed
	Note          string
}

// replicaSet is the ranges one set of nodes holds, whatever their order
// on the ring walk: Share is the sum of their widths.
type replicaSet struct {
	ID        string
	Nodes     []replicaSetNode
	Addresses string // space-separated, for tests and scripts
	Share     float64
	ShareText string
	Bar       string
	Ranges    int
	Hot       []hotRange // the hot ranges in it, hottest first
	hotFirst  int        // the hottest's number, 0 for none
	key       string
}

type replicaSetNode struct{ Address, Paint string }

// replicaSetGroups groups p's ranges by replica set per DC and marks the
// sets holding the hot ranges of p's keyspaces. Sets holding hot ranges
// come first (hottest first), then the rest by share, largest first.
func replicaSetGroups(r *analyzer.Report, p analyzer.Placement, picID string, index map[string]int, used map[int]bool, hot []hotRange) []replicaSetGroup {
	if len(p.Ranges) == 0 {
		return nil
	}
	var out []replicaSetGroup
	for d, dc := range p.DCs {
		g := replicaSetGroup{ID: fmt.Sprintf("%s-sets-%d", picID, d+1), DC: dc.DC, RF: dc.RF, Ranges: len(p.Ranges),
			BarWidth: replicaSetBar, Label: strings.TrimSpace(dc.DC + " rf " + strconv.Itoa(dc.RF))}
		sets := map[string]*replicaSet{}
		var fewer, none int
		for i := range p.Ranges {
			if len(dc.Holders[i]) == 0 {
				none++
				continue
			}
			if len(dc.Holders[i]) < dc.RF {
				fewer++
			}
			s := setOf(r, dc.Holders[i], index, used, sets)
			s.Share += rangeWidth(p.Ranges, i)
			s.Ranges++
		}
		for _, h := range hot {
			if !containsString(p.Keyspaces, h.Keyspace) {
				continue
			}
			if i := placementRange(p, h.KeyToken); len(dc.Holders[i]) > 0 {
				s := setOf(r, dc.Holders[i], index, used, sets)
				s.Hot = append(s.Hot, h)
				if s.hotFirst == 0 {
					s.hotFirst = h.Number
				}
			}
		}
		g.Sets, g.More = sortSets(sets, g.ID)
		g.Note = setsNote(dc, none, fewer)
		out = append(out, g)
	}
	return out
}

// setOf is the set of holders (any order), made on first sight.
func setOf(r *analyzer.Report, holders []string, index map[string]int, used map[int]bool, sets map[string]*replicaSet) *replicaSet {
	type member struct {
		i    int
		name string
	}
	ms := make([]member, len(holders))
	for k, h := range holders {
		i, ok := index[h]
		if !ok {
			ms[k] = member{len(r.Nodes), "host " + h} // not among the report's nodes
			continue
		}
		ms[k] = member{i, r.Nodes[i].Address}
	}
	sort.Slice(ms, func(a, b int) bool { return ms[a].i < ms[b].i || ms[a].i == ms[b].i && ms[a].name < ms[b].name })
	names := make([]string, len(ms))
	for k, m := range ms {
		names[k] = m.name
	}
	key := strings.Join(names, " ")
	if s, ok := sets[key]; ok {
		return s
	}
	s := &replicaSet{key: key, Addresses: key}
	for _, m := range ms {
		paint := "#fff"
		if m.i < len(r.Nodes) {
			_, _, paint = nodePaint(m.i)
			used[m.i] = true
		}
		s.Nodes = append(s.Nodes, replicaSetNode{Address: m.name, Paint: paint})
	}
	sets[key] = s
	return s
}

// sortSets orders the sets, hot first, and keeps replicaMaxSets rows (every
// hot set among them: there are at most hotRangeMax).
func sortSets(sets map[string]*replicaSet, id string) ([]replicaSet, string) {
	list := make([]replicaSet, 0, len(sets))
	for _, s := range sets {
		list = append(list, *s)
	}
	sort.Slice(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if (a.hotFirst > 0) != (b.hotFirst > 0) {
			return a.hotFirst > 0
		}
		if a.hotFirst != b.hotFirst {
			return a.hotFirst < b.hotFirst
		}
		if a.Share != b.Share {
			return a.Share > b.Share
		}
		return a.key < b.key
	})
	largest := 0.0
	for _, s := range list {
		largest = max(largest, s.Share)
	}
	var more string
	if len(list) > replicaMaxSets {
		var share float64
		var ranges int
		for _, s := range list[replicaMaxSets:] {
			share += s.Share
			ranges += s.Ranges
		}
		more = fmt.Sprintf("%d more sets, %s of the ring in %s, are not listed", len(list)-replicaMaxSets, smallPercent(share), rangesText(ranges))
		list = list[:replicaMaxSets]
	}
	for i := range list {
		list[i].ID = fmt.Sprintf("%s-%d", id, i+1)
		list[i].ShareText = smallPercent(list[i].Share)
		if largest > 0 {
			list[i].Bar = num(replicaSetBar * list[i].Share / largest)
		}
	}
	return list, more
}

func setsNote(dc ring.DCReplicas, none, fewer int) string {
	var notes []string
	if none > 0 {
		notes = append(notes, fmt.Sprintf("%s with no replica here", rangesText(none)))
	}
	if fewer > 0 {
		notes = append(notes, fmt.Sprintf("%s with fewer replicas than rf %d: the DC has fewer nodes", rangesText(fewer), dc.RF))
	}
	return strings.Join(notes, "; ")
}

// rangeWidth is range i's exact share of the ring from its token bounds
// (the placement's Share is nodetool's, rounded to six digits: 1,536 of
// them can be off by 0.08 pp in sum).
func rangeWidth(ranges []ring.TokenRange, i int) float64 {
	if len(ranges) == 1 {
		return 1
	}
	return float64(uint64(ranges[i].End-ranges[i].Start)) / (1 << 64)
}

// placementRange is the index of p's range holding token: the first
// range ending at or after it, else the wrapping first one.
func placementRange(p analyzer.Placement, token int64) int {
	i := sort.Search(len(p.Ranges), func(i int) bool { return p.Ranges[i].End >= token })
	if i == len(p.Ranges) {
		return 0
	}
	return i
}

// linkHotSets points each hot range at the first set row holding it.
func linkHotSets(hot []hotRange, pics replicaPictures) {
	for i := range hot {
	search:
		for _, pic := range pics.Pictures {
			for _, g := range pic.Sets {
				for _, s := range g.Sets {
					for _, h := range s.Hot {
						if h.Number == hot[i].Number {
							hot[i].SetID = s.ID
							break search
						}
					}
				}
			}
		}
	}
}
