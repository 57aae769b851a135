package figures

import (
	"fmt"
	"sort"
	"strings"

	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/analyzer/index"
	"github.com/partmon/partmon/internal/format"
	"github.com/partmon/partmon/internal/murmur3"
	"github.com/partmon/partmon/ring"
)

// HeatMaps are the ring heatmaps of one report: the figures only; which
// of them a page draws, and in what order, is the page's (web/heatmap_layout.go).
type HeatMaps struct {
	// Maps are all user tables together first (Keyspace and Table ""), then
	// one per table with traffic in the heat history, in the report's table
	// order (keyspace, then table).
	Maps []HeatMap
}

// HeatMap is a table's (or all tables') traffic on each node over time,
// against each node's fair share by effective ownership.
type HeatMap struct {
	Keyspace, Table string
	Columns         []HeatSpan
	Nodes           []HeatNode // the ring's nodes with tokens, as in the report
	Keys            []HeatKey
	// ReadRate and WriteRate are the table's mean ops/s over the columns
	// on the ring's nodes.
	ReadRate, WriteRate float64
	// Traffic is the table's mean reads plus writes per second over the
	// columns on every node the history has rates of (0 on the all-tables map).
	Traffic  float64
	Findings int // active findings on the table
}

// HeatSpan is one column: unix seconds.
type HeatSpan struct{ Start, End int64 }

// HeatNode is one node's cells, one per column.
type HeatNode struct {
	HostID, Address, DC string
	Reads, Writes       []HeatCell
}

// HeatCell is one node in one column: Rate in ops/s (negative: no data),
// Share of its placement group's (DC's) operations, Ratio = Share ÷ the
// node's fair share by effective ownership. Ratio 0 means none could be
// given, and Note says why.
type HeatCell struct {
	Rate, Share, Ratio float64
	Note               string
}

// HeatKey is a sampled hot key placed on the ring: Token where OK, else Why
// it cannot be placed. Columns are the columns it was seen in, oldest
// first: those whose snapshot's samplers named it, and the newest for a
// key of this report's samples or findings.
type HeatKey struct {
	Keyspace, Table, Key string
	Token                int64
	OK                   bool
	Why                  string
	Columns              []int
	Share                float64 // of the table's sampled operations; 0 unknown
}

// Heat is what the heatmaps take beside the index and the history: the
// report's findings counted per table, the keys this cycle names, and the
// traffic floor a cell is judged against.
type Heat struct {
	// Findings is the number of active findings by table key.
	Findings map[string]int
	// Keys are, by table key, the keys this cycle's samples and hot
	// partition findings name, in the order they are placed.
	Keys map[string][]SharedKey
	// TrafficFloor is thresholds' traffic_floor_ops_per_second.
	TrafficFloor float64
}

// SharedKey is a key with its share of the table's sampled operations (0
// unknown).
type SharedKey struct {
	Key   string
	Share float64
}

// HeatMapsOf builds the report's heatmaps from the history's columns with
// the current ownership, one per table with traffic and the all-tables map;
// nil without columns.
func HeatMapsOf(ix *index.Index, h *history.History, in Heat) *HeatMaps {
	heat := h.Heat
	if heat == nil || len(heat.Columns) == 0 {
		return nil
	}
	a := heatBuilder{ix: ix, heat: heat, in: in}
	cols := make([]HeatSpan, len(heat.Columns))
	for i, c := range heat.Columns {
		cols[i] = HeatSpan{c.Start, c.End}
	}
	idx := make(map[string]int, len(heat.Nodes))
	for i, id := range heat.Nodes {
		idx[id] = i
	}
	total := a.newHeatMap(cols, nil)
	var tablesIn []table
	var order []HeatMap // each table's findings and traffic: what a page orders them by
	for _, t := range tablesOf(ix) {
		if inHeat(heat, t.key) {
			tablesIn = append(tablesIn, t)
			order = append(order, HeatMap{Findings: in.Findings[t.key], Traffic: heatTraffic(heat, t.key)})
		}
	}
	withCells := heatMapsWithCells(order)
	scratch := a.newHeatMap(cols, nil) // the cells of a table no page draws
	tables := make([]HeatMap, 0, len(tablesIn))
	for i, t := range tablesIn {
		m := scratch
		if withCells[i] {
			m = a.newHeatMap(cols, &t)
		}
		a.fillTableHeat(&m, t, &total, idx)
		if !withCells[i] {
			m = HeatMap{Keyspace: t.keyspace, Table: t.name, Columns: cols, ReadRate: m.ReadRate, WriteRate: m.WriteRate}
		}
		m.Findings, m.Traffic = order[i].Findings, order[i].Traffic
		m.Keys = a.heatKeys(t, len(cols)-1)
		total.Keys = append(total.Keys, m.Keys...)
		tables = append(tables, m)
	}
	finishTotal(&total, in.TrafficFloor)
	return &HeatMaps{Maps: append([]HeatMap{total}, tables...)}
}

// heatBuilder builds one report's heatmaps.
type heatBuilder struct {
	ix   *index.Index
	heat *history.Heat
	in   Heat
}

