// Package headline says what a finding is about in one plain sentence, for
// readers who were paged: the status page's cards and the one-shot text
// report lead with it, and keep the finding's full summary (the measurement
// and how it was made) and advice one step below.
package headline

import (
	"strconv"
	"strings"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/internal/format"
)

// Label is a kind's name as a person reads it.
func Label(kind string) string {
	if l, ok := labels[kind]; ok {
		return l
	}
	return strings.ReplaceAll(kind, "_", " ")
}

var labels = map[string]string{
	analyzer.KindOversizedPartition:      "oversized partition",
	analyzer.KindWidePartition:           "wide partition",
	analyzer.KindHotPartition:            "hot partition",
	analyzer.KindHotTokenRange:           "hot token range",
	analyzer.KindTombstoneHeavy:          "tombstone-heavy reads",
	analyzer.KindOwnershipSkew:           "ownership skew",
	analyzer.KindLoadSkew:                "load skew",
	analyzer.KindLowCardinalityKey:       "low-cardinality partition key",
	analyzer.KindUnbucketedTimeSeries:    "unbucketed time series",
	analyzer.KindSecondaryIndexHighCard:  "high-cardinality secondary index",
	analyzer.KindPartitionGrowthForecast: "partition growth forecast",
	analyzer.KindStaleData:               "stale data",
	analyzer.KindAscendingTimeOrder:      "ascending time order",
}

// sentences say what each kind of finding means, from what its rule
// measures (docs/detection.md), without the numbers: those stand beside it.
var sentences = map[string]string{
	analyzer.KindOversizedPartition:      "A partition has grown past the size the database reads, compacts and repairs comfortably.",
	analyzer.KindWidePartition:           "A read went through more rows of one partition than one read should.",
	analyzer.KindHotPartition:            "One key takes a large share of the table's sampled operations.",
	analyzer.KindHotTokenRange:           "One node serves more of the table's local operations than its share of the data warrants.",
	analyzer.KindTombstoneHeavy:          "Reads scan many deleted rows (tombstones) to return few live ones.",
	analyzer.KindOwnershipSkew:           "A node owns more of the keyspace's data than its fair share.",
	analyzer.KindLoadSkew:                "A node holds more data than the mean of its datacenter.",
	analyzer.KindLowCardinalityKey:       "The partition key has too few distinct values to spread the data over the nodes.",
	analyzer.KindUnbucketedTimeSeries:    "A time series grows in partitions whose key has no time bucket.",
	analyzer.KindSecondaryIndexHighCard:  "A secondary index on a column with many values makes its reads ask every node.",
	analyzer.KindPartitionGrowthForecast: "The largest partition is growing toward the critical size.",
	analyzer.KindStaleData:               "partmon cannot read this node's sources; what it shows for the node is old.",
	analyzer.KindAscendingTimeOrder:      "Rows are clustered oldest first, so newest-first reads are reversed reads.",
}

// Sentence is the one plain sentence for a finding: what its kind means,
// or, for a kind this package does not know, the summary's first clause.
func Sentence(f analyzer.Finding) string {
	if s, ok := sentences[f.Kind]; ok {
		return s
	}
	first, _, _ := strings.Cut(f.Summary, "; ")
	return first
}

// Where names a finding's table (or keyspace), or "cluster".
func Where(f analyzer.Finding) string {
	switch {
	case f.Table != "":
		return f.Keyspace + "." + f.Table
	case f.Keyspace != "":
		return f.Keyspace
	}
	return "cluster"
}

// Nodes lists the nodes that measured a finding, or its one node; nil when
// no node did (schema and cluster-wide findings).
func Nodes(f analyzer.Finding) []string {
	if len(f.Nodes) > 0 {
		out := make([]string, 0, len(f.Nodes))
		for _, n := range f.Nodes {
			out = append(out, n.Node)
		}
		return out
	}
	if f.Node != "" {
		return []string{f.Node}
	}
	return nil
}

// multipleOf names what a ratio-unit kind's number is a multiple of: a
// bare "2.58" says nothing to a reader. Ratios that are fractions (a hot
// key's share, the tombstone ratio) are not multiples and keep their number.
var multipleOf = map[string]string{
	analyzer.KindHotTokenRange: "fair share",
	analyzer.KindOwnershipSkew: "fair share",
	analyzer.KindLoadSkew:      "its DC's mean load",
}

// KindValue writes a finding's value or threshold as Value does, a
// multiple with what it is a multiple of: "2.58× fair share".
func KindValue(kind string, v float64, unit string) string {
	if of, ok := multipleOf[kind]; ok && unit == analyzer.UnitRatio {
		return strconv.FormatFloat(v, 'f', 2, 64) + "× " + of
	}
	return Value(v, unit)
}

// Value writes a finding's value or threshold in its unit, as the finding
// texts write them.
func Value(v float64, unit string) string {
	switch unit {
	case analyzer.UnitBytes:
		return format.Bytes(v)
	case analyzer.UnitRatio:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case analyzer.UnitSeconds:
		return format.Seconds(v)
	case analyzer.UnitRows, analyzer.UnitTombstones, analyzer.UnitPartitions:
		return format.Count(v) + " " + unit
	case analyzer.UnitOpsPerSec:
		return format.Rate(v)
	case "":
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64) + " " + unit
}
