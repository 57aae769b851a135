package truth

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"
)

// KindRow is one line of the confusion table.
type KindRow struct {
	Kind    string `json:"kind"`
	Planted int    `json:"planted"`
	Found   int    `json:"found"`
	Missed  int    `json:"missed"`
	Unknown int    `json:"unknown"` // not found, and partmon said it could not tell (with why)
	False   int    `json:"false"`   // unplanned findings above info
	// Misplaced findings have a planted problem's kind and table but the
	// wrong node or key; they find nothing and are listed as defects.
	Misplaced int `json:"misplaced"`
	Allowed   int `json:"allowed"` // unplanned but true (allowed by the truth, or confirmed by nodetool)
	Info      int `json:"info"`    // unplanned at info
}

func (t *KindRow) add(r KindRow) {
	t.Planted += r.Planted
	t.Found += r.Found
	t.Missed += r.Missed
	t.Unknown += r.Unknown
	t.False += r.False
	t.Misplaced += r.Misplaced
	t.Allowed += r.Allowed
	t.Info += r.Info
}

// Summary is one phase's results over every cluster.
type Summary struct {
	Phase      string    `json:"phase"`
	Rows       []KindRow `json:"rows"`
	GoodSilent int       `json:"good_silent"`
	Good       int       `json:"good"`
	Figures    int       `json:"figures"`
	FiguresOK  int       `json:"figures_ok"`
	// Later and LaterOK count sampled shares held to a sample of a later
	// window (FigureCheck.LaterWindow): apart from Figures.
	Later          int            `json:"later_window"`
	LaterOK        int            `json:"later_window_ok"`
	Missed         []ExpectResult `json:"missed"`
	Unknown        []ExpectResult `json:"unknown"`
	False          []Judged       `json:"false"`
	Misplaced      []Judged       `json:"misplaced"`
	Contradicting  []Judged       `json:"contradicting"`
	FigureErrors   []FigureCheck  `json:"figure_errors"`
	SourceErrors   []string       `json:"source_errors"`
	ScenarioCount  int            `json:"scenarios"`
	FindingCount   int            `json:"findings"`
	ExpectedTotal  int            `json:"expected"`
	ExpectedFound  int            `json:"expected_found"`
	FalseAboveInfo int            `json:"false_above_info"`
	// UnknownNotes counts partmon's "… unknown" notes on corpus tables;
	// Undecided are those on a judgement the truth says the evidence
	// settles (Scenario.Decided): defects.
	UnknownNotes int           `json:"unknown_notes"`
	Undecided    []UnknownNote `json:"undecided"`
	// Ownership counts the (node, keyspace) ownership checks, OwnershipOK
	// those within OwnershipTolerance; OwnershipMaxPP is the largest gap.
	Ownership       int              `json:"ownership"`
	OwnershipOK     int              `json:"ownership_ok"`
	OwnershipMaxPP  float64          `json:"ownership_max_pp"`
	OwnershipErrors []OwnershipCheck `json:"ownership_errors"`
	// SkewErrors are nodes whose ownership_skew finding (or its absence)
	// disagrees with nodetool's ownership against the warning level.
	SkewErrors []OwnershipCheck `json:"skew_errors"`
	// Crossings and FalseForecasts: the planted guardrail crossings held
	// to the node logs, and forecasts where none was planted (crossings.go).
	Crossings      []CrossingResult `json:"crossings,omitempty"`
	FalseForecasts []FalseForecast  `json:"false_forecasts,omitempty"`
}

// Summarize folds the results of one phase into the confusion table.
func Summarize(results []*ClusterResult, phase string) Summary {
	s := Summary{Phase: phase}
	rows := map[string]*KindRow{}
	row := func(kind string) *KindRow {
		if rows[kind] == nil {
			rows[kind] = &KindRow{Kind: kind}
		}
		return rows[kind]
	}
	for _, cr := range results {
		for _, p := range cr.Phases {
			if p.Phase != phase {
				continue
			}
			s.addPhase(cr, p, row)
		}
	}
	for _, r := range rows {
		s.Rows = append(s.Rows, *r)
	}
	sort.Slice(s.Rows, func(i, j int) bool { return s.Rows[i].Kind < s.Rows[j].Kind })
	return s
}

