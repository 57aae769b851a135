package web

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/internal/format"
)

// hotRangeMax bounds the hot ranges listed under the ring.
const hotRangeMax = 8

// hotRange is the ring range holding a sampled hot key: the one place on
// a ring of hundreds of vnode ranges a reader needs to find, with the
// nodes that serve it.
type hotRange struct {
	Key, Table, Token string
	Keyspace          string
	KeyToken          int64
	Range, Share      string // "(start, end]" and its share of the ring
	Owner             string // the node whose token ends the range
	Replicas          string // every replica, "dc1 replica 1 10.0.0.1, …", or why unknown
	Sampled           string // the key's share of its table's sampled operations
	Start, End        int64
	OwnerIndex        int    // index into the report's nodes
	Number            int    // 1-based, as the ring's pointer is labelled
	SetID             string // the replica-set row holding it (replica_sets.go), if drawn
}

// hotRanges are the ranges holding the drawn heatmaps' placed hot keys,
// hottest first, each key once.
func hotRanges(r *analyzer.Report, ring []ringToken) []hotRange {
	if r.Heat == nil || len(ring) == 0 {
		return nil
	}
	type keyed struct {
		k     analyzer.HeatKey
		order int
	}
	seen := map[string]bool{}
	var keys []keyed
	drawn, _ := heatmapsDrawn(r.Heat.Maps)
	for _, m := range drawn {
		for _, k := range m.Keys {
			id := k.Keyspace + "." + k.Table + "\x00" + k.Key
			if !k.OK || seen[id] {
				continue
			}
			seen[id] = true
			keys = append(keys, keyed{k, len(keys)})
		}
	}
	sort.SliceStable(keys, func(i, j int) bool { return keys[i].k.Share > keys[j].k.Share })
	var out []hotRange
	for _, kd := range keys {
		if len(out) == hotRangeMax {
			break
		}
		h := newHotRange(r, ring, kd.k)
		h.Number = len(out) + 1
		out = append(out, h)
	}
	return out
}

func newHotRange(r *analyzer.Report, ring []ringToken, k analyzer.HeatKey) hotRange {
	// The range (previous token, token] holding k: the first token at or
	// after it, else the wrapping range ending at the first token.
	i := sort.Search(len(ring), func(i int) bool { return ring[i].token >= k.Token })
	if i == len(ring) {
		i = 0
	}
	start := ring[(i+len(ring)-1)%len(ring)].token
	end := ring[i].token
	share := float64(uint64(end-start)) / (1 << 64)
	if len(ring) == 1 {
		share = 1
	}
	h := hotRange{Key: k.Key, Table: k.Keyspace + "." + k.Table, Token: fmt.Sprint(k.Token), Keyspace: k.Keyspace, KeyToken: k.Token,
		Range: fmt.Sprintf("(%d, %d]", start, end), Share: smallPercent(share),
		Owner: r.Nodes[ring[i].node].Address, Start: start, End: end, OwnerIndex: ring[i].node,
		Replicas: replicasOf(r, k.Keyspace, k.Token)}
	if k.Share > 0 {
		h.Sampled = format.PercentCell(k.Share)
	}
	return h
}

// replicasOf names the nodes holding the replicas of token in keyspace's
// placement, in placement order per DC.
func replicasOf(r *analyzer.Report, keyspace string, token int64) string {
	address := map[string]string{}
	for _, n := range r.Nodes {
		address[n.HostID] = n.Address
	}
	for _, p := range r.Placements {
		if !containsString(p.Keyspaces, keyspace) || len(p.Ranges) == 0 {
			continue
		}
		i := placementRange(p, token)
		var names []string
		for _, dc := range p.DCs {
			for k, host := range dc.Holders[i] {
				names = append(names, replicaLabel(dc.DC, k+1)+" "+address[host])
			}
		}
		if len(names) == 0 {
			return "none: " + p.Replication + " places no replica here"
		}
		return strings.Join(names, ", ")
	}
	return "unknown: no replica sets for " + keyspace + " (replication not understood, or a ring of more than 4,096 ranges)"
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// smallPercent keeps two significant digits of the thin ranges of a
// vnode ring (a 256-token range is about 0.1 % of a 3-node ring).
func smallPercent(f float64) string {
	if f >= 0.01 {
		return format.Percent(f)
	}
	return strconv.FormatFloat(f*100, 'g', 2, 64) + " %"
}
