package history

import (
	"github.com/partmon/partmon/analyzer/index"
	"math"
	"sort"
	"time"

	"github.com/partmon/partmon/model"
)

// Heat is the traffic of every busy table on every node over time, in
// columns between recorded snapshots: the data of the status page's ring
// heatmap. Columns share one timeline across tables, so the all-tables map
// adds them up column by column. It is part of History and persisted with it.
type Heat struct {
	// Nodes are the host IDs the columns' rate slices are indexed by.
	Nodes []string `json:"nodes"`
	// Last is when the newest column ends (the last recorded snapshot).
	Last    int64        `json:"last"`
	Columns []HeatColumn `json:"columns"`
}

// HeatColumn is the rates of one span of time.
type HeatColumn struct {
	Start int64 `json:"start"` // unix seconds
	End   int64 `json:"end"`
	// Tables holds the tables with traffic in the span (a table absent had
	// none, or was not among the busiest HeatTables), by model.TableKey.
	Tables map[string]HeatRates `json:"tables"`
	// Keys are the hot keys the snapshot's samplers name for those tables,
	// the most counted first, at most HeatKeys a table.
	Keys map[string][]string `json:"keys,omitempty"`
}

// HeatKeys bounds the hot keys a column keeps per table.
const HeatKeys = 3

// HeatRates are one table's local reads and writes per second on each node
// (indexed like Heat.Nodes; shorter slices end in unknowns), NoRate where
// the node gave no rate: not read, restarted (its counter went down) or new.
type HeatRates struct {
	Reads  []float64 `json:"r"`
	Writes []float64 `json:"w"`
}

// NoRate marks a node without a rate in a column (JSON has no NaN).
const NoRate = -1

// rate is the node's rate at index i, NoRate beyond the slice.
func RateAt(rates []float64, i int) float64 {
	if i < len(rates) {
		return rates[i]
	}
	return NoRate
}

func (h *Heat) NodeIndex(hostID string) int {
	for i, id := range h.Nodes {
		if id == hostID {
			return i
		}
	}
	h.Nodes = append(h.Nodes, hostID)
	return len(h.Nodes) - 1
}

// recordHeat adds the column from the last recorded snapshot to the
// indexed one (taken at now), from the traffic counters History holds for
// each (node, table): call it before they are replaced by the snapshot's.
// The first snapshot only starts the timeline.
func (h *History) recordHeat(ix *index.Index, now int64) {
	if h.Heat == nil {
		h.Heat = &Heat{}
	}
	heat := h.Heat
	if now <= heat.Last {
		return // same or older snapshot
	}
	start := heat.Last
	heat.Last = now
	if start == 0 {
		return
	}
	stale := ix.Scope.StaleTraffic
	col := HeatColumn{Start: start, End: now, Tables: map[string]HeatRates{}}
	at := make(map[string]int, len(ix.Nodes))
	for _, n := range ix.Nodes {
		if !stale[n.HostID] {
			at[n.HostID] = heat.NodeIndex(n.HostID)
		}
	}
	for _, t := range ix.Tables {
		rates := HeatRates{}
		for _, row := range t.Nodes {
			hostID := row.Node.HostID
			if stale[hostID] {
				continue
			}
			i := at[hostID]
			r, w := h.stepRates(hostID, t.Key, row.Raw, now)
			for len(rates.Reads) <= i {
				rates.Reads, rates.Writes = append(rates.Reads, NoRate), append(rates.Writes, NoRate)
			}
			rates.Reads[i], rates.Writes[i] = r, w
		}
		if Busiest(rates) > 0 { // idle tables cost nothing to store
			col.Tables[t.Key] = rates
		}
	}
	capTables(col.Tables, h.Limits.HeatTables)
	col.Keys = sampledKeys(ix, col.Tables)
	heat.Columns = append(heat.Columns, col)
	for len(heat.Columns) > h.Limits.HeatColumns {
		heat.Columns = mergeOnce(heat.Columns, now)
	}
}

