package analyzer

import (
	"fmt"
	"sort"
	"strings"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/internal/format"
)

// One finding per problem. Rules judge what each node measures; fold merges
// the judgements of one problem (an RF-3 table's large partition seen by its
// three replicas) into one finding that keeps every node's value, so the
// report, the API, the status page and the pushed alerts count it once and
// the exporter can still publish one series per node.

// idScope is what names a problem of a kind, besides its cluster, keyspace and
// table: the ID is made of these and nothing else.
type idScope int

const (
	// scopeTable: the table (or keyspace, or cluster) alone; which nodes see
	// it and which key a key list names are attributes.
	scopeTable idScope = iota
	// scopeGroup: ... and the DC, because the kind is judged within a
	// placement group (traffic and token shares, load).
	scopeGroup
	// scopeNode: ... and the node: the problem is the node's own.
	scopeNode
	// scopeKey: ... and the partition key: the key is the problem, and
	// without a key there is no finding of this kind.
	scopeKey
)

// nameID gives f its ID and says which of its places the ID names.
func nameID(f *finding.Finding) {
	f.ID = findingID(f)
	scope := idScopeOf(f.Kind)
	f.IDNamesNode = scope == scopeNode
	f.IDNamesDC = scope == scopeNode || scope == scopeGroup
}

// identity is what a finding's ID is made of.
func identity(f *finding.Finding) []string {
	parts := []string{f.Kind, f.Cluster, "", "", f.Keyspace, f.Table, ""}
	switch idScopeOf(f.Kind) {
	case scopeGroup:
		parts[2] = f.DC
	case scopeNode:
		parts[2], parts[3] = f.DC, f.Node
	case scopeKey:
		parts[6] = f.PartitionKey
	}
	return parts
}

// fold merges findings with the same identity. The most severe one (then
// the largest value) speaks for the problem: its summary, advice, key and
// figures; every finding that has a node adds that node's value to Nodes.
// Findings already carrying Nodes keep them.
func fold(fs []finding.Finding) []finding.Finding {
	groups := map[string][]finding.Finding{}
	var order []string
	for _, f := range fs {
		id := strings.Join(identity(&f), "\x00")
		if _, ok := groups[id]; !ok {
			order = append(order, id)
		}
		groups[id] = append(groups[id], f)
	}
	out := make([]finding.Finding, 0, len(order))
	for _, id := range order {
		out = append(out, merge(groups[id]))
	}
	return out
}

func merge(g []finding.Finding) finding.Finding {
	sort.SliceStable(g, func(i, j int) bool {
		if g[i].Severity != g[j].Severity {
			return g[i].Severity > g[j].Severity
		}
		return g[i].Value > g[j].Value
	})
	f := g[0]
	var nodes []finding.NodeValue
	var sources, otherUnit []string
	for _, o := range g {
		sources = append(sources, o.Source)
		if f.PartitionKey == "" && o.PartitionKey != "" && idScopeOf(f.Kind) != scopeKey {
			f.PartitionKey = o.PartitionKey
		}
		if o.Unit != f.Unit {
			// A value in another unit (a tombstone ratio beside counts) is
			// no value of this finding: name the node only.
			if o.Node != "" {
				otherUnit = append(otherUnit, fmt.Sprintf("%s (%s %s)", o.Node, o.Unit, formatValue(o.Value, o.Unit)))
			}
			continue
		}
		if len(o.Nodes) > 0 {
			nodes = append(nodes, o.Nodes...)
		} else if o.Node != "" {
			nodes = append(nodes, finding.NodeValue{Node: o.Node, DC: o.DC, Rack: o.Rack, Value: o.Value, Threshold: o.Threshold, Severity: o.Severity})
		}
	}
	f.Source = joinSources(sources...)
	if len(otherUnit) > 0 {
		f.Summary += "; also on " + strings.Join(otherUnit, ", ")
	}
	if len(nodes) == 0 {
		return f
	}
	placeOn(&f, nodes)
	if len(g) > 1 || len(nodes) > 1 {
		f.Summary += "; " + describeNodes(nodes, f.Unit)
	}
	return f
}

// placeOn makes nodes (sorted by address) f's nodes: their DC
// when they share one, and Node and Rack when there is only one.
func placeOn(f *finding.Finding, nodes []finding.NodeValue) {
	if len(nodes) == 0 {
		return
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Node < nodes[j].Node })
	f.Nodes = nodes
	f.Node, f.Rack = "", ""
	f.DC = commonDC(nodes)
	if len(nodes) == 1 {
		f.Node, f.Rack = nodes[0].Node, nodes[0].Rack
	}
}

func commonDC(nodes []finding.NodeValue) string {
	dc := nodes[0].DC
	for _, n := range nodes[1:] {
		if n.DC != dc {
			return ""
		}
	}
	return dc
}

// describeNodes lists the nodes and their values: "on 3 nodes, each 124 MiB"
// or "on 2 nodes: 10.0.0.1 124 MiB, 10.0.0.2 60 MiB".
func describeNodes(nodes []finding.NodeValue, unit string) string {
	same := true
	for _, n := range nodes[1:] {
		if n.Value != nodes[0].Value {
			same = false
		}
	}
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = n.Node
		if !same {
			names[i] += " " + formatValue(n.Value, unit)
		}
	}
	if same {
		return fmt.Sprintf("seen on %d nodes (%s), each %s", len(nodes), strings.Join(names, ", "), formatValue(nodes[0].Value, unit))
	}
	return fmt.Sprintf("seen on %d nodes: %s", len(nodes), strings.Join(names, ", "))
}

// formatValue prints a value in its unit.
func formatValue(v float64, unit string) string {
	switch unit {
	case finding.UnitBytes:
		return format.Bytes(v)
	case finding.UnitSeconds:
		return format.Seconds(v)
	case finding.UnitRatio:
		return fmt.Sprintf("%.2f", v)
	case finding.UnitOpsPerSec:
		return format.Rate(v)
	case finding.UnitRows, finding.UnitTombstones, finding.UnitPartitions:
		return format.Count(v) + " " + unit
	}
	return format.Count(v)
}
