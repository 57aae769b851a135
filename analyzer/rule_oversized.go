package analyzer

import (
	"fmt"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/internal/format"
	"github.com/partmon/partmon/model"
)

// sizeSource names where a node's max partition size comes from.
func (a *analysis) sizeSource() string {
	if a.s.Engine == model.EngineScyllaDB {
		return "rest:max_row_size"
	}
	return "system_views.max_partition_size"
}

// ruleOversizedPartition: per table per node, the largest partition against
// the partition size thresholds. max_partition_size is a bucket bound (on
// Cassandra rounded up to whole MiB) of the largest fragment in one
// sstable, so it stands for an interval: 124 MiB means 102.96 to 124 MiB.
// The severity is the one the whole interval reaches; an interval across
// the warning size is an info finding ("may be over"). A key list's
// measurement of one key (top_partitions' digest bytes of the merged
// partition, a guardrail's or ScyllaDB's bytes in one sstable) counts as it
// is, and names the key when it reaches the warning size. Memtables are in
// no figure: a table with only unflushed data reads 0 and is not judged.
func ruleOversizedPartition(a *analysis) []finding.Finding {
	var out []finding.Finding
	warn, crit := float64(a.th.PartitionWarningBytes), float64(a.th.PartitionCriticalBytes)
	for _, t := range a.tables {
		for _, tn := range t.nodes {
			logged := logEvidence{a}.noteLogSizes(t, tn)
			size := float64(max(tn.stats.MaxPartitionBytes, tn.largestKeyBytes))
			least := max(oversized{a}.sizeFloor(float64(tn.stats.MaxPartitionBytes)), float64(tn.largestKeyBytes))
			sev := severityFor(least, warn, crit)
			maybe := sev == finding.SeverityNone && size >= warn
			if maybe {
				sev = finding.SeverityInfo
			} else if sev == finding.SeverityNone {
				continue
			}
			f := a.newFinding(KindOversizedPartition, sev, tn.node, t.keyspace, t.name)
			f.Value, f.Threshold, f.Unit = size, thresholdFor(sev, warn, crit), finding.UnitBytes
			f.Source = a.sizeSource()
			f.Figures = &finding.Figures{PartitionBytes: size}
			if maxMeanRatio(t) > 0 {
				f.Figures.MeanPartitionBytes = t.meanBytes
			}
			summary := fmt.Sprintf("largest partition of %s on %s is %s", t.key, tn.node.Address, format.Bytes(size))
			if m := float64(tn.stats.MaxPartitionBytes); m > 0 && m >= float64(tn.largestKeyBytes) {
				summary = fmt.Sprintf("largest partition of %s on %s is %s to %s (max_partition_size: a histogram bucket, the largest fragment in one sstable)",
					t.key, tn.node.Address, bytesFine(oversized{a}.sizeFloor(m)), format.Bytes(m))
			}
			if maybe {
				summary += fmt.Sprintf(": it may be over the %s warning size or under it", format.Bytes(warn))
			}
			if tn.largestKeyBytes >= a.th.PartitionWarningBytes {
				f.PartitionKey = tn.largestKey
				f.Source = joinSources(f.Source, tn.largestSource)
				summary += fmt.Sprintf("; key %s measured %s by %s", tn.largestKey, format.Bytes(float64(tn.largestKeyBytes)), tn.largestSource)
				if len(logged) > 0 && logged[0].ev.Key == tn.largestKey {
					summary += logEvidence{a}.logSizeNote(logged)
				}
				if tn.largeKeys > 1 {
					summary += fmt.Sprintf(", %d keys at or over %s", tn.largeKeys, format.Bytes(warn))
				}
			}
			f.Summary = summary + "; " + oversized{a}.shapeNote(t)
			f.Advice, f.SuggestedKey = oversized{a}.oversizedAdvice(t, tn, size)
			out = append(out, f)
		}
	}
	return out
}

// sizeFloor is the least size a max_partition_size figure stands for.
func (a oversized) sizeFloor(v float64) float64 {
	if a.s.Engine == model.EngineScyllaDB {
		return bucketFloor(v)
	}
	return mibBucketFloor(v)
}

// bytesFine prints a bucket's lower end to a tenth of a MiB, so that an
// interval across a threshold does not print as the threshold itself.
func bytesFine(b float64) string {
	if b >= mib && b < gib {
		return fmt.Sprintf("%.1f MiB", b/mib)
	}
	return format.Bytes(b)
}