// stepRates are the node's read and write rates on the table since its
// last traffic point; NoRate without one (unless the node has served the
// table nothing since it started: then 0), or when a counter went down.
func (h *History) stepRates(hostID, key string, ts *model.TableStats, now int64) (float64, float64) {
	pts := h.Traffic[hostID][key]
	if len(pts) == 0 {
		if ts.LocalReads.Count == 0 && ts.LocalWrites.Count == 0 {
			return 0, 0
		}
		return NoRate, NoRate
	}
	last := pts[len(pts)-1]
	span := float64(now - last[0])
	if span <= 0 || ts.LocalReads.Count < last[1] || ts.LocalWrites.Count < last[2] {
		return NoRate, NoRate
	}
	return float64(ts.LocalReads.Count-last[1]) / span, float64(ts.LocalWrites.Count-last[2]) / span
}

// sampledKeys are the keys the snapshot's samplers counted most, per table
// of the column.
func sampledKeys(ix *index.Index, tables map[string]HeatRates) map[string][]string {
	counts := map[string]map[string]int64{}
	for _, n := range ix.Nodes {
		for _, hp := range n.Data.HotPartitions {
			key := model.TableKey(hp.Keyspace, hp.Table)
			if _, ok := tables[key]; !ok || hp.Key == "" || hp.Count <= 0 {
				continue
			}
			if counts[key] == nil {
				counts[key] = map[string]int64{}
			}
			counts[key][hp.Key] += hp.Count
		}
	}
	if len(counts) == 0 {
		return nil
	}
	out := make(map[string][]string, len(counts))
	for table, byKey := range counts {
		keys := make([]string, 0, len(byKey))
		for k := range byKey {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if byKey[keys[i]] != byKey[keys[j]] {
				return byKey[keys[i]] > byKey[keys[j]]
			}
			return keys[i] < keys[j]
		})
		out[table] = keys[:min(len(keys), HeatKeys)]
	}
	return out
}

// mergeKeys is the union of two columns' keys, a's first, bounded.
func mergeKeys(a, b map[string][]string) map[string][]string {
	if len(a) == 0 && len(b) == 0 {
		return nil
	}
	out := map[string][]string{}
	for _, m := range []map[string][]string{a, b} {
		for table, keys := range m {
			for _, k := range keys {
				if len(out[table]) < HeatKeys && !hasKey(out[table], k) {
					out[table] = append(out[table], k)
				}
			}
		}
	}
	return out
}