// HeatTableMaps bounds the tables whose heatmap has cells: those a page
// draws first (with findings, then the busiest; ties in the report's
// order). The others keep their figures, keys and place in Maps, with no
// Nodes: a history of 120 columns × 64 busy tables can name thousands of
// tables, each 2 × nodes × columns cells, and a page draws a handful.
const HeatTableMaps = 16

// heatMapsWithCells marks the HeatTableMaps tables of order (by findings
// present, then traffic, stable) that get cells.
func heatMapsWithCells(order []HeatMap) []bool {
	idx := make([]int, len(order))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool {
		a, b := order[idx[i]], order[idx[j]]
		if (a.Findings > 0) != (b.Findings > 0) {
			return a.Findings > 0
		}
		return a.Traffic > b.Traffic
	})
	out := make([]bool, len(order))
	for _, i := range idx[:min(len(idx), HeatTableMaps)] {
		out[i] = true
	}
	return out
}

// heatTraffic is a table's mean reads plus writes per second over the columns.
func heatTraffic(h *history.Heat, key string) float64 {
	var ops, seconds float64
	for _, c := range h.Columns {
		span := float64(c.End - c.Start)
		ops += history.Busiest(c.Tables[key]) * span
		seconds += span
	}
	if seconds <= 0 {
		return 0
	}
	return ops / seconds
}

func inHeat(h *history.Heat, key string) bool {
	for _, c := range h.Columns {
		if _, ok := c.Tables[key]; ok {
			return true
		}
	}
	return false
}

// newHeatMap is an empty map of t (nil: all tables).
func (a heatBuilder) newHeatMap(cols []HeatSpan, t *table) HeatMap {
	m := HeatMap{Columns: cols}
	if t != nil {
		m.Keyspace, m.Table = t.keyspace, t.name
	}
	nodes := a.ix.Snapshot.Nodes
	for i := range nodes {
		n := &nodes[i]
		if len(n.Tokens) == 0 {
			continue
		}
		m.Nodes = append(m.Nodes, HeatNode{HostID: n.HostID, Address: n.Address, DC: n.DC,
			Reads: make([]HeatCell, len(cols)), Writes: make([]HeatCell, len(cols))})
	}
	return m
}

// heatGroup is one placement group's traffic in one column.
type heatGroup struct {
	total, owned float64
	replicas     int
	complete     bool
}

// fillTableHeat sets a table's cells and adds its traffic to the
// all-tables map: per cell Rate into total's Rate, the group's traffic
// into Share (as a running denominator) and the traffic the node's fair
// share expects into Ratio, which finishTotal turns into the figures.
func (a heatBuilder) fillTableHeat(m *HeatMap, t table, total *HeatMap, idx map[string]int) {
	var owns map[string]float64
	var repl ring.Replication
	if t.ks != nil {
		owns, repl = t.ks.Owns, t.ks.Repl
	}
	// Per node, once per table: its ownership, group and column index.
	type nodeInfo struct {
		owns       float64
		group, col int // group -1: owns none of the keyspace; col -1: no rates
	}
	info := make([]nodeInfo, len(m.Nodes))
	groupOf := map[string]int{}
	for i, hn := range m.Nodes {
		info[i] = nodeInfo{owns: owns[hn.HostID], group: -1, col: -1}
		if c, ok := idx[hn.HostID]; ok {
			info[i].col = c
		}
		if info[i].owns > 0 {
			g := index.PlacementGroup(repl, a.ix.ByHost[hn.HostID])
			if _, ok := groupOf[g]; !ok {
				groupOf[g] = len(groupOf)
			}
			info[i].group = groupOf[g]
		}
	}
	perNode := make([]float64, len(m.Nodes))
	groups := make([]heatGroup, len(groupOf))
	var readSum, writeSum, seconds float64
	for c, col := range a.heat.Columns {
		rates, present := col.Tables[t.key]
		span := float64(col.End - col.Start)
		for _, write := range []bool{false, true} {
			for g := range groups {
				groups[g] = heatGroup{complete: true}
			}
			for i, in := range info {
				perNode[i] = heatRate(rates, present, in.col, write)
				if in.group >= 0 {
					g := &groups[in.group]
					g.replicas++
					g.owned += in.owns
					g.complete = g.complete && perNode[i] >= 0
					g.total += max(0, perNode[i])
				}
			}
			for i, in := range info {
				var g *heatGroup
				if in.group >= 0 {
					g = &groups[in.group]
				}
				cell := a.heatCell(perNode[i], in.owns, g, owns == nil)
				cells, totals := &m.Nodes[i].Reads, &total.Nodes[i].Reads
				if write {
					cells, totals = &m.Nodes[i].Writes, &total.Nodes[i].Writes
					writeSum += max(0, perNode[i]) * span
				} else {
					readSum += max(0, perNode[i]) * span
				}
				(*cells)[c] = cell
				addToTotal(&(*totals)[c], cell, perNode[i], g, in.owns)
			}
		}
		seconds += span
	}
	if seconds > 0 {
		m.ReadRate, m.WriteRate = readSum/seconds, writeSum/seconds
	}
}

