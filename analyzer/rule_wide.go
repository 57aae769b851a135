package analyzer

import (
	"fmt"
	"math"

	"github.com/partmon/partmon/internal/format"
)

// sizeImpliedRows estimates the rows of the node's largest partition as
// max_partition_size ÷ bytes per row, bytes per row being the mean
// partition size ÷ the live rows a typical read (p50) returns. Reads that
// fetch part of a partition make rows look bigger, so this errs low; range
// scans would count rows of several partitions per read, so the estimate is
// only made on nodes that ran none. 0 when it cannot be made.
func sizeImpliedRows(t *tableView, tn *tableNode) float64 {
	st := tn.stats
	p50 := st.RowsPerRead.P50
	if st.LocalScans.Count != 0 || st.RowsPerRead.Count == 0 || p50 < 1 || st.MeanPartitionBytes <= 0 || st.MaxPartitionBytes <= 0 {
		return 0
	}
	return float64(st.MaxPartitionBytes) * p50 / float64(st.MeanPartitionBytes)
}

// ruleWidePartition: per table per node, rows in one partition, from the
// best evidence there is. ScyllaDB's large_partitions counts the rows of a
// named key. Cassandra has no per-key row count over CQL: rows_per_read p99
// is the live rows one read scanned, a lower bound of a partition's rows
// (range scans, counted in local_scans, can inflate it, and the finding
// says so); failing that, sizeImpliedRows estimates them, and an estimate
// alone never raises more than a warning.
func ruleWidePartition(a *analysis) []Finding {
	var out []Finding
	warn, crit := float64(a.th.PartitionRowsWarning), float64(a.th.PartitionRowsCritical)
	for _, t := range a.tables {
		for _, tn := range t.nodes {
			keyed := float64(tn.widestRows)
			perRead := tn.stats.RowsPerRead.P99
			estimated := sizeImpliedRows(t, tn)
			rows := max(keyed, perRead, estimated)
			sev := severityFor(rows, warn, crit)
			if sev == SeverityNone {
				continue
			}
			f := a.newFinding(KindWidePartition, sev, tn.node, t.keyspace, t.name)
			switch {
			case keyed >= perRead && keyed >= estimated:
				f.PartitionKey = tn.widestKey
				f.Source = srcLargePartitions
				f.Summary = fmt.Sprintf("partition %s of %s on %s has %s rows", tn.widestKey, t.key, tn.node.Address, format.Count(keyed))
			case perRead >= estimated:
				f.Source = a.perReadSource()
				f.Summary = fmt.Sprintf("reads of %s on %s scan %s live rows at p99 (max %s): a partition holds at least that many rows",
					t.key, tn.node.Address, format.Count(perRead), format.Count(tn.stats.RowsPerRead.Max))
				if scans := tn.stats.LocalScans.Count; scans > 0 {
					f.Summary += fmt.Sprintf(" (unless range scans, %s so far, read them across partitions)", format.Count(float64(scans)))
				}
			default:
				f.Severity = min(sev, SeverityWarning)
				sev = f.Severity
				f.Source = joinSources(a.sizeSource(), a.estimateSource(), a.perReadSource())
				f.Summary = fmt.Sprintf("the largest partition of %s on %s holds an estimated %s rows: up to %s at ~%s per row (mean partition %s ÷ %s live rows per read at p50)",
					t.key, tn.node.Address, format.Count(estimated), format.Bytes(float64(tn.stats.MaxPartitionBytes)),
					format.Bytes(float64(tn.stats.MeanPartitionBytes)/tn.stats.RowsPerRead.P50),
					format.Bytes(float64(tn.stats.MeanPartitionBytes)), format.Count(tn.stats.RowsPerRead.P50))
			}
			f.Value, f.Threshold, f.Unit = rows, thresholdFor(sev, warn, crit), UnitRows
			n := splitCount(rows, warn/2)
			f.Advice = fmt.Sprintf("split the partition: %d buckets bring %s rows to ~%s per partition; ",
				n, format.Count(rows), format.Count(math.Ceil(rows/float64(n))))
			if col, ok := timeClustering(t); ok && !hasBucket(t) && t.maxBytes > 0 {
				f.Advice += fmt.Sprintf("a time bucket of %s in the partition key does this for a time series (%s)", col, a.splitAdvice(t, float64(t.maxBytes)))
			} else {
				f.Advice += "use a shard column in the partition key, and page reads (fetch size ≤ 5,000) instead of reading the partition whole"
			}
			out = append(out, f)
		}
	}
	return out
}