func hasKey(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Busiest is the table's largest known rate sum in the column: its traffic.
func Busiest(r HeatRates) float64 {
	var sum float64
	for i := range r.Reads {
		sum += max(0, r.Reads[i]) + max(0, RateAt(r.Writes, i))
	}
	return sum
}

// capTables keeps the limit busiest tables of a column.
func capTables(tables map[string]HeatRates, limit int) {
	if len(tables) <= limit {
		return
	}
	keys := make([]string, 0, len(tables))
	traffic := make(map[string]float64, len(tables))
	for k, r := range tables {
		keys = append(keys, k)
		traffic[k] = Busiest(r)
	}
	sort.Slice(keys, func(i, j int) bool {
		if bi, bj := traffic[keys[i]], traffic[keys[j]]; bi != bj {
			return bi > bj
		}
		return keys[i] < keys[j]
	})
	for _, k := range keys[limit:] {
		delete(tables, k)
	}
}

// mergeOnce merges the adjacent pair of columns whose merged span is the
// smallest against its age, the oldest on a tie: old columns absorb their
// neighbours first, so a column's span grows with its age while recent
// columns stay one cycle wide.
func mergeOnce(cols []HeatColumn, now int64) []HeatColumn {
	best, bestCost := 0, math.Inf(1)
	for i := 0; i+1 < len(cols); i++ {
		age := float64(max(1, now-cols[i+1].End))
		cost := float64(cols[i+1].End-cols[i].Start) / age
		if cost < bestCost {
			best, bestCost = i, cost
		}
	}
	merged := mergeColumns(cols[best], cols[best+1])
	out := append(cols[:best], merged)
	return append(out, cols[best+2:]...)
}

// mergeColumns is a and b as one column: each node's rate is the
// time-weighted mean over the part of the span it has a rate for (a table
// absent from one column had no traffic there: 0).
func mergeColumns(a, b HeatColumn) HeatColumn {
	da, db := float64(a.End-a.Start), float64(b.End-b.Start)
	out := HeatColumn{Start: a.Start, End: b.End, Tables: map[string]HeatRates{}, Keys: mergeKeys(a.Keys, b.Keys)}
	for _, key := range unionKeys(a.Tables, b.Tables) {
		ra, okA := a.Tables[key]
		rb, okB := b.Tables[key]
		n := max(len(ra.Reads), len(rb.Reads))
		m := HeatRates{Reads: make([]float64, n), Writes: make([]float64, n)}
		for i := 0; i < n; i++ {
			m.Reads[i] = weighted(rateOrZero(ra.Reads, i, okA), da, rateOrZero(rb.Reads, i, okB), db)
			m.Writes[i] = weighted(rateOrZero(ra.Writes, i, okA), da, rateOrZero(rb.Writes, i, okB), db)
		}
		out.Tables[key] = m
	}
	return out
}

// rateOrZero is a node's rate in a column where the table had traffic, 0
// in one where it had none.
func rateOrZero(rates []float64, i int, present bool) float64 {
	if !present {
		return 0
	}
	return RateAt(rates, i)
}

func weighted(ra, da, rb, db float64) float64 {
	switch {
	case ra < 0 && rb < 0:
		return NoRate
	case ra < 0 || da <= 0:
		return rb
	case rb < 0 || db <= 0:
		return ra
	}
	return (ra*da + rb*db) / (da + db)
}

func unionKeys(a, b map[string]HeatRates) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, dup := a[k]; !dup {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// pruneHeat drops columns that ended more than MaxAge ago (and with them
// tables gone that long), merges down to the column limit (after a lower
// limit at load) and forgets nodes no column names.
func (h *History) pruneHeat(now int64) {
	heat := h.Heat
	if heat == nil {
		return
	}
	oldest := now - int64(h.Limits.MaxAge/time.Second)
	i := 0
	for i < len(heat.Columns) && heat.Columns[i].End < oldest {
		i++
	}
	heat.Columns = heat.Columns[i:]
	for len(heat.Columns) > h.Limits.HeatColumns {
		heat.Columns = mergeOnce(heat.Columns, now)
	}
	for c := range heat.Columns {
		capTables(heat.Columns[c].Tables, h.Limits.HeatTables)
	}
	heat.compactNodes()
}

// compactNodes drops host IDs without a rate in any column, re-indexing
// the columns, so nodes that left the ring leave the history too.
func (h *Heat) compactNodes() {
	used := make([]bool, len(h.Nodes))
	for _, c := range h.Columns {
		for _, r := range c.Tables {
			for i := range r.Reads {
				if i < len(used) && (r.Reads[i] >= 0 || RateAt(r.Writes, i) >= 0) {
					used[i] = true
				}
			}
		}
	}
	keep := make([]int, 0, len(h.Nodes))
	for i, u := range used {
		if u {
			keep = append(keep, i)
		}
	}
	if len(keep) == len(h.Nodes) {
		return
	}
	nodes := make([]string, len(keep))
	for j, i := range keep {
		nodes[j] = h.Nodes[i]
	}
	h.Nodes = nodes
	for _, c := range h.Columns {
		for key, r := range c.Tables {
			m := HeatRates{Reads: make([]float64, len(keep)), Writes: make([]float64, len(keep))}
			for j, i := range keep {
				m.Reads[j], m.Writes[j] = RateAt(r.Reads, i), RateAt(r.Writes, i)
			}
			c.Tables[key] = m
		}
	}
}
