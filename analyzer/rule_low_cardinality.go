package analyzer

import (
	"fmt"
	"math"
	"strings"

	"github.com/partmon/partmon/internal/format"
	"github.com/partmon/partmon/model"
)

// estimateSource names the partition count and mean size estimates.
func (a *analysis) estimateSource() string {
	if a.s.Engine == model.EngineScyllaDB {
		return "system.size_estimates"
	}
	return "system.table_estimates"
}

// replicaNodes counts the nodes holding some of the keyspace (all ring
// nodes when ownership is unknown).
func (a *analysis) replicaNodes(ks *keyspaceView) int {
	if ks == nil || ks.owns == nil {
		return a.ringLen
	}
	n := 0
	for _, o := range ks.owns {
		if o > 0 {
			n++
		}
	}
	return n
}

// tableDataBytes is one replica's worth of the table, uncompressed:
// partitions × mean size, else the nodes' disk usage.
func tableDataBytes(t *tableView) float64 {
	if t.meanBytes > 0 {
		return t.partitions * t.meanBytes
	}
	var disk float64
	for _, tn := range t.nodes {
		disk += float64(tn.stats.DiskUsageBytes)
	}
	return disk
}

// ruleLowCardinalityKey: a table with data but fewer estimated partitions
// than LowCardinalityPartitionsPerNode per node, or whose partition key's
// types cannot take that many values (boolean, tinyint). Tables without a
// partition estimate (fresh, or only in memtables) and tables under
// LowCardinalityMinTableBytes are not judged. Warning when one replica of
// the data reaches the partition warning size, or when there are fewer
// partitions than nodes (some nodes hold none); info otherwise.
func ruleLowCardinalityKey(a *analysis) []Finding {
	var out []Finding
	for _, t := range a.tables {
		if t.schema == nil || t.partitions <= 0 {
			continue
		}
		data := tableDataBytes(t)
		if data < float64(a.th.LowCardinalityMinTableBytes) {
			continue
		}
		nodes := max(1, a.replicaNodes(t.ks))
		limit := a.th.LowCardinalityPartitionsPerNode * float64(nodes)
		key := partitionKey(t.schema)
		typeCap := 1.0
		var keyDesc, enums []string
		for _, c := range key {
			keyDesc = append(keyDesc, c.Name+" "+c.Type)
			if looksEnumLike(c) {
				enums = append(enums, c.Name)
			}
			if cap := typeCardinality(c.Type); cap > 0 && typeCap > 0 {
				typeCap *= cap
			} else {
				typeCap = 0
			}
		}
		bounded := len(key) > 0 && typeCap > 0 && typeCap < limit
		if t.partitions >= limit && !bounded {
			continue
		}
		sev := SeverityInfo
		if data >= float64(a.th.PartitionWarningBytes) || t.partitions < float64(nodes) {
			sev = SeverityWarning
		}
		f := a.newFinding(KindLowCardinalityKey, sev, nil, t.keyspace, t.name)
		f.Value, f.Threshold, f.Unit = t.partitions, limit, UnitPartitions
		f.Source = joinSources(a.estimateSource(), "system_schema.columns")
		f.Summary = fmt.Sprintf("%s has ~%s partitions (estimated) for %d nodes (fewer than %s per node); ~%s of data",
			t.key, format.Count(t.partitions), nodes, format.Count(a.th.LowCardinalityPartitionsPerNode), format.Bytes(data))
		if t.meanBytes > 0 {
			f.Summary += fmt.Sprintf(", mean partition %s", format.Bytes(t.meanBytes))
		}
		f.Summary += fmt.Sprintf("; partition key (%s)", strings.Join(keyDesc, ", "))
		if bounded {
			f.Summary += fmt.Sprintf(" can take at most %s values", format.Count(typeCap))
		} else if len(enums) > 0 {
			f.Summary += fmt.Sprintf(": %s looks like an enum", strings.Join(enums, ", "))
		}
		f.Advice = a.lowCardinalityAdvice(t, limit, data)
		out = append(out, f)
	}
	return out
}

func (a *analysis) lowCardinalityAdvice(t *tableView, limit, data float64) string {
	k := max(2, int(math.Ceil(limit/max(t.partitions, 1))))
	after := t.partitions * float64(k)
	advice := fmt.Sprintf("add a column with many values to the partition key: %d sub-partitions per current key bring ~%s partitions to ~%s (~%s each)",
		k, format.Count(t.partitions), format.Count(after), format.Bytes(data/after))
	if col, ok := timeClustering(t); ok && !hasBucket(t) {
		advice += fmt.Sprintf("; the table clusters by %s, so a time bucket of it is the natural choice", col)
		if t.maxBytes > 0 {
			advice += " (" + a.splitAdvice(t, float64(t.maxBytes)) + ")"
		}
	} else {
		advice += "; e.g. the entity id the rows belong to, or a shard 0.." + fmt.Sprint(k-1) + " chosen by a hash, with reads querying every shard"
	}
	return advice
}
