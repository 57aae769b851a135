package exporter

import (
	"slices"
	"sort"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/publish"
)

// keyLabelMax bounds a partition_key label value (publish.KeyLabel).
const keyLabelMax = publish.KeyLabelMax

// partitionKeyLabel makes a key safe and bounded as a label value.
func partitionKeyLabel(key string) string { return publish.KeyLabel(key) }

// keyValue picks one top-K metric's value from an entry.
type keyValue struct {
	desc  *metricDesc
	value func(analyzer.PartitionEntry) float64
}

var keyMetrics = []keyValue{
	{partitionSize, func(p analyzer.PartitionEntry) float64 { return float64(p.SizeBytes) }},
	{partitionTombstones, func(p analyzer.PartitionEntry) float64 { return float64(p.Tombstones) }},
	{partitionOpsShare, func(p analyzer.PartitionEntry) float64 { return p.OpsShare }},
}

// keyRow is one key of a table with the nodes it is published for.
type keyRow struct {
	label string
	nodes []string
	entry analyzer.PartitionEntry
}

// collectTopPartitions publishes, for each table and key metric, the K keys
// with the largest positive value, one series per replica this partmon speaks
// for: at most K keys per table and metric, never a series per partition.
func collectTopPartitions(m emitter, r *analyzer.Report, cluster string, speaks func(string) bool, own *analyzer.NodeSummary, k int) {
	if k <= 0 {
		return
	}
	groups := make(map[[2]string][]keyRow)
	for _, p := range r.TopPartitions {
		var nodes []string
		for _, n := range p.Nodes {
			if speaks(n) && !slices.Contains(nodes, n) {
				nodes = append(nodes, n)
			}
		}
		if len(p.Nodes) == 0 {
			// No replica named: published like a node-less finding, by a
			// sidecar with its own node.
			nodes = []string{""}
			if own != nil {
				nodes = []string{own.Address}
			}
		}
		if len(nodes) == 0 {
			continue
		}
		g := [2]string{p.Keyspace, p.Table}
		groups[g] = append(groups[g], keyRow{label: partitionKeyLabel(p.Key), nodes: nodes, entry: p})
	}
	where := nodePlaces(r)
	for g, rows := range groups {
		for _, km := range keyMetrics {
			seen := make(map[[2]string]bool)
			for _, row := range topRows(rows, km.value, k) {
				for _, node := range row.nodes {
					if id := [2]string{node, row.label}; !seen[id] {
						seen[id] = true
						pl := where[node]
						m.emit(km.desc, km.value(row.entry), cluster, pl.dc, pl.rack, node, g[0], g[1], row.label)
					}
				}
			}
		}
	}
}

// topRows returns up to k rows with a positive value, largest first, ties by key.
func topRows(rows []keyRow, value func(analyzer.PartitionEntry) float64, k int) []keyRow {
	var pos []keyRow
	for _, row := range rows {
		if value(row.entry) > 0 {
			pos = append(pos, row)
		}
	}
	sort.SliceStable(pos, func(i, j int) bool {
		vi, vj := value(pos[i].entry), value(pos[j].entry)
		if vi != vj {
			return vi > vj
		}
		return pos[i].label < pos[j].label
	})
	if len(pos) > k {
		pos = pos[:k]
	}
	return pos
}
