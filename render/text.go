// Package render writes the one-shot report for a person (text, markdown)
// or a program (JSON): the findings one problem each with their sentence,
// number and advice, then the ring, the tables and the notes.
package render

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/headline"
	"github.com/partmon/partmon/internal/format"
)

// Format is an output format of the one-shot report.
type Format string

const (
	Text     Format = "text"
	Markdown Format = "markdown"
	JSON     Format = "json"
)

// ParseFormat checks a --format value.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(strings.TrimSpace(s))); f {
	case Text, Markdown, JSON:
		return f, nil
	case "md":
		return Markdown, nil
	}
	return "", fmt.Errorf("unknown format %q (want text, markdown or json)", s)
}

// Report writes the report in the chosen format. Findings below
// minSeverity are left out of every form, and each says how many it left
// out; JSON begins with a summary (counts, hidden counts, exit code).
func Report(w io.Writer, r *analyzer.Report, f Format, minSeverity finding.Severity) error {
	switch f {
	case JSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Summary Summary `json:"summary"`
			*analyzer.Report
		}{Summarize(r, minSeverity), shownReport(r, minSeverity)})
	case Markdown:
		return renderMarkdown(w, r, minSeverity)
	default:
		return renderText(w, r, minSeverity)
	}
}

// topTablesShown bounds the "largest partitions" table: a report is read by a person.
const topTablesShown = 10

// renderText writes what a paged person reads first on top: the findings,
// one problem each (replicas folded) with its sentence, number and advice,
// then the ring and the tables, and the notes last (as the status page).
func renderText(w io.Writer, r *analyzer.Report, minSeverity finding.Severity) error {
	p := &printer{w: w}
	p.wrap("", fmt.Sprintf("partmon report — cluster %q (%s %s), collected %s", r.Cluster, r.Engine, r.Version, r.Taken.UTC().Format(time.RFC3339)))
	p.wrap("", fmt.Sprintf("%d nodes, %d tables, %s", len(r.Nodes), len(r.Tables), problemCounts(r)))
	if h := hiddenLine(Summarize(r, minSeverity), minSeverity); h != "" {
		p.wrap("", h)
	}
	renderTextFindings(p, r, minSeverity)
	renderTextOwnership(w, p, r)

	if tables := largestTables(r); len(tables) > 0 {
		p.f("\nTables by largest partition\n")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  Table\tLargest\tMean\tPartitions\tReads/s\tWrites/s\tForecast to critical")
		for _, t := range tables {
			fmt.Fprintf(tw, "  %s.%s\t%s\t%s\t%d\t%s\t%s\t%s\n", t.Keyspace, t.Table,
				largestCell(t), format.BytesCell(float64(t.MeanPartitionBytes)),
				t.PartitionsEstimate, format.RateCell(t.ReadRate), format.RateCell(t.WriteRate), forecast(t.SecondsToCritical))
		}
		tw.Flush()
	}
	if bad := failedSources(r); len(bad) > 0 {
		p.f("\nSources that could not be read\n")
		for _, s := range bad {
			p.wrap("  ", s)
		}
	}
	renderTextGuardrails(p, r)
	renderTextNotes(p, r, minSeverity)
	return p.err
}

// renderTextFindings: per severity, one block per problem (the kinds one
// partition shows gathered by the analyzer): where, the plain sentence with
// the number against its threshold, what was measured, each other kind's
// evidence, one advice.
func renderTextFindings(p *printer, r *analyzer.Report, minSeverity finding.Severity) {
	for _, sev := range []finding.Severity{finding.SeverityCritical, finding.SeverityWarning, finding.SeverityInfo} {
		if sev < minSeverity {
			continue
		}
		ps := analyzer.ProblemsOf(r, sev)
		if len(ps) == 0 {
			continue
		}
		p.f("\n%s findings (%d)\n", strings.ToUpper(sev.String()), len(ps))
		for _, pr := range ps {
			f := pr.Finding
			p.wrap("  ", fmt.Sprintf("[%s] %s", strings.Join(pr.Kinds, " + "), scope(f)))
			p.wrap(indent, headline.Sentence(f)+glue(valueAgainst(f, r)))
			p.wrap(indent, "measured: "+f.Summary)
			for _, o := range pr.Evidence[1:] {
				p.wrap(indent, fmt.Sprintf("also %s (%s): %s", o.Kind, o.Severity, o.Summary))
			}
			if f.Advice != "" {
				p.wrap(indent, "advice: "+f.Advice)
			}
			if cmd := MeasureCommand(f); cmd != "" {
				p.wrap(indent, "measure it first: "+cmd)
			}
		}
	}
	if countAtLeast(r.Findings, minSeverity) == 0 {
		p.f("\nNo findings at or above %s.\n", minSeverity)
	}
}

