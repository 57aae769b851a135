package headline

import (
	"fmt"
	"math"
	"time"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/internal/format"
)

// Number is a finding's number as a paged person reads it: its value,
// and what it is judged against in the words of that judgement. A
// guardrail crossing is a date or "crossed" (its value is the time left,
// its threshold the lead it is flagged within), a low-cardinality count is
// set against the threshold per node it is judged by.
func Number(f finding.Finding, th analyzer.Thresholds, now time.Time) (value, against string) {
	value = KindValue(f.Kind, f.Value, f.Unit)
	if f.Threshold == 0 {
		return value, ""
	}
	against = fmt.Sprintf("against %s (%s threshold)", KindValue(f.Kind, f.Threshold, f.Unit), f.Severity)
	switch f.Kind {
	case analyzer.KindGuardrailCrossing:
		lead := format.SecondsWords(f.Threshold)
		if f.Value <= 0 {
			return "crossed", fmt.Sprintf("a guardrail threshold (%s: flagged from %s before a crossing)", f.Severity, lead)
		}
		when := "in " + format.SecondsWords(f.Value)
		if !now.IsZero() {
			when = fmt.Sprintf("crosses by %s (%s)", now.Add(time.Duration(f.Value*float64(time.Second))).UTC().Format("2006-01-02"), when)
		}
		return when, fmt.Sprintf("(%s: flagged from %s before a crossing)", f.Severity, lead)
	case analyzer.KindLowCardinalityKey:
		per := th.LowCardinalityPartitionsPerNode
		if per <= 0 {
			return value, against
		}
		nodes := math.Round(f.Threshold / per)
		return "at most ~" + value, fmt.Sprintf("for %.0f nodes: fewer than %s per node (%s threshold: %s in all)",
			nodes, format.Count(per), f.Severity, KindValue(f.Kind, f.Threshold, f.Unit))
	}
	return value, against
}
