package analyzer

import (
	"fmt"
	"strings"
	"time"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/internal/format"
	"github.com/partmon/partmon/model"
)

// writeCrossingFindings grades each column's most urgent write guardrail
// crossing as ruleGuardrailCrossing grades a partition's: critical when a
// fail level that refuses (authentication on, an ordinary role) is forecast
// within GuardrailFailLead or has refused a write. One finding per table
// (per column when the table is not known).
func (a writeGuardrails) writeCrossingFindings(gr *GuardrailReport) []finding.Finding {
	var out []finding.Finding
	at := map[string]int{}
	for i := range gr.Crossings {
		c := &gr.Crossings[i]
		if c.Column == "" {
			continue
		}
		s, left := guardrails{a.analysis}.crossingSeverity(c)
		if s == finding.SeverityNone {
			continue
		}
		id := c.Keyspace + "." + c.Table
		if c.Table == "" {
			id = "column " + c.Column
		}
		if j, seen := at[id]; seen && (out[j].Severity > s || (out[j].Severity == s && out[j].Value <= left)) {
			continue
		}
		f := a.newFinding(KindGuardrailCrossing, s, nil, c.Keyspace, c.Table)
		f.Value, f.Unit = left, finding.UnitSeconds
		f.Threshold = a.th.GuardrailWarnLead.Seconds()
		if s == finding.SeverityCritical {
			f.Threshold = a.th.GuardrailFailLead.Seconds()
		}
		f.Source = joinSources("system_views.settings", "logs")
		f.Summary = writeCrossingSummary(c, a.now)
		f.Advice = writeCrossingAdvice(c)
		if j, seen := at[id]; seen {
			out[j] = f
		} else {
			at[id] = len(out)
			out = append(out, f)
		}
	}
	return out
}

// writeCrossingWhat names the column and what is known of its table.
func writeCrossingWhat(c *GuardrailCrossing) string {
	switch {
	case c.Table != "":
		return fmt.Sprintf("column %s of %s.%s", c.Column, c.Keyspace, c.Table)
	case len(c.Tables) > 0:
		return fmt.Sprintf("column %s (table unknown: %s all have a column of that name)", c.Column, strings.Join(c.Tables, ", "))
	}
	return fmt.Sprintf("column %s (table unknown: no table in scope has a column of that name)", c.Column)
}

func writeFigure(c *GuardrailCrossing, v float64) string {
	if f, _ := model.GuardrailFactsOf(c.Guardrail); f.Unit == model.UnitBytes {
		return format.Bytes(v)
	}
	return fmt.Sprintf("%.0f items", v)
}

func writeCrossingSummary(c *GuardrailCrossing, now int64) string {
	measured := "the value one write carries"
	if c.Guardrail != "column_value_size" {
		measured = "the part of the collection one write carries"
	}
	head := fmt.Sprintf("%s: Cassandra measured %s at %s, %.0f %% of guardrail %s's fail threshold (%s); its log lines name no key",
		writeCrossingWhat(c), measured, writeFigure(c, c.Current), c.Fraction*100, c.Guardrail, writeFigure(c, c.Threshold))
	consequence := "it will refuse " + c.Refuses + ", for every role that is not a superuser"
	if c.Refuses == "" {
		consequence = "without authentication every client is a superuser and nothing is refused"
	}
	if c.Crossed {
		return fmt.Sprintf("%s: crossed, %s refused, the last at %s; %s", head, format.Count(float64(c.Refused))+plural(int(min(c.Refused, 2)), " write", " writes"),
			time.Unix(c.RefusedAt, 0).UTC().Format("2006-01-02 15:04:05 UTC"), consequence)
	}
	when, in, rng := crossingForecast(c, now)
	return fmt.Sprintf("%s: forecast to cross on %s, in %s (%s); then %s", head, when, in, rng, consequence)
}

func writeCrossingAdvice(c *GuardrailCrossing) string {
	if c.Guardrail == "column_value_size" {
		return "store large values in chunks (a clustering column per chunk) or outside Cassandra, or raise the fail level " +
			"if the size is by design (docs/runbooks/PartmonAnalyzerFinding.md, guardrail_crossing)"
	}
	return "write the collection in parts (s = s + {…}: each write is measured alone), move its items into rows (a clustering " +
		"column instead of the collection), or raise the fail level if the size is by design " +
		"(docs/runbooks/PartmonAnalyzerFinding.md, guardrail_crossing)"
}

// suggestWrite suggests a write guardrail's levels from the figures
// Cassandra logged: only figures past a level are logged, so the largest
// is known and the healthy ones are not. Warn stays at the level the
// nodes run (no healthy figure says where else to put it), fail goes above
// the largest figure logged so no write seen would be refused.
func (a writeGuardrails) suggestWrite(gr *GuardrailReport, name string) SuggestedGuardrail {
	g, _ := model.GuardrailFactsOf(name)
	s := SuggestedGuardrail{Guardrail: name, Unit: g.Unit}
	largest, n, stored := 0.0, 0, false
	for _, at := range a.perNode() {
		for _, e := range at.nd.LogEvidence {
			if e.Kind == model.LogWriteGuardrail && e.Guardrail == name {
				largest, n = max(largest, float64(e.Value)), n+int(e.Count)
				stored = stored || e.Stored
			}
		}
	}
	warn, warnSet := gr.threshold(name, "warn")
	if n == 0 {
		s.Why = "unknown: Cassandra logs these figures only past a warn or fail level, and no node has logged one " +
			"(the levels are off, or every value written is under them)"
		return s
	}
	keep := fmt.Sprintf("warn stays at the level the nodes run (%s)", writeFigure(&GuardrailCrossing{Guardrail: name}, warn))
	if !warnSet {
		warn = largest
		keep = "no warn level is set (these are fail lines), so warn = the largest"
	}
	s.Warn = warn
	if !warnSet {
		s.Warn = writeNice(warn, g.Unit)
	}
	s.Fail = writeNice(max(largest, s.Warn)*suggestFailMargin, g.Unit)
	from := "the request path (the part of a value one write carries)"
	if stored {
		from += " and sstable writes (whole collections, log only)"
	}
	s.Evidence = fmt.Sprintf("%d figures Cassandra logged past a level, from %s: largest %s; values under the warn level are never logged, "+
		"so %s, fail = %.0f × the largest, rounded up", n, from,
		writeFigure(&GuardrailCrossing{Guardrail: name}, largest), keep, suggestFailMargin)
	s.YAML = fmt.Sprintf("%s: %s\n%s: %s\n", g.Warn, yamlValue(s.Warn, g.Unit), g.Fail, yamlValue(s.Fail, g.Unit))
	return s
}

// writeNice rounds up as niceCeil does, sizes in whole KiB: collections
// and cell values are KiB, not MiB.
func writeNice(v float64, u model.GuardrailUnit) float64 {
	if u == model.UnitBytes && v >= kib {
		return niceCeil(v/kib, model.UnitCount) * kib
	}
	return niceCeil(v, u)
}
