package analyzer

import (
	"fmt"
	"strings"
	"time"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/internal/format"
)

// ruleStaleData: a node whose node-local sources failed or never succeeded;
// its figures are from its last good read (or missing), so the other rules
// may miss or misjudge it. The value is how long the node has been without
// fresh data: the age of the failing sources' last good read, or for a
// source that never succeeded the time since partmon first tried it. Info
// while that is within StaleAfter (one failed or slow read, a first cycle,
// a one-shot report, is not yet an alert); warning past it; critical past
// it when a source never gave any data at all.
//
// A source that succeeded is current as far as its own schedule goes, so
// its LastSuccess is not judged: some sources run only every 30 minutes.
func ruleStaleData(a *analysis) []finding.Finding {
	var out []finding.Finding
	fr := a.sc.Fresh
	after := a.th.StaleAfter.Seconds()
	for i := range a.s.Nodes {
		n := &a.s.Nodes[i]
		fresh := fr[n.Address]
		if !fresh.IsStale() {
			continue
		}
		age, never := fresh.FailedAge(a.s.Taken), fresh.NeverAge(a.s.Taken)
		f := a.newFinding(KindStaleData, finding.SeverityInfo, n, "", "")
		f.Value, f.Threshold, f.Unit = max(age, never), after, finding.UnitSeconds
		switch {
		case never > after:
			f.Severity = finding.SeverityCritical
		case f.Value > after:
			f.Severity = finding.SeverityWarning
		}
		var parts []string
		if len(fresh.Never) > 0 {
			parts = append(parts, fmt.Sprintf("never read: %s (tried for %s)", strings.Join(fresh.Never, ", "), format.Seconds(never)))
		}
		if len(fresh.Failed) > 0 {
			parts = append(parts, "failing now: "+strings.Join(fresh.Failed, ", "))
		}
		if !fresh.OldestFailed.IsZero() {
			parts = append(parts, fmt.Sprintf("their data is %s old (last read %s)",
				format.Seconds(age), fresh.OldestFailed.UTC().Format(time.RFC3339)))
		}
		f.Source = joinSources(append(append([]string{}, fresh.Failed...), fresh.Never...)...)
		f.Summary = fmt.Sprintf("node-local data of %s is stale (warning after %s): %s", n.Address, format.Seconds(after), strings.Join(parts, "; "))
		f.Advice = fmt.Sprintf("check that partmon reaches %s (CQL, and REST on ScyllaDB) and the errors behind partmon_collector_success{node=%q}; until then its figures are from its last good read",
			n.Address, n.Address)
		out = append(out, f)
	}
	return out
}

// KindStaleData names the stale_data findings.
const KindStaleData = "stale_data"

func init() {
	registerKind(12, KindFacts{Name: KindStaleData, Label: "stale data",
		Sentence: "partmon cannot read this node's sources; what it shows for the node is old.",
		scope:    scopeNode, rule: ruleStaleData})
}

// The thresholds the rule reads, each declared once, here, with why
// (thresholds.go: their check, unit and series).
func init() {
	registerThresholds([]thresholdSpec{
		// Three missed 5-minute cycles (15 one-minute ones): past a blip. The
		// stale warnings come before the criticals.
		{key: "stale_after", unit: thresholdSeconds, check: mustBePositive, def: 15 * minuteS, bound: true, notAbove: []string{"cycle_stale_critical_after", "node_data_stale_critical_after"},
			readBy: []string{KindStaleData, "PartmonCycleStale", "PartmonNodeDataStale"}},
		// The shipped rules' criticals since their first version, read by them
		// alone. An hour without a cycle is four stale_after periods of every
		// alert of the instance blind. Two hours without a node's data is longer
		// than a restart or an upgrade takes, and a node down that long is an
		// hour from outliving Cassandra's default max_hint_window (3h).
		{key: "cycle_stale_critical_after", unit: thresholdSeconds, check: mustBePositive, def: hourS, bound: true,
			readBy: []string{"PartmonCycleStale"}},
		{key: "node_data_stale_critical_after", unit: thresholdSeconds, check: mustBePositive, def: 2 * hourS, bound: true,
			readBy: []string{"PartmonNodeDataStale"}},
	})
}