// heatRate is a node's rate in a column (col: its index in the rates, -1
// none): 0 where the table had no traffic.
func heatRate(rates history.HeatRates, present bool, col int, write bool) float64 {
	switch {
	case !present:
		return 0
	case col < 0:
		return history.NoRate
	case write:
		return history.RateAt(rates.Writes, col)
	}
	return history.RateAt(rates.Reads, col)
}

// heatCell judges one cell as hot_token_range judges a window: within the
// node's group, every replica with a rate, over the traffic floor, and
// not holding all the data.
func (a heatBuilder) heatCell(rate, owns float64, g *heatGroup, noOwnership bool) HeatCell {
	cell := HeatCell{Rate: rate}
	switch {
	case rate < 0:
		cell.Note = "no rate: the node's counters were not read, or it restarted"
	case noOwnership:
		cell.Note = "no effective ownership for the keyspace"
	case owns <= 0 || g == nil:
		cell.Note = "the node holds none of the keyspace's data"
	case g.replicas < 2:
		cell.Note = "the only node holding the keyspace in its DC"
	case !g.complete:
		cell.Note = "a node of its DC has no rate: no share"
	case g.total < a.in.TrafficFloor:
		cell.Note = fmt.Sprintf("%s in its DC, under the %s traffic floor", format.Rate(g.total), format.Rate(a.in.TrafficFloor))
	case owns >= index.FullReplica:
		cell.Note = "the node holds all of the keyspace's data: routing, not placement, decides its share"
	default:
		cell.Share = rate / g.total
		cell.Ratio = cell.Share / (owns / g.owned)
	}
	return cell
}

// addToTotal accumulates a table cell into the all-tables cell; Share and
// Ratio hold the group's traffic and the expected traffic until finishTotal.
// A table cell without a ratio for want of data leaves the total without one.
func addToTotal(tc *HeatCell, cell HeatCell, rate float64, g *heatGroup, owns float64) {
	if tc.Rate < 0 {
		return
	}
	switch {
	case rate < 0 || (g != nil && !g.complete):
		*tc = HeatCell{Rate: history.NoRate, Note: "a table's rate is missing on a node of its DC"}
	case cell.Ratio > 0:
		tc.Rate += rate
		tc.Share += g.total
		tc.Ratio += g.total * owns / g.owned
	}
}

// finishTotal turns the accumulated sums into share and ratio: the node's
// share of all tables' operations in its groups ÷ the share its fair share
// of each table's traffic adds up to.
func finishTotal(m *HeatMap, floor float64) {
	for i := range m.Nodes {
		for _, cells := range [][]HeatCell{m.Nodes[i].Reads, m.Nodes[i].Writes} {
			for c := range cells {
				cell := &cells[c]
				groupTotal, expected := cell.Share, cell.Ratio
				cell.Share, cell.Ratio = 0, 0
				switch {
				case cell.Rate < 0:
				case groupTotal < floor || expected <= 0:
					cell.Note = "no table judged here: idle, under the traffic floor, or no fair share to compare with"
				default:
					cell.Share = cell.Rate / groupTotal
					cell.Ratio = cell.Rate / expected
				}
			}
		}
	}
}

// heatKeys are the table's hot keys, named in the history's columns or
// this cycle (Heat.Keys: sampled, or named by a hot_partition finding,
// placed in the newest column), at their tokens.
func (a heatBuilder) heatKeys(t table, column int) []HeatKey {
	var out []HeatKey
	at := map[string]int{}
	add := func(key string, share float64, col int) {
		if key == "" {
			return
		}
		i, seen := at[key]
		if !seen {
			k := HeatKey{Keyspace: t.keyspace, Table: t.name, Key: key}
			k.Token, k.Why = a.keyToken(t, key)
			k.OK = k.Why == ""
			i, at[key] = len(out), len(out)
			out = append(out, k)
		}
		k := &out[i]
		if share > k.Share {
			k.Share = share
		}
		if n := len(k.Columns); n == 0 || k.Columns[n-1] != col {
			k.Columns = append(k.Columns, col)
		}
	}
	for c, col := range a.heat.Columns {
		for _, key := range col.Keys[t.key] {
			add(key, 0, c)
		}
	}
	for _, k := range a.in.Keys[t.key] {
		add(k.Key, k.Share, column)
	}
	return out
}

// keyToken is the key's Murmur3 token, or why there is none.
func (a heatBuilder) keyToken(t table, key string) (int64, string) {
	if p := a.ix.Snapshot.Partitioner; p != "" && !strings.HasSuffix(p, "Murmur3Partitioner") {
		return 0, "the cluster's partitioner is " + p + ", not Murmur3Partitioner"
	}
	if t.schema == nil {
		return 0, "the table's partition key types are unknown (not in the schema)"
	}
	var types []string
	for _, c := range t.schema.Columns {
		if c.Kind == "partition_key" {
			types = append(types, c.Type)
		}
	}
	tok, err := murmur3.KeyToken(key, types)
	if err != nil {
		return 0, "no token: " + err.Error()
	}
	return tok, ""
}
