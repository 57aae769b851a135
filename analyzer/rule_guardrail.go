package analyzer

import (
	"fmt"
	"time"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/internal/format"
)

// ruleGuardrailCrossing: per table, the most urgent crossing of a
// per-partition guardrail by a known key or the table's largest partition
// (guardrailCrossings): a warning when a warn level, or a fail level that
// only logs, is forecast to be crossed within GuardrailWarnLead (info once
// crossed: Cassandra logs it itself); critical when a fail level that
// refuses writes is forecast within GuardrailFailLead, or crossed.
// Cassandra's partition guardrails only log (docs/sources.md#guardrails),
// so on today's versions only a node's data disk (diskCrossingFindings,
// data_disk_usage_percentage) can be "will refuse".
func ruleGuardrailCrossing(a *analysis) []finding.Finding {
	gr := guardrails{a}.guardrailView()
	best := map[string]*GuardrailCrossing{}
	sev := map[string]finding.Severity{}
	secs := map[string]float64{}
	var order []string
	for i := range gr.Crossings {
		c := &gr.Crossings[i]
		if c.Node != "" || c.Column != "" {
			continue // a node's data disk, a column's write guardrail: their own findings
		}
		s, left := guardrails{a}.crossingSeverity(c)
		if s == finding.SeverityNone {
			continue
		}
		tk := c.Keyspace + "." + c.Table
		if _, seen := best[tk]; !seen {
			order = append(order, tk)
		}
		if b := best[tk]; b == nil || s > sev[tk] || (s == sev[tk] && left < secs[tk]) {
			best[tk], sev[tk], secs[tk] = c, s, left
		}
	}
	var out []finding.Finding
	for _, tk := range order {
		c := best[tk]
		f := a.newFinding(KindGuardrailCrossing, sev[tk], nil, c.Keyspace, c.Table)
		f.PartitionKey = c.Key
		f.Value, f.Unit = secs[tk], finding.UnitSeconds
		f.Threshold = a.th.GuardrailWarnLead.Seconds()
		if sev[tk] == finding.SeverityCritical {
			f.Threshold = a.th.GuardrailFailLead.Seconds()
		}
		f.Source = joinSources("system_views.settings", "key history")
		f.Summary = crossingSummary(c, a.now)
		f.Advice = crossingAdvice(c)
		out = append(out, f)
	}
	return append(append(out, dataDiskGuardrail{a}.diskCrossingFindings(gr)...), writeGuardrails{a}.writeCrossingFindings(gr)...)
}

// crossingSeverity grades one crossing and says how long until it (0 once
// crossed).
func (a guardrails) crossingSeverity(c *GuardrailCrossing) (finding.Severity, float64) {
	left := 0.0
	if !c.Crossed {
		if c.At == 0 {
			return finding.SeverityNone, 0
		}
		left = float64(c.At - a.now)
	}
	refusing := c.Refuses != "" && c.Level == "fail"
	switch {
	case refusing && left <= a.th.GuardrailFailLead.Seconds():
		return finding.SeverityCritical, left
	case c.Crossed:
		// Crossed and only logged: Cassandra says so itself at every
		// flush or compaction, and oversized_partition or tombstone_heavy
		// judge the partition; partmon adds nothing to act on before it.
		return finding.SeverityInfo, 0
	case left <= a.th.GuardrailWarnLead.Seconds():
		return finding.SeverityWarning, left
	}
	return finding.SeverityNone, 0
}

func crossingWhat(c *GuardrailCrossing) string {
	what := "the largest partition of " + c.Keyspace + "." + c.Table + " (a histogram bucket bound)"
	if c.Key != "" {
		what = "key " + c.Key + " of " + c.Keyspace + "." + c.Table
	}
	return what
}

func crossingFigure(c *GuardrailCrossing, v float64) string {
	if keyMeasure[c.Guardrail] == 1 {
		return format.Bytes(v)
	}
	return fmt.Sprintf("%.0f tombstones", v)
}

func crossingSummary(c *GuardrailCrossing, now int64) string {
	consequence := "Cassandra logs it (WARN) at each flush or compaction of the partition"
	if c.Level == "fail" {
		consequence = "Cassandra logs it (ERROR) at each flush or compaction of the partition; the writes are not refused"
	}
	if c.Refuses != "" {
		consequence = "it will refuse " + c.Refuses
	}
	head := fmt.Sprintf("%s is %s, %.0f %% of guardrail %s's %s threshold (%s)", crossingWhat(c),
		crossingFigure(c, c.Current), c.Fraction*100, c.Guardrail, c.Level, crossingFigure(c, c.Threshold))
	if c.Crossed {
		return head + ": crossed; " + consequence
	}
	when, in, rng := crossingForecast(c, now)
	return fmt.Sprintf("%s: forecast to cross on %s, in %s (%s); then %s", head, when, in, rng, consequence)
}

// crossingForecast is when c is forecast to cross, in how long from now,
// and the range its history gives.
func crossingForecast(c *GuardrailCrossing, now int64) (when, in, rng string) {
	rng = "the slower half of its history does not grow"
	if c.Latest > 0 {
		rng = fmt.Sprintf("between %s and %s", format.Seconds(float64(c.Earliest-now)), format.Seconds(float64(c.Latest-now)))
	}
	return time.Unix(c.At, 0).UTC().Format("2006-01-02 15:04 UTC"), format.Seconds(float64(c.At - now)), rng
}

func crossingAdvice(c *GuardrailCrossing) string {
	if keyMeasure[c.Guardrail] == 2 {
		return "delete less in one partition (a TTL that expires whole partitions, a time bucket in the key), " +
			"compact away purgeable tombstones after gc_grace_seconds, or raise the threshold if the tombstones are expected " +
			"(docs/runbooks/PartmonAnalyzerFinding.md, guardrail_crossing)"
	}
	return "split the key (a bucket in the partition key), expire old rows with a TTL, delete what is no longer read, " +
		"or raise the threshold if the size is by design (docs/runbooks/PartmonAnalyzerFinding.md, guardrail_crossing)"
}

// KindGuardrailCrossing: a key (or the table's largest partition) has
// crossed, or is forecast to cross, a guardrail threshold.
const KindGuardrailCrossing = "guardrail_crossing"

func init() {
	registerKind(14, KindFacts{Name: KindGuardrailCrossing, Label: "guardrail crossing",
		Sentence:         "A partition, the values written to a column, or a node's data disk, has crossed, or is forecast to cross, a guardrail threshold the nodes are configured with.",
		PushedWithoutKey: true, LowerIsWorse: true, RuleAlert: AlertAnalyzerFinding, TableWide: true,
		scope: scopeTable, rule: ruleGuardrailCrossing})
}

// The thresholds the rule reads, each declared once, here, with why
// (thresholds.go: their check, unit and series).
func init() {
	registerThresholds([]thresholdSpec{
		// A crossing that only logs costs a log line: three days is time to
		// split a key or raise the threshold. A refused write is an outage
		// for that key: a week, as forecast_warning, to change the model.
		{key: "guardrail_warn_lead", unit: thresholdSeconds, check: mustBePositive, def: 3 * dayS, readBy: []string{KindGuardrailCrossing}},
		{key: "guardrail_fail_lead", unit: thresholdSeconds, check: mustBePositive, def: 7 * dayS, readBy: []string{KindGuardrailCrossing}},
	})
}