func (s *Summary) addPhase(cr *ClusterResult, p PhaseResult, row func(string) *KindRow) {
	for _, e := range p.Expected {
		r := row(e.Kind)
		r.Planted++
		s.ExpectedTotal++
		switch {
		case e.Found:
			r.Found++
			s.ExpectedFound++
		case e.Unknown:
			r.Unknown++
			s.Unknown = append(s.Unknown, e)
		default:
			r.Missed++
			s.Missed = append(s.Missed, e)
		}
	}
	noisy := map[string]bool{}
	for _, j := range p.Findings {
		s.FindingCount++
		switch j.Verdict {
		case VerdictFalse:
			row(j.Kind).False++
			s.False = append(s.False, j)
			s.FalseAboveInfo++
			noisy[j.Scenario] = true
		case VerdictMisplaced:
			row(j.Kind).Misplaced++
			s.Misplaced = append(s.Misplaced, j)
		case VerdictAllowed:
			row(j.Kind).Allowed++
		case VerdictInfo:
			row(j.Kind).Info++
		}
		if len(j.Contradictions) > 0 {
			s.Contradicting = append(s.Contradicting, j)
		}
	}
	for _, sc := range cr.Scenarios {
		s.ScenarioCount++
		if sc.Design == DesignGood {
			s.Good++
			if !noisy[sc.Name] {
				s.GoodSilent++
			}
		}
	}
	for _, f := range p.Figures {
		switch {
		case f.LaterWindow:
			s.Later++
			if f.OK {
				s.LaterOK++
			} else {
				s.FigureErrors = append(s.FigureErrors, f)
			}
		case f.OK:
			s.Figures++
			s.FiguresOK++
		default:
			s.Figures++
			s.FigureErrors = append(s.FigureErrors, f)
		}
	}
	for _, e := range p.SourceErrors {
		s.SourceErrors = append(s.SourceErrors, cr.Cluster+": "+e)
	}
	s.addOwnership(p.Ownership)
	s.Crossings = append(s.Crossings, p.Crossings...)
	s.FalseForecasts = append(s.FalseForecasts, p.FalseForecasts...)
	s.UnknownNotes += len(p.Unknowns)
	for _, u := range p.Unknowns {
		if u.Decided {
			s.Undecided = append(s.Undecided, u)
		}
	}
}

// Failed says whether the phase missed a planted problem without saying
// that it could not tell, gave a false finding above info, or said
// "unknown" where the truth says its evidence decides: what fails `make
// truth` and the CI subset. A stated unknown on a planted problem is
// counted apart and listed with partmon's reason; it is not a finding.
func (s Summary) Failed() bool {
	return len(s.Missed) > 0 || s.FalseAboveInfo > 0 || len(s.Undecided) > 0 || len(s.OwnershipErrors) > 0 || len(s.SkewErrors) > 0 ||
		s.crossingsFailed()
}

