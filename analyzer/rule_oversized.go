package analyzer

import (
	"fmt"

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
// the partition size thresholds. The value is max_partition_size (on
// Cassandra a histogram bucket's upper bound, per sstable) or the largest
// key the node's key lists measured, whichever is larger; the key is named
// when a key list shows it over the warning size.
func ruleOversizedPartition(a *analysis) []Finding {
	var out []Finding
	warn, crit := float64(a.th.PartitionWarningBytes), float64(a.th.PartitionCriticalBytes)
	for _, t := range a.tables {
		for _, tn := range t.nodes {
			logged := a.noteLogSizes(t, tn)
			size := float64(max(tn.stats.MaxPartitionBytes, tn.largestKeyBytes))
			sev := severityFor(size, warn, crit)
			if sev == SeverityNone {
				continue
			}
			f := a.newFinding(KindOversizedPartition, sev, tn.node, t.keyspace, t.name)
			f.Value, f.Threshold, f.Unit = size, thresholdFor(sev, warn, crit), UnitBytes
			f.Source = a.sizeSource()
			summary := fmt.Sprintf("largest partition of %s on %s is %s", t.key, tn.node.Address, format.Bytes(size))
			if tn.stats.MaxPartitionBytes > 0 && a.s.Engine != model.EngineScyllaDB {
				summary = fmt.Sprintf("largest partition of %s on %s is up to %s (max_partition_size: a histogram bucket bound, per sstable)",
					t.key, tn.node.Address, format.Bytes(float64(tn.stats.MaxPartitionBytes)))
			}
			if tn.largestKeyBytes >= a.th.PartitionWarningBytes {
				f.PartitionKey = tn.largestKey
				f.Source = joinSources(f.Source, tn.largestSource)
				summary += fmt.Sprintf("; key %s measured %s by %s", tn.largestKey, format.Bytes(float64(tn.largestKeyBytes)), tn.largestSource)
				if len(logged) > 0 && logged[0].ev.Key == tn.largestKey {
					summary += a.logSizeNote(logged)
				}
				if tn.largeKeys > 1 {
					summary += fmt.Sprintf(", %d keys at or over %s", tn.largeKeys, format.Bytes(warn))
				}
			}
			f.Summary = summary + "; " + a.shapeNote(t)
			f.Advice = a.oversizedAdvice(t, tn, size)
			out = append(out, f)
		}
	}
	return out
}

// maxMeanRatio is the table's largest partition ÷ its mean; 0 when unknown.
func maxMeanRatio(t *tableView) float64 {
	if t.meanBytes <= 0 || t.maxBytes <= 0 {
		return 0
	}
	return float64(t.maxBytes) / t.meanBytes
}

// shapeNote says whether one key is an outlier or all partitions are big.
func (a *analysis) shapeNote(t *tableView) string {
	r := maxMeanRatio(t)
	switch {
	case r == 0:
		return "mean partition size unknown"
	case r >= a.th.OutlierRatio:
		return fmt.Sprintf("mean partition %s, so the largest is %.0f× the mean: one outlier key", format.Bytes(t.meanBytes), r)
	}
	return fmt.Sprintf("mean partition %s (largest %.1f× the mean): partitions are uniformly big", format.Bytes(t.meanBytes), r)
}

func (a *analysis) oversizedAdvice(t *tableView, tn *tableNode, size float64) string {
	split := a.splitAdvice(t, size)
	if maxMeanRatio(t) >= a.th.OutlierRatio {
		who := "the outlier key"
		if tn.largestKey != "" {
			who = "key " + tn.largestKey
		}
		return fmt.Sprintf("fix %s, not the whole model (typical partitions are %s): find what writes to it (a default or sentinel value, a tenant far bigger than the rest) and give it its own split: %s",
			who, format.Bytes(t.meanBytes), split)
	}
	return split
}

// newFinding fills the scope of a finding; node may be nil for table- and
// cluster-wide findings.
func (a *analysis) newFinding(kind string, sev Severity, node *model.Node, keyspace, table string) Finding {
	f := Finding{Kind: kind, Severity: sev, Cluster: a.s.Cluster, Keyspace: keyspace, Table: table}
	if node != nil {
		f.DC, f.Rack, f.Node = node.DC, node.Rack, node.Address
	}
	return f
}