// maxMeanRatio is the table's largest partition ÷ its mean; 0 when unknown.
func maxMeanRatio(t *tableView) float64 {
	// A mean above the largest bound (allowing the mean's own ×1.2) comes
	// from another moment or other sstables: no ratio.
	if t.meanBytes <= 0 || t.maxBytes <= 0 || t.meanBytes/1.2 > float64(t.maxBytes) {
		return 0
	}
	return float64(t.maxBytes) / t.meanBytes
}

// shapeNote says whether one key is an outlier or all partitions are big.
func (a oversized) shapeNote(t *tableView) string {
	r := maxMeanRatio(t)
	switch {
	case r == 0:
		return "mean partition size unknown"
	case r >= a.th.OutlierRatio:
		return fmt.Sprintf("mean partition %s, so the largest is %.0f× the mean: one outlier key", format.Bytes(t.meanBytes), r)
	}
	return fmt.Sprintf("mean partition %s (largest %.1f× the mean): partitions are uniformly big", format.Bytes(t.meanBytes), r)
}

func (a oversized) oversizedAdvice(t *tableView, tn *tableNode, size float64) (advice, key string) {
	split, key := bucketAdvice{a.analysis}.splitAdvice(t, size)
	if maxMeanRatio(t) >= a.th.OutlierRatio {
		who := "the outlier key"
		if tn.largestKey != "" {
			who = "key " + tn.largestKey
		}
		return fmt.Sprintf("fix %s, not the whole model (typical partitions are %s): find what writes to it (a default or sentinel value, a tenant far bigger than the rest) and give it its own split: %s",
			who, format.Bytes(t.meanBytes), split), key
	}
	return split, key
}

// newFinding fills the scope of a finding; node may be nil for table- and
// cluster-wide findings.
func (a *analysis) newFinding(kind string, sev finding.Severity, node *model.Node, keyspace, table string) finding.Finding {
	f := finding.Finding{Kind: kind, Severity: sev, Cluster: a.s.Cluster, Keyspace: keyspace, Table: table}
	if node != nil {
		f.DC, f.Rack, f.Node = node.DC, node.Rack, node.Address
	}
	return f
}

// oversized is the oversized_partition rule's own reasoning over the index.
type oversized struct{ *analysis }

// KindOversizedPartition names the oversized_partition findings.
const KindOversizedPartition = "oversized_partition"

func init() {
	registerKind(1, KindFacts{Name: KindOversizedPartition, Label: "oversized partition",
		Sentence:         "A partition has grown past the size the database reads, compacts and repairs comfortably.",
		PushedWithoutKey: true, SizeIsTheProblem: true, RuleAlert: AlertOversizedPartition,
		scope: scopeTable, problemOrder: 1, splitOrder: 3, rule: ruleOversizedPartition})
}

// The thresholds the rule reads, each declared once, here, with why
// (thresholds.go: their check, unit and series).
func init() {
	registerThresholds([]thresholdSpec{
		// Cassandra guidance: warn at 50 MB, keep partitions under 100 MB.
		{key: "partition_warning_bytes", unit: thresholdBytes, check: mustBePositive, def: 50 * mib, bound: true, notAbove: []string{"partition_critical_bytes"},
			tableNodeFigure: maxPartitionFigure, readBy: []string{KindOversizedPartition, KindUnbucketedTimeSeries, KindLowCardinalityKey, KindGuardrailCrossing, "PartmonOversizedPartition"}},
		{key: "partition_critical_bytes", unit: thresholdBytes, check: mustBePositive, def: 100 * mib, bound: true,
			tableNodeFigure: maxPartitionFigure, readBy: []string{KindOversizedPartition, KindPartitionGrowthForecast, "PartmonOversizedPartition"}},
		// max_partition_size is a bucket bound (~1.2× steps) and the mean an
		// estimate: only an order of magnitude says "one outlier".
		{key: "outlier_ratio", unit: thresholdRatio, check: mustBeAboveOne, def: 10, readBy: []string{KindOversizedPartition}},
	})
}

// maxPartitionFigure is what PartmonOversizedPartition compares with the
// partition size thresholds: partmon_table_max_partition_size_bytes.
func maxPartitionFigure(_ Thresholds, tn *TableNode) float64 { return float64(tn.MaxPartitionBytes) }
