package analyzer

import (
	"fmt"
	"strings"
	"time"

	"github.com/partmon/partmon/internal/format"
)

// ruleStaleData: a node whose node-local sources failed or never succeeded;
// its figures are from its last good read, so the other rules may miss or
// misjudge it. The value is the age of the failing sources' data. Critical
// when a source never succeeded (value -1: no data at all); warning once
// the failing data is older than StaleAfter; info while it is younger (one
// failed read is not yet an alert).
//
// A source that succeeded is current as far as its own schedule goes, so
// its LastSuccess is not judged: some sources run only every 30 minutes.
func ruleStaleData(a *analysis) []Finding {
	var out []Finding
	fr := freshness(a.s)
	after := a.th.StaleAfter.Seconds()
	for i := range a.s.Nodes {
		n := &a.s.Nodes[i]
		fresh := fr[n.Address]
		if !fresh.isStale() {
			continue
		}
		age := fresh.failedAge(a.s.Taken)
		f := a.newFinding(KindStaleData, SeverityInfo, n, "", "")
		f.Value, f.Threshold, f.Unit = age, after, UnitSeconds
		if age > after {
			f.Severity = SeverityWarning
		}
		var parts []string
		if len(fresh.never) > 0 {
			f.Severity, f.Value = SeverityCritical, -1
			parts = append(parts, "never read: "+strings.Join(fresh.never, ", "))
		}
		if len(fresh.failed) > 0 {
			parts = append(parts, "failing now: "+strings.Join(fresh.failed, ", "))
		}
		if !fresh.oldestFailed.IsZero() {
			parts = append(parts, fmt.Sprintf("their data is %s old (last read %s)",
				format.Seconds(age), fresh.oldestFailed.UTC().Format(time.RFC3339)))
		}
		f.Source = joinSources(append(append([]string{}, fresh.failed...), fresh.never...)...)
		f.Summary = fmt.Sprintf("node-local data of %s is stale (warning after %s): %s", n.Address, format.Seconds(after), strings.Join(parts, "; "))
		f.Advice = fmt.Sprintf("check that partmon reaches %s (CQL, and REST on ScyllaDB) and the errors behind partmon_collector_success{node=%q}; until then its figures are from its last good read",
			n.Address, n.Address)
		out = append(out, f)
	}
	return out
}
