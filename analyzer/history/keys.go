package history

import (
	"github.com/partmon/partmon/analyzer/index"
	"math"
	"sort"
	"time"

	"github.com/partmon/partmon/analyzer/internal/set"
	"github.com/partmon/partmon/model"
)

// KeyHistory is every named key's figures over time, per table: the keys
// the node-local sources name (top_partitions, ScyllaDB's large_* tables,
// the sampler, Cassandra's own log warnings). A key keeps its series when
// it drops out of the sources and takes it up again when it returns, until
// it has been gone for MaxAge. Bounded: the top KeysPerTable of a table by
// size, by tombstones and by traffic share are recorded each cycle, a table
// keeps at most 3 × KeysPerTable series, the whole history MaxKeys series
// (the least recently seen go first), a series KeyPoints points.
type KeyHistory struct {
	// Tables is keyed by model.TableKey, then by the partition key.
	Tables map[string]map[string]*KeySeries `json:"tables"`
}

// KeySeries is one key's record.
type KeySeries struct {
	First int64 `json:"first"` // unix seconds it was first named
	Last  int64 `json:"last"`  // and last
	// Replicas are the nodes that named it, as last seen.
	Replicas []string   `json:"replicas"`
	Points   []KeyPoint `json:"points"`
}

// KeyPoint is [unix seconds, size bytes, tombstones, traffic share in
// millionths]; 0 where no source gave the figure that cycle.
type KeyPoint [4]int64

// keyKeepAlive: an unchanged key is recorded again only after this long.
const keyKeepAlive = 10 * time.Minute

// keyFigures is one key's figures in one snapshot.
type keyFigures struct {
	size, tombstones int64
	share            float64
	replicas         []string
}

// snapshotKeys merges every key the snapshot's node-local sources name, per
// table key: the largest size, the most tombstones and the highest sampled
// share any replica reports.
func snapshotKeys(ix *index.Index) map[string]map[string]*keyFigures {
	system := ix.Scope.System
	out := map[string]map[string]*keyFigures{}
	get := func(ks, t, key, addr string) *keyFigures {
		if system[ks] || key == "" {
			return nil
		}
		tk := model.TableKey(ks, t)
		m := out[tk]
		if m == nil {
			m = map[string]*keyFigures{}
			out[tk] = m
		}
		f := m[key]
		if f == nil {
			f = &keyFigures{}
			m[key] = f
		}
		f.replicas = set.AddSorted(f.replicas, addr)
		return f
	}
	for _, n := range ix.Nodes {
		nd := n.Data
		addr := nd.Address
		if addr == "" {
			addr = n.HostID
		}
		for _, p := range nd.TopPartitions {
			if f := get(p.Keyspace, p.Table, p.Key, addr); f != nil && p.Type == "SIZES" {
				f.size = max(f.size, p.Value)
			} else if f != nil && p.Type == "TOMBSTONES" {
				f.tombstones = max(f.tombstones, p.Value)
			}
		}
		for _, p := range nd.LargePartitions {
			if f := get(p.Keyspace, p.Table, p.Key, addr); f != nil {
				f.size = max(f.size, p.SizeBytes)
				f.tombstones = max(f.tombstones, p.DeadRows+p.RangeTombstones)
			}
		}
		for _, e := range nd.LogEvidence {
			f := get(e.Keyspace, e.Table, e.Key, addr)
			switch {
			case f == nil:
			case e.Kind == model.LogPartitionSize:
				f.size = max(f.size, e.Value)
			case e.Kind == model.LogPartitionTombstones:
				f.tombstones = max(f.tombstones, e.Value)
			}
		}
		for _, hp := range nd.HotPartitions {
			if f := get(hp.Keyspace, hp.Table, hp.Key, addr); f != nil && hp.Total > 0 {
				f.share = math.Max(f.share, float64(hp.Count-hp.Error)/float64(hp.Total))
			}
		}
	}
	return out
}

// recordKeys adds the snapshot's keys to the key history.
func (h *History) recordKeys(ix *index.Index, now int64) {
	if h.Keys == nil {
		h.Keys = &KeyHistory{}
	}
	if h.Keys.Tables == nil {
		h.Keys.Tables = map[string]map[string]*KeySeries{}
	}
	n := h.Limits.KeysPerTable
	for tk, keys := range snapshotKeys(ix) {
		series := h.Keys.Tables[tk]
		if series == nil {
			series = map[string]*KeySeries{}
			h.Keys.Tables[tk] = series
		}
		for key, f := range topKeyFigures(keys, n) {
			ks := series[key]
			if ks == nil {
				ks = &KeySeries{First: now}
				series[key] = ks
			}
			ks.Last, ks.Replicas = now, f.replicas
			p := KeyPoint{now, f.size, f.tombstones, int64(math.Round(f.share * 1e6))}
			ks.Points = appendKeyPoint(ks.Points, p, h.Limits.KeyPoints)
		}
		trimSeries(series, 3*n)
	}
}

