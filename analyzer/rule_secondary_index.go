package analyzer

import (
	"fmt"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/internal/format"
	"github.com/partmon/partmon/model"
)

// ruleSecondaryIndexHighCardinality: a secondary index on a column that
// looks (nearly) unique: uuid, timeuuid or timestamp types, or id-like
// names. A legacy index (Cassandra 2i, ScyllaDB local index) answers a
// lookup by asking every token range, to return a row or two; SAI/SASI and
// other custom indexes cope better. ScyllaDB's default global indexes are
// tables keyed by the indexed value, built for exactly this, so they are
// left alone. Collection indexes are not judged. The schema cannot say
// whether the index is queried: alone it is a remark. Cassandra runs index
// queries as range reads (local_scan_latency), so a table whose range reads
// reach the traffic floor makes it a finding: warning for a legacy index,
// info for a custom one.
func ruleSecondaryIndexHighCardinality(a *analysis) []finding.Finding {
	var out []finding.Finding
	for _, t := range a.tables {
		if t.schema == nil {
			continue
		}
		for _, ix := range t.schema.Indexes {
			col, wrapper, scyllaLocal := indexTarget(ix)
			if a.s.Engine == model.EngineScyllaDB && !scyllaLocal {
				continue
			}
			if col == "" || (wrapper != "" && wrapper != "values") {
				continue
			}
			c, ok := columnByName(t.schema, col)
			if !ok || isCollectionType(c.Type) {
				continue
			}
			high, why := looksHighCardinality(c)
			if !high {
				continue
			}
			sev, kind := finding.SeverityWarning, "legacy secondary index"
			if scyllaLocal {
				kind = "ScyllaDB local secondary index"
			}
			custom, class := isCustomIndex(ix)
			if custom {
				sev, kind = finding.SeverityInfo, "custom index "+class
			}
			scans := t.scanRate()
			f := a.newFinding(KindSecondaryIndexHighCard, sev, nil, t.keyspace, t.name)
			f.Value, f.Threshold, f.Unit = scans, a.th.TrafficFloorOpsPerSecond, finding.UnitOpsPerSec
			f.Source = "system_schema.indexes,system_schema.columns"
			f.Summary = fmt.Sprintf("index %s (%s) on %s(%s) covers a column that looks unique (%s)", ix.Name, kind, t.key, col, why)
			if scans >= a.th.TrafficFloorOpsPerSecond && a.s.Engine != model.EngineScyllaDB {
				f.Source = joinSources(f.Source, "system_views.local_scan_latency")
				f.Summary += fmt.Sprintf("; the table serves %s of range reads, the way Cassandra runs index queries", format.Rate(scans))
			} else {
				f.Severity, f.Remark, f.Value, f.Threshold = finding.SeverityInfo, true, 0, 0
				f.Summary += "; whether it is queried is not measured (no range reads on the table above the traffic floor)"
			}
			if sev == finding.SeverityWarning {
				f.Advice = fmt.Sprintf("a lookup WHERE %s = ? without the partition key visits every token range (all %d nodes) to return a row or two: keep a lookup table keyed by %s (PRIMARY KEY (%s)) written with the base table, or an SAI index on Cassandra 5.0",
					col, a.ringLen, col, col)
			} else {
				f.Advice = fmt.Sprintf("%s handles high cardinality, but a query on %s alone still asks every replica set; restrict it by partition key where the access pattern allows, or keep a lookup table keyed by %s",
					kind, col, col)
			}
			out = append(out, f)
		}
	}
	return out
}

// KindSecondaryIndexHighCard names the secondary_index_high_cardinality findings.
const KindSecondaryIndexHighCard = "secondary_index_high_cardinality"

func init() {
	registerKind(10, KindFacts{Name: KindSecondaryIndexHighCard, Label: "high-cardinality secondary index",
		Sentence:  "A secondary index on a column with many values makes its reads ask every node.",
		RuleAlert: AlertAnalyzerFinding, TableWide: true,
		scope: scopeTable, rule: ruleSecondaryIndexHighCardinality})
}
