package collector

import (
	"strconv"
	"time"

	"github.com/partmon/partmon/collector/internal/cassandralog"
	"github.com/partmon/partmon/model"
)

// guardrailEvidence is a write guardrail's line as evidence: one per
// guardrail, column, table (when the line names it), key, where checked
// and level, its figures kept as a series for the analyzer's forecast.
func guardrailEvidence(ev cassandralog.Event, t time.Time, where string, schema *model.Schema) model.LogEvidence {
	e := model.LogEvidence{
		Kind: model.LogWriteGuardrail, Keyspace: ev.Keyspace, Table: ev.Table, Guardrail: ev.Guardrail, Column: ev.Column,
		Stored: ev.Stored, Value: ev.Value, Threshold: ev.Threshold, Failure: ev.Failure,
		Count: 1, First: t, Last: t, Where: where, Series: []model.GuardrailPoint{{At: t.Unix(), Value: ev.Value}},
	}
	if ev.Stored && len(partitionKeyColumns(schema, ev.Keyspace, ev.Table)) == 1 && !hasClustering(schema, ev.Keyspace, ev.Table) {
		e.Key, _ = cassandralog.SingleValueKey(ev.Row)
	}
	return e
}

// guardrailIdent tells apart a write guardrail's evidence of one table:
// the guardrail, column, where checked and level; the key is its own part
// of evidenceKey.
func guardrailIdent(e *model.LogEvidence) string {
	return "guardrail:" + e.Guardrail + "/" + e.Column + "/" + strconv.FormatBool(e.Stored) + "/" +
		strconv.FormatBool(e.Failure) + "/" + e.Key
}

// foldSeries adds e's points to cur's, in time order, merged in pairs
// past model.MaxGuardrailSeries.
func foldSeries(cur, e *model.LogEvidence) {
	for _, p := range e.Series {
		i := len(cur.Series)
		for i > 0 && cur.Series[i-1].At > p.At {
			i--
		}
		cur.Series = append(cur.Series, model.GuardrailPoint{})
		copy(cur.Series[i+1:], cur.Series[i:])
		cur.Series[i] = p
	}
	for len(cur.Series) > model.MaxGuardrailSeries {
		cur.Series = halveSeries(cur.Series)
	}
}

func halveSeries(s []model.GuardrailPoint) []model.GuardrailPoint {
	out := s[:0]
	for i := 0; i < len(s); i += 2 {
		p := s[i]
		if i+1 < len(s) {
			q := s[i+1]
			p = model.GuardrailPoint{At: q.At, Value: max(p.Value, q.Value)}
		}
		out = append(out, p)
	}
	return out
}

// hasClustering: the schema knows the table and it has clustering columns
// (unknown tables count as having them: no key is read from their rows).
func hasClustering(s *model.Schema, keyspace, table string) bool {
	if s == nil {
		return true
	}
	for _, ks := range s.Keyspaces {
		if ks.Name != keyspace {
			continue
		}
		for _, t := range ks.Tables {
			if t.Name != table {
				continue
			}
			for _, c := range t.Columns {
				if c.Kind == "clustering" {
					return true
				}
			}
			return false
		}
	}
	return true
}