func renderTextOwnership(w io.Writer, p *printer, r *analyzer.Report) {
	p.f("\nNodes and token ownership\n")
	if p.err != nil {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  Address\tDC\tRack\tTokens\tLoad\tOwns (raw)\tLoad skew\tState")
	raw := ownershipFor(r, "")
	for _, n := range r.Nodes {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", n.Address, n.DC, n.Rack, n.Tokens,
			format.BytesCell(n.LoadBytes), format.PercentCell(raw[n.HostID].Owns), format.RatioCell(n.LoadSkew), nodeState(n))
	}
	tw.Flush()
	for _, ks := range keyspacesWithOwnership(r) {
		p.f("\nEffective ownership, keyspace %s\n", ks)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  Address\tDC\tRack\tOwns (effective)\tSkew")
		for _, o := range r.Ownership {
			if o.Keyspace == ks {
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", o.Node, o.DC, o.Rack, format.PercentCell(o.Owns), format.RatioCell(o.Skew))
			}
		}
		tw.Flush()
	}
}

// renderTextNotes: schema-only remarks (info, never problems) and what the
// analysis skipped, last.
func renderTextNotes(p *printer, r *analyzer.Report, minSeverity finding.Severity) {
	showRemarks := minSeverity <= finding.SeverityInfo && len(r.Remarks) > 0
	if !showRemarks && len(r.Notes) == 0 {
		return
	}
	p.f("\nNotes\n")
	if showRemarks {
		p.f("  Design remarks (%d; from the schema alone, not counted as findings)\n", len(r.Remarks))
		for _, f := range r.Remarks {
			p.wrap("  ", fmt.Sprintf("[%s] %s: %s", f.Kind, scope(f), f.Summary))
			if f.Advice != "" {
				p.wrap(indent, "advice: "+f.Advice)
			}
		}
	}
	for _, n := range r.Notes {
		p.wrap("  ", n)
	}
}

// valueAgainst is a finding's number against its threshold, in its unit,
// after a space; empty when the finding carries no number. A guardrail
// crossing and a low cardinality read as the status page writes them
// (headline.Number): "crossed", a date, a count per node.
func valueAgainst(f finding.Finding, r *analyzer.Report) string {
	if f.Threshold != 0 && (f.Kind == analyzer.KindGuardrailCrossing || f.Kind == analyzer.KindLowCardinalityKey) {
		th := r.Thresholds
		if th.Validate() != nil {
			th = analyzer.DefaultThresholds()
		}
		v, against := headline.Number(f, th, r.Taken)
		return " (" + v + " " + against + ")"
	}
	switch {
	case f.Value == 0 && f.Threshold == 0:
		return ""
	case f.Threshold == 0:
		return " (" + headline.KindValue(f.Kind, f.Value, f.Unit) + ")"
	}
	return fmt.Sprintf(" (%s against %s)", headline.KindValue(f.Kind, f.Value, f.Unit), headline.KindValue(f.Kind, f.Threshold, f.Unit))
}

// printer keeps the first write error so the render functions stay linear.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) f(layout string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, layout, args...)
	}
}

func severityCounts(fs []finding.Finding) string {
	var c [4]int
	for _, f := range fs {
		if f.Severity >= 0 && int(f.Severity) < len(c) {
			c[f.Severity]++
		}
	}
	return fmt.Sprintf("%d critical, %d warning, %d info", c[finding.SeverityCritical], c[finding.SeverityWarning], c[finding.SeverityInfo])
}

func countAtLeast(fs []finding.Finding, min finding.Severity) int {
	n := 0
	for _, f := range fs {
		if f.Severity >= min && f.Severity > finding.SeverityNone {
			n++
		}
	}
	return n
}

