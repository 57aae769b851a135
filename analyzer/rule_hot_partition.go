package analyzer

import (
	"fmt"
	"math"
	"strings"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/internal/format"
)

// ruleHotPartition: a sampled key whose share of its table's sampled
// operations on a replica reaches the hot-key thresholds. The share uses
// count − error, the space-saving sampler's guaranteed count, and is graded
// at what the sample's size assures (ShareAssured: one ten-second window is
// one draw of the traffic; the value reported stays the sampled share); Cassandra's
// READS sampler counts single-partition read commands (pages, digest reads)
// and drops samples when its queue of 1,000 is full, ScyllaDB's counts
// every partition a read passed through. A key is not hot when the table
// has so few partitions that its share is no more than
// HotRangeRatioWarning × its fair 1/partitions (fewestPartitions: the key
// estimate reads ~128 per sstable for a handful of keys, so the bytes
// decide), nor when its own rate is under the traffic floor. A key's share
// is that of its hottest sample above the floor: the READS sampler may see
// it in hundreds of pages while the WRITES sampler saw 3 of 4 writes. One
// finding per key, cluster-wide: the summary names the replica where it was
// hottest.
func ruleHotPartition(a *analysis) []finding.Finding {
	var out []finding.Finding
	for _, t := range a.tables {
		from := len(out) // t's findings: the keys of the tables before are not t's
		for _, hk := range a.hot[t.key] {
			sev := severityFor(hk.assured, a.th.HotKeyShareWarning, a.th.HotKeyShareCritical)
			if sev == finding.SeverityNone {
				continue
			}
			if !hk.enough {
				continue // every sample of the key is under the traffic floor
			}
			rate := -1.0
			if hk.window > 0 {
				rate = float64(hk.count) / hk.window
			}
			if few := (hotPartitions{a}).fewestPartitions(t); few > 0 && hk.share <= a.th.HotRangeRatioWarning/few {
				continue
			}
			f := a.newFinding(KindHotPartition, sev, nil, t.keyspace, t.name)
			f.PartitionKey = hk.key
			f.Value, f.Threshold, f.Unit = hk.share, thresholdFor(sev, a.th.HotKeyShareWarning, a.th.HotKeyShareCritical), finding.UnitRatio
			f.Figures = &finding.Figures{Share: hk.share}
			f.Source = hk.source
			op := hk.op + "s"
			takes := format.Percent(hk.share)
			if hk.upper {
				takes = "at most " + takes
			}
			f.Summary = fmt.Sprintf("key %s takes %s of %s's sampled %s on %s (%s ± %s of %s operations, %s)",
				hk.key, takes, t.key, op, hk.node.Address,
				format.Count(float64(hk.count)), format.Count(float64(hk.errorBound)), format.Count(hk.total), hk.totalFrom)
			if rate >= 0 {
				f.Summary += fmt.Sprintf(" over %s: %s", format.Seconds(hk.window), format.Rate(rate))
			}
			f.Summary += "; a sample that size assures " + format.Percent(hk.assured)
			if hk.passes > 1 {
				f.Summary += fmt.Sprintf(" (the lower of %d sampler windows on that node)", hk.passes)
			}
			if len(hk.nodes) > 1 {
				f.Summary += "; sampled on " + strings.Join(hk.nodes, ", ")
			}
			f.Advice = hotPartitions{a}.hotKeyAdvice(hk)
			hotPartitions{a}.hotKeyNodes(&f, hk)
			out = append(out, f)
		}
		out = append(out, logEvidence{a}.logHotFindings(t, findingKeys(out[from:], t))...)
	}
	return out
}

// hotKeyNodes names the replicas on which the key reached the thresholds,
// each with its own share: the nodes an operator looks at and the ones a
// sidecar speaks for. The hottest one is always among them.
func (a hotPartitions) hotKeyNodes(f *finding.Finding, hk *hotKey) {
	var nodes []finding.NodeValue
	for _, p := range hk.perNode {
		sev := severityFor(p.assured, a.th.HotKeyShareWarning, a.th.HotKeyShareCritical)
		if sev == finding.SeverityNone {
			continue
		}
		nodes = append(nodes, finding.NodeValue{Node: p.node.Address, DC: p.node.DC, Rack: p.node.Rack, Value: p.share,
			Threshold: thresholdFor(sev, a.th.HotKeyShareWarning, a.th.HotKeyShareCritical), Severity: sev})
	}
	placeOn(f, nodes)
}

// hotKeyAdvice: b suffix buckets bring the key's share on each replica set
// from s to s ÷ b; b = ⌈s × N⌉ makes it at most 1/N of the table's
// operations, a fair share of one node among the N of its DC.
func (a hotPartitions) hotKeyAdvice(hk *hotKey) string {
	n := 0
	for _, m := range a.s.Nodes {
		if m.DC == hk.node.DC && len(m.Tokens) > 0 {
			n++
		}
	}
	n = max(n, 1)
	b := max(2, int(math.Ceil(hk.share*float64(n))))
	// The key is named once: in hashed mode it is shown as its hash, and a
	// suffix written after the hash would read as a value to store.
	advice := fmt.Sprintf("spread key %s over %d suffix buckets (a bucket column 0..%d added to the partition key, so the key becomes %d partitions: the key with each suffix; writes pick one by a hash of the clustering key or at random, reads query all %d): each then carries ~%s of the table's %s, a fair share of one of the %d nodes",
		hk.key, b, b-1, b, b, format.Percent(hk.share/float64(b)), hk.op+"s", n)
	if hk.op == "read" {
		advice += "; for a read-mostly key a cache in front of the database avoids the fan-out"
	}
	return advice
}

// fewestPartitions is the fewest partitions the table may have: the data on
// disk ÷ the mean partition size (low by the compression ratio), else the
// key estimate; never fewer than the keys the samplers name. 0 when unknown.
func (a hotPartitions) fewestPartitions(t *tableView) float64 {
	few := t.partitions
	if c := a.tableCardinality(t); c.byBytes > 0 && (few <= 0 || c.byBytes < few) {
		few = c.byBytes
	}
	if few > 0 {
		few = max(few, float64(len(a.hot[t.key])))
	}
	return few
}

// hotPartitions is the hot_partition rule's own reasoning over the index.
type hotPartitions struct{ *analysis }

// KindHotPartition names the hot_partition findings.
const KindHotPartition = "hot_partition"

func init() {
	registerKind(3, KindFacts{Name: KindHotPartition, Label: "hot partition",
		Sentence:         "One key takes a large share of the table's sampled operations.",
		PushedWithoutKey: true,
		scope:            scopeKey, problemOrder: 3, rule: ruleHotPartition})
}

// The thresholds the rule reads, each declared once, here, with why
// (thresholds.go: their check, unit and series).
func init() {
	registerThresholds([]thresholdSpec{
		// A Zipf(1) key set of 1,000 keys gives its top key 13 %: a quarter of
		// a table's operations on one key is beyond normal skew; half is a
		// key that alone dominates the replica.
		{key: "hot_key_share_warning", unit: thresholdRatio, check: mustBeFraction, def: 0.25, bound: true, notAbove: []string{"hot_key_share_critical"},
			readBy: []string{KindHotPartition, "PartmonHotPartition"}},
		{key: "hot_key_share_critical", unit: thresholdRatio, check: mustBeFraction, def: 0.5, bound: true,
			readBy: []string{KindHotPartition, "PartmonHotPartition"}},
	})
}
