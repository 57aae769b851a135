package analyzer

import (
	"fmt"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/internal/format"
)

// ruleAscendingTimeOrder: a table whose first clustering column is a time
// type in ascending order. Time series are mostly read newest first, which
// is then a reversed read: slower in Cassandra (index blocks read backwards)
// and, in ScyllaDB before native reversed reads, buffered in memory. A
// remark only (Report.Remarks), and only for tables with data: the schema
// cannot say how the table is read, and no source counts reversed reads.
func ruleAscendingTimeOrder(a *analysis) []finding.Finding {
	var out []finding.Finding
	for _, t := range a.tables {
		if t.schema == nil {
			continue
		}
		cc := clusteringColumns(t.schema)
		if len(cc) == 0 || !isTimeType(cc[0].Type) || cc[0].ClusteringOrder != "asc" {
			continue
		}
		size := largestKnown(t)
		if size <= 0 && t.partitions <= 0 {
			continue
		}
		f := a.newFinding(KindAscendingTimeOrder, finding.SeverityInfo, nil, t.keyspace, t.name)
		f.Value, f.Threshold, f.Unit = size, 0, finding.UnitBytes
		f.Remark = true
		f.Source = "system_schema.columns"
		f.Summary = fmt.Sprintf("%s clusters by %s (%s) ascending: reading the newest rows first is a reversed read of partitions up to %s",
			t.key, cc[0].Name, cc[0].Type, format.Bytes(size))
		f.Advice = fmt.Sprintf("if the application reads the latest rows first (ORDER BY %s DESC, LIMIT n), recreate the table WITH CLUSTERING ORDER BY (%s DESC) and copy the data; if it reads oldest first, nothing to do",
			cc[0].Name, cc[0].Name)
		out = append(out, f)
	}
	return out
}

// KindAscendingTimeOrder (info): a time clustering column in ascending
// order, so newest-first reads are reversed reads.
const KindAscendingTimeOrder = "ascending_time_order"

func init() {
	registerKind(13, KindFacts{Name: KindAscendingTimeOrder, Label: "ascending time order",
		Sentence:  "Rows are clustered oldest first, so newest-first reads are reversed reads.",
		TableWide: true,
		scope:     scopeTable, rule: ruleAscendingTimeOrder})
}