// WriteText prints the confusion table and the lists behind it.
func (s Summary) WriteText(w io.Writer) {
	fmt.Fprintf(w, "\n== %s: %d scenarios, %d findings\n", s.Phase, s.ScenarioCount, s.FindingCount)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kind\tplanted\tfound\tunknown (said so)\tmissed\tfalse (>info)\twrong node/key\ttrue, unplanned\tinfo\t")
	var tot KindRow
	for _, r := range s.Rows {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", r.Kind, r.Planted, r.Found, r.Unknown, r.Missed, r.False, r.Misplaced, r.Allowed, r.Info)
		tot.add(r)
	}
	fmt.Fprintf(tw, "total\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", tot.Planted, tot.Found, tot.Unknown, tot.Missed, tot.False, tot.Misplaced, tot.Allowed, tot.Info)
	tw.Flush()
	fmt.Fprintf(w, "good designs silent above info: %d of %d; figures within tolerance of nodetool: %d of %d; findings with contradicting figures: %d\n",
		s.GoodSilent, s.Good, s.FiguresOK, s.Figures, len(s.Contradicting))
	if s.Later > 0 {
		fmt.Fprintf(w, "sampled shares against a later window's sample: %d of %d within two standard errors\n", s.LaterOK, s.Later)
	}
	fmt.Fprintf(w, "unknown notes on corpus tables: %d, where the evidence decides: %d\n", s.UnknownNotes, len(s.Undecided))
	if s.Ownership > 0 {
		fmt.Fprintln(w, ownershipLine(s.Ownership, s.OwnershipOK, s.OwnershipMaxPP, s.Ownership-len(s.SkewErrors)))
	}
	for _, o := range s.OwnershipErrors {
		fmt.Fprintf(w, "  OWNERSHIP %s on %s: partmon %.4f, nodetool status %s %.4f\n", o.Keyspace, o.Node, o.Partmon, o.From, o.Nodetool)
	}
	for _, o := range s.SkewErrors {
		fmt.Fprintf(w, "  SKEW %s on %s: nodetool status %s gives %.3f× the fair share (warning at %.1f×); partmon's ownership_skew: %v\n",
			o.Keyspace, o.Node, o.From, o.Skew, skewWarning, o.Flagged)
	}
	s.writeCrossingsText(w)
	for _, u := range s.Undecided {
		fmt.Fprintf(w, "  UNDECIDED %s %s%s (%s): partmon says %q\n", u.Kind, u.Keyspace, tableSuffix(u.Table), u.Why, u.Note)
	}
	for _, m := range s.Unknown {
		fmt.Fprintf(w, "  UNKNOWN %s %s%s%s: partmon says %q\n", m.Kind, m.Keyspace, tableSuffix(m.Table), where(m.Nodes, m.Key), m.Note)
	}
	for _, m := range s.Missed {
		fmt.Fprintf(w, "  MISSED %s %s%s%s: %s\n", m.Kind, m.Keyspace, tableSuffix(m.Table), where(m.Nodes, m.Key), m.Note)
	}
	for _, j := range s.False {
		fmt.Fprintf(w, "  FALSE  %s %s %s%s%s value %g %s: %s (%s)\n", j.Severity, j.Kind, j.Keyspace, tableSuffix(j.Table), where(j.AllNodes(), j.PartitionKey), j.Value, j.Unit, j.Summary, j.Why)
	}
	for _, j := range s.Misplaced {
		fmt.Fprintf(w, "  WRONG NODE/KEY %s %s %s%s%s: %s\n", j.Severity, j.Kind, j.Keyspace, tableSuffix(j.Table), where(j.AllNodes(), j.PartitionKey), j.Why)
	}
	for _, j := range s.Contradicting {
		fmt.Fprintf(w, "  CONTRADICTS %s %s%s%s: %s\n", j.Kind, j.Keyspace, tableSuffix(j.Table), where(j.AllNodes(), j.PartitionKey), strings.Join(j.Contradictions, "; "))
	}
	for _, f := range s.FigureErrors {
		tag := "FIGURE"
		if f.LaterWindow {
			tag = "LATER WINDOW"
		}
		fmt.Fprintf(w, "  %s %s %s%s%s: partmon %s vs %s (%s), off by %s (tolerance %.0f %%)\n", tag, f.Kind, f.Keyspace, tableSuffix(f.Table), where(nonEmpty(f.Node), ""),
			num(f.Partmon), refText(f), f.Source, pct(f.ErrorPct), f.Tolerance)
	}
	for _, e := range s.SourceErrors {
		fmt.Fprintf(w, "  SOURCE ERROR %s\n", e)
	}
}

// WriteMarkdown prints the confusion table as a Markdown table.
func (s Summary) WriteMarkdown(w io.Writer) {
	fmt.Fprintf(w, "| %s: kind | planted | found | unknown (said so) | missed | false (> info) | wrong node/key | true, unplanned | info |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n", s.Phase)
	var tot KindRow
	for _, r := range s.Rows {
		fmt.Fprintf(w, "| `%s` | %d | %d | %d | %d | %d | %d | %d | %d |\n", r.Kind, r.Planted, r.Found, r.Unknown, r.Missed, r.False, r.Misplaced, r.Allowed, r.Info)
		tot.add(r)
	}
	fmt.Fprintf(w, "| **total** | %d | %d | %d | %d | %d | %d | %d | %d |\n\n", tot.Planted, tot.Found, tot.Unknown, tot.Missed, tot.False, tot.Misplaced, tot.Allowed, tot.Info)
	fmt.Fprintf(w, "Good designs silent above info: %d of %d. Figures within tolerance of nodetool: %d of %d. Findings whose figures contradict each other or the data: %d.",
		s.GoodSilent, s.Good, s.FiguresOK, s.Figures, len(s.Contradicting))
	if s.Later > 0 {
		fmt.Fprintf(w, " Sampled shares against a later window's sample: %d of %d within two standard errors.", s.LaterOK, s.Later)
	}
	fmt.Fprintf(w, " Unknown notes on corpus tables: %d, where the evidence decides: %d.", s.UnknownNotes, len(s.Undecided))
	if s.Ownership > 0 {
		line := ownershipLine(s.Ownership, s.OwnershipOK, s.OwnershipMaxPP, s.Ownership-len(s.SkewErrors))
		fmt.Fprintf(w, " %s%s.", strings.ToUpper(line[:1]), line[1:])
	}
	fmt.Fprint(w, "\n\n")
	s.writeCrossingsMarkdown(w)
}

