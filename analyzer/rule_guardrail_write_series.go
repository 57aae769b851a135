package analyzer

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/partmon/partmon/analyzer/internal/set"
	"github.com/partmon/partmon/internal/format"
	"github.com/partmon/partmon/model"
)

// The guardrails that refuse a write by the value it carries
// (collection_size, items_per_collection, column_value_size): Cassandra
// measures them in the request path and logs each figure past the warn
// level, naming the column and neither the table nor the key
// (docs/sources.md#write-guardrail-lines). partmon reads those lines (the
// logs source) and forecasts the fail level from them.

// writeSeries is one write guardrail's request-path lines for one column
// (and table, when a line names it), over every node that coordinated one.
type writeSeries struct {
	guardrail, column, keyspace, table string
	pts                                []model.GuardrailPoint // warned figures, by time
	warnLimit, failLimit               int64                  // the levels the lines state
	refused                            int64                  // fail lines: refused writes
	refusedFirst, refusedLast          time.Time
	refusedValue                       int64
	wheres                             []string
}

// writeSeriesOf gathers the request-path evidence of every node by
// guardrail and column. Lines from an sstable write (Stored) never refuse:
// they are left to the suggestions.
func (a writeGuardrails) writeSeriesOf() []*writeSeries {
	by := map[string]*writeSeries{}
	var order []string
	for _, at := range a.perNode() {
		for i := range at.nd.LogEvidence {
			e := &at.nd.LogEvidence[i]
			if e.Kind != model.LogWriteGuardrail || e.Stored || e.Column == "" {
				continue
			}
			id := e.Guardrail + "\x00" + e.Column + "\x00" + e.Keyspace + "\x00" + e.Table
			ws := by[id]
			if ws == nil {
				ws = &writeSeries{guardrail: e.Guardrail, column: e.Column, keyspace: e.Keyspace, table: e.Table}
				by[id] = ws
				order = append(order, id)
			}
			ws.wheres = set.AddSorted(ws.wheres, logWhere(e.Where))
			if !e.Failure {
				ws.pts = append(ws.pts, e.Series...)
				ws.warnLimit = e.Threshold
				continue
			}
			ws.refused += e.Count
			ws.failLimit, ws.refusedValue = e.Threshold, max(ws.refusedValue, e.Value)
			if ws.refusedFirst.IsZero() || e.First.Before(ws.refusedFirst) {
				ws.refusedFirst = e.First
			}
			if e.Last.After(ws.refusedLast) {
				ws.refusedLast = e.Last
			}
		}
	}
	sort.Strings(order)
	out := make([]*writeSeries, len(order))
	for i, id := range order {
		out[i] = by[id]
		sort.SliceStable(out[i].pts, func(x, y int) bool { return out[i].pts[x].At < out[i].pts[y].At })
	}
	return out
}

func logWhere(w string) string {
	if w != "system_views.system_logs" {
		return "log:" + filepath.Base(w)
	}
	return w
}

// writeCrossings is each write guardrail's column against its fail level:
// crossed once a write was refused, else forecast from the warned figures.
func (a writeGuardrails) writeCrossings(gr *GuardrailReport) []GuardrailCrossing {
	var out []GuardrailCrossing
	for _, ws := range a.writeSeriesOf() {
		facts, known := model.GuardrailFactsOf(ws.guardrail)
		if !known {
			continue // the SAI term sizes: read, not yet measured against their settings
		}
		limit, set := gr.threshold(ws.guardrail, "fail")
		if !set && ws.failLimit > 0 {
			limit, set = float64(ws.failLimit), true
		}
		if !set {
			continue // no fail level: nothing is refused, and the warn level is crossed by every line
		}
		c := GuardrailCrossing{Guardrail: ws.guardrail, Level: "fail", Threshold: limit, Column: ws.column,
			Keyspace: ws.keyspace, Table: ws.table, Refused: ws.refused}
		if c.Table == "" {
			c.Keyspace, c.Table, c.Tables = a.tableOfColumn(ws.column, facts.Name != "column_value_size")
		}
		if gr.Clients != "not guarded" {
			c.Refuses = facts.Refuses
		}
		if ws.refused > 0 {
			c.Current, c.Crossed, c.RefusedAt = float64(ws.refusedValue), true, ws.refusedLast.Unix()
			c.Fraction = c.Current / c.Threshold
			out = append(out, c)
			continue
		}
		out = append(out, a.writeForecast(c, ws))
	}
	return out
}

// writeForecast fits the warned figures as the other crossings do. The
// figures are Cassandra's own, exact, so a series shorter than
// forecast_min_span still forecasts, but never further ahead than it spans.
func (a writeGuardrails) writeForecast(c GuardrailCrossing, ws *writeSeries) GuardrailCrossing {
	ts, vs := make([]int64, len(ws.pts)), make([]float64, len(ws.pts))
	for i, p := range ws.pts {
		ts[i], vs[i] = p.At, float64(p.Value)
	}
	if len(vs) == 0 {
		c.Why = "no warning logged"
		return c
	}
	c.Current = vs[len(vs)-1]
	c.Fraction = c.Current / c.Threshold
	span := ts[len(ts)-1] - ts[0]
	quiet := a.now - ts[len(ts)-1]
	if quiet > max(span, int64(a.th.ForecastMinSpan.Seconds())) {
		c.Why = fmt.Sprintf("no warning logged for %s: the writes that carried it stopped or shrank", format.SecondsWords(float64(quiet)))
		return c
	}
	c.At, c.Earliest, c.Latest, c.Why = forecastCrossing(ts, vs, c.Threshold, a.now, a.th.ForecastMinPoints, 1,
		minGrowthFraction*vs[0], "no significant growth of the warned figures (a fitted rise must exceed 20 %)")
	if c.At > 0 && span < int64(a.th.ForecastMinSpan.Seconds()) && c.At-a.now > span {
		c.Why = fmt.Sprintf("the warnings span %s, less than forecast_min_span and less than the crossing is ahead", format.SecondsWords(float64(span)))
		c.At, c.Earliest, c.Latest = 0, 0, 0
	}
	return c
}

// tableOfColumn is the one table in scope holding a column of that name
// (of a collection type when collection is set); several: none, and their
// names.
func (a writeGuardrails) tableOfColumn(column string, collection bool) (keyspace, table string, several []string) {
	var hits []*tableView
	for _, t := range a.tables {
		if t.schema == nil {
			continue
		}
		for _, col := range t.schema.Columns {
			if col.Name == column && (!collection || col.Type == "" || isCollectionType(col.Type) && !strings.HasPrefix(baseType(col.Type), "tuple<")) {
				hits = append(hits, t)
				break
			}
		}
	}
	if len(hits) == 1 {
		return hits[0].keyspace, hits[0].name, nil
	}
	for _, t := range hits {
		several = append(several, t.keyspace+"."+t.name)
	}
	return "", "", several
}

// writeGuardrails are the write guardrails' series, crossings and rule over the index.
type writeGuardrails struct{ *analysis }