// topKeyFigures keeps the top n keys by size, by tombstones and by share.
func topKeyFigures(keys map[string]*keyFigures, n int) map[string]*keyFigures {
	if len(keys) <= n {
		return keys
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	keep := map[string]*keyFigures{}
	for _, metric := range []func(*keyFigures) float64{
		func(f *keyFigures) float64 { return float64(f.size) },
		func(f *keyFigures) float64 { return float64(f.tombstones) },
		func(f *keyFigures) float64 { return f.share },
	} {
		sort.Slice(names, func(i, j int) bool {
			if a, b := metric(keys[names[i]]), metric(keys[names[j]]); a != b {
				return a > b
			}
			return names[i] < names[j]
		})
		for i := 0; i < n && i < len(names) && metric(keys[names[i]]) > 0; i++ {
			keep[names[i]] = keys[names[i]]
		}
	}
	return keep
}

// appendKeyPoint appends p unless it repeats the last point within the
// keep-alive, and thins the oldest half when the series is full.
func appendKeyPoint(pts []KeyPoint, p KeyPoint, limit int) []KeyPoint {
	if n := len(pts); n > 0 {
		last := pts[n-1]
		switch {
		case p[0] <= last[0]:
			return pts
		case p[1] == last[1] && p[2] == last[2] && p[3] == last[3] && p[0]-last[0] < int64(keyKeepAlive/time.Second):
			return pts
		}
	}
	pts = append(pts, p)
	for len(pts) > limit {
		pts = thinKeyPoints(pts)
	}
	return pts
}

// thinKeyPoints drops the point closest in time to its predecessor among
// the older half, so spacing grows with age and the first point stays.
func thinKeyPoints(pts []KeyPoint) []KeyPoint {
	best, gap := 1, int64(math.MaxInt64)
	for i := 1; i < len(pts)/2+1 && i < len(pts)-1; i++ {
		if g := pts[i][0] - pts[i-1][0]; g < gap {
			best, gap = i, g
		}
	}
	return append(pts[:best], pts[best+1:]...)
}

// trimSeries drops the least recently seen series past limit.
func trimSeries(series map[string]*KeySeries, limit int) {
	if len(series) <= limit {
		return
	}
	names := make([]string, 0, len(series))
	for k := range series {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if a, b := series[names[i]].Last, series[names[j]].Last; a != b {
			return a > b
		}
		return names[i] < names[j]
	})
	for _, k := range names[limit:] {
		delete(series, k)
	}
}

// pruneKeys drops series gone for longer than oldest allows, empty tables,
// and the least recently seen series past MaxKeys.
func (h *History) pruneKeys(oldest int64) {
	if h.Keys == nil {
		return
	}
	var all []keyRef
	for tk, series := range h.Keys.Tables {
		for k, ks := range series {
			if ks.Last < oldest {
				delete(series, k)
				continue
			}
			i := 0
			for i < len(ks.Points)-1 && ks.Points[i][0] < oldest {
				i++
			}
			ks.Points = ks.Points[i:]
			for len(ks.Points) > h.Limits.KeyPoints {
				ks.Points = thinKeyPoints(ks.Points)
			}
			all = append(all, keyRef{tk, k, ks.Last})
		}
		if len(series) == 0 {
			delete(h.Keys.Tables, tk)
		}
	}
	for _, r := range leastRecent(all, h.Limits.MaxKeys) {
		delete(h.Keys.Tables[r.table], r.key)
		if len(h.Keys.Tables[r.table]) == 0 {
			delete(h.Keys.Tables, r.table)
		}
	}
}

// keyRef is one key series: its table, key and when it was last seen.
type keyRef struct {
	table, key string
	last       int64
}

// before: a is kept before b (seen later, then by table and key).
func (a keyRef) before(b keyRef) bool {
	if a.last != b.last {
		return a.last > b.last
	}
	if a.table != b.table {
		return a.table < b.table
	}
	return a.key < b.key
}

// leastRecent is what is left of all past the keep series kept first: a
// heap of the keep best, its root the worst of them, so that pruning costs
// n log keep, not a sort of every series each cycle.
func leastRecent(all []keyRef, keep int) []keyRef {
	if len(all) <= keep {
		return nil
	}
	heap := make([]keyRef, 0, keep) // a max-heap by "kept later"
	var out []keyRef
	for _, r := range all {
		switch {
		case len(heap) < keep:
			heap = append(heap, r)
			for i := len(heap) - 1; i > 0; {
				p := (i - 1) / 2
				if !heap[p].before(heap[i]) {
					break
				}
				heap[p], heap[i] = heap[i], heap[p]
				i = p
			}
		case keep > 0 && r.before(heap[0]):
			out = append(out, heap[0])
			heap[0] = r
			siftDown(heap)
		default:
			out = append(out, r)
		}
	}
	return out
}

func siftDown(heap []keyRef) {
	for i := 0; ; {
		worst, l, r := i, 2*i+1, 2*i+2
		if l < len(heap) && heap[worst].before(heap[l]) {
			worst = l
		}
		if r < len(heap) && heap[worst].before(heap[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		heap[i], heap[worst] = heap[worst], heap[i]
		i = worst
	}
}

// KeysOf returns a table's key series, most recently seen first, then by
// largest size.
func (h *History) KeysOf(keyspace, table string) []NamedKeySeries {
	if h == nil || h.Keys == nil {
		return nil
	}
	var out []NamedKeySeries
	for k, ks := range h.Keys.Tables[model.TableKey(keyspace, table)] {
		out = append(out, NamedKeySeries{Key: k, KeySeries: *ks})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Last != out[j].Last {
			return out[i].Last > out[j].Last
		}
		return out[i].Key < out[j].Key
	})
	return out
}

// NamedKeySeries is a key with its series.
type NamedKeySeries struct {
	Key string `json:"key"`
	KeySeries
}
