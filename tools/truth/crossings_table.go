package truth

import (
	"fmt"
	"io"
	"time"
)

// crossingsFailed: a planted crossing not forecast in time and within its
// tolerance, or a forecast where none was planted, fails the run.
func (s Summary) crossingsFailed() bool {
	for _, c := range s.Crossings {
		if !c.Found {
			return true
		}
	}
	return len(s.FalseForecasts) > 0
}

// crossingCounts is the guardrail line of the confusion table: planted
// crossings, found (forecast before the logged line, within tolerance),
// missed, false forecasts, and the good designs with no forecast at all.
func (s Summary) crossingCounts() (planted, found, missed, falseN, goodSilent, good int) {
	for _, c := range s.Crossings {
		planted++
		if c.Found {
			found++
		} else {
			missed++
		}
	}
	noisy := map[string]bool{}
	for _, f := range s.FalseForecasts {
		if f.Design == DesignGood {
			noisy[f.Scenario] = true
		}
	}
	return planted, found, missed, len(s.FalseForecasts), s.GoodSilent - min(s.GoodSilent, len(noisy)), s.Good
}

func (s Summary) writeCrossingsText(w io.Writer) {
	if len(s.Crossings) == 0 && len(s.FalseForecasts) == 0 {
		return
	}
	p, f, m, fa, _, _ := s.crossingCounts()
	fmt.Fprintf(w, "guardrail crossings (forecast before Cassandra's log line, within tolerance): planted %d, found %d, missed %d; forecasts where none was planted: %d\n", p, f, m, fa)
	for _, c := range s.Crossings {
		tag := "  CROSSING"
		if !c.Found {
			tag = "  CROSSING MISSED"
		}
		fmt.Fprintf(w, "%s %s %s %s %s: %s\n", tag, c.Scenario, crossingWhere(c), c.Guardrail, c.Level, crossingText(c))
	}
	for _, f := range s.FalseForecasts {
		fmt.Fprintf(w, "  FALSE FORECAST %s: %s\n", f.Scenario, sampleText(f.Sample))
	}
}

// crossingWhere is the key, or the column of the key's row.
func crossingWhere(c CrossingResult) string {
	if c.Column != "" {
		return fmt.Sprintf("%s.%s column %s (written to key %q)", c.Keyspace, c.Table, c.Column, c.Key)
	}
	return fmt.Sprintf("%s.%s key %q", c.Keyspace, c.Table, c.Key)
}

func crossingText(c CrossingResult) string {
	out := ""
	if c.Warned != nil {
		out = fmt.Sprintf("first warn line %s on %s at %.0f; ", clock(c.Warned.At), c.Warned.Node, c.Warned.Value)
	}
	if c.Logged != nil {
		verb := "logged"
		if c.Column != "" {
			verb = "refused"
		}
		out += fmt.Sprintf("%s %s on %s at %.0f", verb, clockMilli(c.Logged.At), c.Logged.Node, c.Logged.Value)
	}
	if c.FailLine != nil {
		out += fmt.Sprintf(" (the node's fail line %s on %s)", clockMilli(c.FailLine.At), c.FailLine.Node)
	}
	if c.First != nil {
		out += fmt.Sprintf("; first forecast made %s (%s ahead, from %s) for %s: off by %s (tolerance %s); last before it off by %s",
			clock(c.First.Seen), c.Lead.Round(time.Second), fromWhat(c.First), clock(time.Unix(c.First.At, 0)),
			signed(c.Error), c.Tolerance, signed(c.LastError))
	}
	if c.Note != "" {
		out += "; " + c.Note
	}
	return out
}

func fromWhat(s *ForecastSample) string {
	if s.Column != "" {
		return "the column's warned figures"
	}
	if s.Key == "" {
		return "the table's largest partition"
	}
	return "the key's own series"
}

func sampleText(s ForecastSample) string {
	what := fmt.Sprintf("%s.%s %s %s", s.Keyspace, s.Table, s.Guardrail, s.Level)
	if s.Column != "" {
		what += " column " + s.Column
	}
	if s.Key != "" {
		what += fmt.Sprintf(" key %q", s.Key)
	}
	if s.Crossed {
		return fmt.Sprintf("%s crossed at %s (%.0f), seen %s", what, clock(time.Unix(s.At, 0)), s.Current, clock(s.Seen))
	}
	return fmt.Sprintf("%s forecast for %s (%.0f now), seen %s", what, clock(time.Unix(s.At, 0)), s.Current, clock(s.Seen))
}

func clock(t time.Time) string { return t.Format("15:04:05") }

func clockMilli(t time.Time) string { return t.Format("15:04:05.000") }

func signed(d time.Duration) string {
	d = d.Round(time.Second)
	if d >= 0 {
		return "+" + d.String()
	}
	return d.String()
}

func (s Summary) writeCrossingsMarkdown(w io.Writer) {
	if len(s.Crossings) == 0 && len(s.FalseForecasts) == 0 {
		return
	}
	p, f, m, fa, gs, g := s.crossingCounts()
	fmt.Fprintf(w, "| %s: guardrail crossings | planted | found (forecast in time, within tolerance) | missed | false forecasts | good designs with no forecast |\n|---|---:|---:|---:|---:|---:|\n", s.Phase)
	fmt.Fprintf(w, "| `guardrail_crossing` | %d | %d | %d | %d | %d of %d |\n\n", p, f, m, fa, gs, g)
	fmt.Fprintln(w, "| scenario | key | guardrail, level | logged (node, value) | first forecast made | lead | from | off by | tolerance | last forecast before it, off by | verdict |\n|---|---|---|---|---|---:|---|---:|---:|---:|---|")
	for _, c := range s.Crossings {
		logged, made, lead, from, off, last := "none", "none", "", "", "", ""
		if c.Logged != nil {
			logged = fmt.Sprintf("%s (%s, %.0f)", clock(c.Logged.At), c.Logged.Node, c.Logged.Value)
		}
		if c.Warned != nil {
			logged += fmt.Sprintf("; first warn %s (%s, %.0f)", clock(c.Warned.At), c.Warned.Node, c.Warned.Value)
		}
		if c.First != nil {
			made, lead, from = clock(c.First.Seen), c.Lead.Round(time.Second).String(), fromWhat(c.First)
			off, last = signed(c.Error), signed(c.LastError)
		}
		verdict := "found"
		if !c.Found {
			verdict = "missed: " + c.Note
		}
		key := "`" + c.Key + "`"
		if c.Column != "" {
			key = fmt.Sprintf("column `%s` (row `%s`)", c.Column, c.Key)
		}
		fmt.Fprintf(w, "| %s | %s | %s %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", c.Scenario, key, c.Guardrail, c.Level,
			logged, made, lead, from, off, c.Tolerance, last, verdict)
	}
	fmt.Fprintln(w)
}

func (s Summary) writeCrossingDefects(w io.Writer) {
	for _, c := range s.Crossings {
		if !c.Found {
			fmt.Fprintf(w, "- **missed crossing** %s %s of %s (scenario %s): %s\n", c.Guardrail, c.Level, crossingWhere(c), c.Scenario, crossingText(c))
		}
	}
	for _, f := range s.FalseForecasts {
		fmt.Fprintf(w, "- **false forecast** (scenario %s): %s\n", f.Scenario, sampleText(f.Sample))
	}
}