// WriteDefects lists every missed, false and contradicting finding and
// every figure error with its evidence: the finding as partmon printed it
// and what nodetool (or the corpus's own data) says.
func WriteDefects(w io.Writer, sums []Summary) {
	for _, s := range sums {
		fmt.Fprintf(w, "## %s\n\n", s.Phase)
		for _, u := range s.Undecided {
			fmt.Fprintf(w, "- **unknown where the evidence decides** `%s` on %s%s (scenario %s; %s): partmon says %q\n", u.Kind, u.Keyspace, tableSuffix(u.Table), u.Scenario, u.Why, u.Note)
		}
		for _, m := range s.Unknown {
			fmt.Fprintf(w, "- **unknown** `%s` on %s%s%s (scenario %s): partmon says %q\n", m.Kind, m.Keyspace, tableSuffix(m.Table), where(m.Nodes, m.Key), m.Scenario, m.Note)
		}
		for _, m := range s.Missed {
			fmt.Fprintf(w, "- **missed** `%s` on %s%s%s (scenario %s): %s\n", m.Kind, m.Keyspace, tableSuffix(m.Table), where(m.Nodes, m.Key), m.Scenario, m.Note)
			for _, e := range m.Evidence {
				fmt.Fprintf(w, "  - nodetool %s\n", e)
			}
		}
		for _, j := range s.False {
			fmt.Fprintf(w, "- **false** %s (scenario %s): %s\n  ```json\n  %s\n  ```\n", j.Kind, orNone(j.Scenario), j.Why, compact(j.Finding))
		}
		for _, j := range s.Misplaced {
			fmt.Fprintf(w, "- **wrong node/key** %s (scenario %s): %s\n  ```json\n  %s\n  ```\n", j.Kind, orNone(j.Scenario), j.Why, compact(j.Finding))
		}
		for _, j := range s.Contradicting {
			fmt.Fprintf(w, "- **contradicting figures** %s: %s\n  ```json\n  %s\n  ```\n", j.Kind, strings.Join(j.Contradictions, "; "), compact(j.Finding))
		}
		for _, f := range s.FigureErrors {
			tag := "figure"
			if f.LaterWindow {
				tag = "later window"
			}
			fmt.Fprintf(w, "- **%s** `%s` %s%s on %s (finding %s): partmon %s, reference %s: %s; off by %s (tolerance %.0f %%)\n",
				tag, f.Kind, f.Keyspace, tableSuffix(f.Table), orNone(f.Node), f.Finding, num(f.Partmon), refText(f), f.Source, pct(f.ErrorPct), f.Tolerance)
		}
		for _, e := range s.SourceErrors {
			fmt.Fprintf(w, "- **source error** %s\n", e)
		}
		s.writeCrossingDefects(w)
		fmt.Fprintln(w)
	}
}

func compact(f Finding) string {
	b, _ := json.Marshal(f)
	return string(b)
}

func where(nodes []string, key string) string {
	out := ""
	if len(nodes) > 0 {
		out += " on " + strings.Join(nodes, ",")
	}
	if key != "" {
		out += fmt.Sprintf(" key %q", key)
	}
	return out
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// refText is a check's reference: one figure, or the range it moved over.
func refText(c FigureCheck) string {
	if c.ReferenceFrom > 0 {
		return num(c.ReferenceFrom) + " to " + num(c.Reference)
	}
	return num(c.Reference)
}

func num(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

func pct(p *float64) string {
	if p == nil {
		return "∞ (reference 0)"
	}
	return fmt.Sprintf("%.1f %%", *p)
}