// problemCounts: "3 problems (1 critical, 2 warning, 0 info) from 4
// findings"; the findings count every kind apart, as the metrics do.
func problemCounts(r *analyzer.Report) string {
	ps := analyzer.ProblemsIn(r)
	faces := make([]finding.Finding, len(ps))
	for i, p := range ps {
		faces[i] = p.Finding
	}
	return fmt.Sprintf("%d problems (%s) from %d findings", len(ps), severityCounts(faces), len(r.Findings))
}

// scope names where a finding is: node, table and key, whichever apply.
func scope(f finding.Finding) string {
	var parts []string
	if f.Keyspace != "" {
		t := f.Keyspace
		if f.Table != "" {
			t += "." + f.Table
		}
		parts = append(parts, t)
	}
	if f.PartitionKey != "" {
		parts = append(parts, "key "+quoteKey(f.PartitionKey))
	}
	if f.Node != "" {
		parts = append(parts, "node "+f.Node)
	} else if len(f.Nodes) > 1 {
		names := make([]string, len(f.Nodes))
		for i, n := range f.Nodes {
			names[i] = n.Node
		}
		parts = append(parts, "nodes "+strings.Join(names, ", "))
	} else if f.DC != "" {
		parts = append(parts, "dc "+f.DC)
	}
	if len(parts) == 0 {
		return "cluster " + f.Cluster
	}
	return strings.Join(parts, ", ")
}

// quoteKey keeps a partition key readable but bounded and free of control characters.
func quoteKey(k string) string {
	const max = 80
	if len(k) > max {
		k = k[:max] + "…"
	}
	return fmt.Sprintf("%q", k)
}

func ownershipFor(r *analyzer.Report, keyspace string) map[string]analyzer.Ownership {
	m := map[string]analyzer.Ownership{}
	for _, o := range r.Ownership {
		if o.Keyspace == keyspace {
			m[o.HostID] = o
		}
	}
	return m
}

func keyspacesWithOwnership(r *analyzer.Report) []string {
	seen := map[string]bool{}
	var out []string
	for _, o := range r.Ownership {
		if o.Keyspace != "" && !seen[o.Keyspace] {
			seen[o.Keyspace] = true
			out = append(out, o.Keyspace)
		}
	}
	sort.Strings(out)
	return out
}

func largestTables(r *analyzer.Report) []analyzer.TableSummary {
	var ts []analyzer.TableSummary
	for _, t := range r.Tables {
		if t.MaxPartitionBytes > 0 {
			ts = append(ts, t)
		}
	}
	sort.SliceStable(ts, func(i, j int) bool {
		if ts[i].MaxPartitionBytes != ts[j].MaxPartitionBytes {
			return ts[i].MaxPartitionBytes > ts[j].MaxPartitionBytes
		}
		return ts[i].Keyspace+"."+ts[i].Table < ts[j].Keyspace+"."+ts[j].Table
	})
	if len(ts) > topTablesShown {
		ts = ts[:topTablesShown]
	}
	return ts
}

func failedSources(r *analyzer.Report) []string {
	var out []string
	for _, s := range r.Sources {
		if s.State != "error" && s.State != "busy" {
			continue
		}
		where := s.Node
		if where == "" {
			where = "cluster"
		}
		line := fmt.Sprintf("%s on %s: %s", s.Source, where, s.Error)
		if s.State == "busy" {
			line = fmt.Sprintf("%s on %s: sampler busy (the node's data is not stale for it): %s", s.Source, where, s.Error)
		}
		if !s.LastSuccess.IsZero() {
			line += fmt.Sprintf(" (last success %s)", s.LastSuccess.UTC().Format(time.RFC3339))
		}
		out = append(out, line)
	}
	return out
}

func nodeState(n analyzer.NodeSummary) string {
	switch {
	case n.Stale:
		return fmt.Sprintf("stale (%s old)", format.SecondsWords(n.DataAgeSeconds))
	case n.Targeted:
		return "ok"
	}
	return "not read"
}

// forecast is the "Forecast to critical" cell.
func forecast(seconds float64) string {
	if seconds < 0 || math.IsNaN(seconds) || math.IsInf(seconds, 0) {
		return "-"
	}
	if seconds == 0 {
		return "already over"
	}
	return "in " + format.SecondsWords(seconds)
}

// largestCell is a table's largest partition: a histogram bucket bound
// (max_partition_size counts whole MiB rounded up), so an upper bound, as
// the status page writes it.
func largestCell(t analyzer.TableSummary) string {
	return "≤ " + format.BytesCell(float64(t.MaxPartitionBytes))
}
