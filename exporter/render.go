package exporter

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
)

// Format is an output format of the one-shot report.
type Format string

const (
	FormatText     Format = "text"
	FormatMarkdown Format = "markdown"
	FormatJSON     Format = "json"
)

// ParseFormat checks a --format value.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(strings.TrimSpace(s))); f {
	case FormatText, FormatMarkdown, FormatJSON:
		return f, nil
	case "md":
		return FormatMarkdown, nil
	}
	return "", fmt.Errorf("unknown format %q (want text, markdown or json)", s)
}

// Render writes the report in the chosen format. Findings below minSeverity
// are left out of the text and markdown forms; JSON always holds them all.
func Render(w io.Writer, r *analyzer.Report, f Format, minSeverity analyzer.Severity) error {
	switch f {
	case FormatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case FormatMarkdown:
		return renderMarkdown(w, r, minSeverity)
	default:
		return renderText(w, r, minSeverity)
	}
}

// topTablesShown bounds the "largest partitions" table: a report is read by a person.
const topTablesShown = 10

func renderText(w io.Writer, r *analyzer.Report, minSeverity analyzer.Severity) error {
	p := &printer{w: w}
	p.f("partmon report — cluster %q (%s %s), collected %s\n", r.Cluster, r.Engine, r.Version, r.Taken.UTC().Format(time.RFC3339))
	p.f("%d nodes, %d tables, %d findings (%s)\n\n", len(r.Nodes), len(r.Tables), len(r.Findings), severityCounts(r.Findings))

	p.f("Nodes and token ownership\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  Address\tDC\tRack\tTokens\tLoad\tOwns (raw)\tLoad skew\tState")
	raw := ownershipFor(r, "")
	for _, n := range r.Nodes {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", n.Address, n.DC, n.Rack, n.Tokens,
			humanBytes(n.LoadBytes), percent(raw[n.HostID].Owns), ratio(n.LoadSkew), nodeState(n))
	}
	tw.Flush()
	for _, ks := range keyspacesWithOwnership(r) {
		p.f("\nEffective ownership, keyspace %s\n", ks)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  Address\tDC\tRack\tOwns (effective)\tSkew")
		for _, o := range r.Ownership {
			if o.Keyspace == ks {
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", o.Node, o.DC, o.Rack, percent(o.Owns), ratio(o.Skew))
			}
		}
		tw.Flush()
	}

	for _, sev := range []analyzer.Severity{analyzer.SeverityCritical, analyzer.SeverityWarning, analyzer.SeverityInfo} {
		if sev < minSeverity {
			continue
		}
		fs := findingsOf(r, sev)
		if len(fs) == 0 {
			continue
		}
		p.f("\n%s findings (%d)\n", strings.ToUpper(sev.String()), len(fs))
		for _, f := range fs {
			p.f("  [%s] %s\n", f.Kind, scope(f))
			p.f("      %s\n", f.Summary)
			if f.Advice != "" {
				p.f("      advice: %s\n", f.Advice)
			}
		}
	}
	if countAtLeast(r.Findings, minSeverity) == 0 {
		p.f("\nNo findings at or above %s.\n", minSeverity)
	}

	if tables := largestTables(r); len(tables) > 0 {
		p.f("\nTables by largest partition\n")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  Table\tLargest\tMean\tPartitions\tReads/s\tWrites/s\tForecast to critical")
		for _, t := range tables {
			fmt.Fprintf(tw, "  %s.%s\t%s\t%s\t%d\t%s\t%s\t%s\n", t.Keyspace, t.Table,
				humanBytes(float64(t.MaxPartitionBytes)), humanBytes(float64(t.MeanPartitionBytes)),
				t.PartitionsEstimate, rate(t.ReadRate), rate(t.WriteRate), forecast(t.SecondsToCritical))
		}
		tw.Flush()
	}
	if bad := failedSources(r); len(bad) > 0 {
		p.f("\nSources that could not be read\n")
		for _, s := range bad {
			p.f("  %s\n", s)
		}
	}
	return p.err
}

func renderMarkdown(w io.Writer, r *analyzer.Report, minSeverity analyzer.Severity) error {
	p := &printer{w: w}
	p.f("# partmon report: cluster `%s`\n\n", r.Cluster)
	p.f("%s %s, collected %s. %d nodes, %d tables, %d findings (%s).\n\n", r.Engine, r.Version,
		r.Taken.UTC().Format(time.RFC3339), len(r.Nodes), len(r.Tables), len(r.Findings), severityCounts(r.Findings))

	p.f("## Nodes\n\n| Address | DC | Rack | Tokens | Load | Owns (raw) | Load skew | State |\n|---|---|---|---:|---:|---:|---:|---|\n")
	raw := ownershipFor(r, "")
	for _, n := range r.Nodes {
		p.f("| %s | %s | %s | %d | %s | %s | %s | %s |\n", n.Address, n.DC, n.Rack, n.Tokens,
			humanBytes(n.LoadBytes), percent(raw[n.HostID].Owns), ratio(n.LoadSkew), nodeState(n))
	}
	for _, ks := range keyspacesWithOwnership(r) {
		p.f("\n### Effective ownership, keyspace `%s`\n\n| Address | DC | Rack | Owns (effective) | Skew |\n|---|---|---|---:|---:|\n", ks)
		for _, o := range r.Ownership {
			if o.Keyspace == ks {
				p.f("| %s | %s | %s | %s | %s |\n", o.Node, o.DC, o.Rack, percent(o.Owns), ratio(o.Skew))
			}
		}
	}
	p.f("\n## Findings\n\n")
	if countAtLeast(r.Findings, minSeverity) == 0 {
		p.f("No findings at or above %s.\n", minSeverity)
	}
	for _, sev := range []analyzer.Severity{analyzer.SeverityCritical, analyzer.SeverityWarning, analyzer.SeverityInfo} {
		if sev < minSeverity {
			continue
		}
		for _, f := range findingsOf(r, sev) {
			p.f("- **%s** `%s` %s — %s", sev, f.Kind, mdEscape(scope(f)), mdEscape(f.Summary))
			if f.Advice != "" {
				p.f("  \n  *Advice:* %s", mdEscape(f.Advice))
			}
			p.f("\n")
		}
	}
	if tables := largestTables(r); len(tables) > 0 {
		p.f("\n## Tables by largest partition\n\n| Table | Largest | Mean | Partitions | Reads/s | Writes/s | Forecast to critical |\n|---|---:|---:|---:|---:|---:|---|\n")
		for _, t := range tables {
			p.f("| %s.%s | %s | %s | %d | %s | %s | %s |\n", t.Keyspace, t.Table,
				humanBytes(float64(t.MaxPartitionBytes)), humanBytes(float64(t.MeanPartitionBytes)),
				t.PartitionsEstimate, rate(t.ReadRate), rate(t.WriteRate), forecast(t.SecondsToCritical))
		}
	}
	if bad := failedSources(r); len(bad) > 0 {
		p.f("\n## Sources that could not be read\n\n")
		for _, s := range bad {
			p.f("- %s\n", mdEscape(s))
		}
	}
	return p.err
}

// printer keeps the first write error so the render functions stay linear.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) f(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func severityCounts(fs []analyzer.Finding) string {
	var c [4]int
	for _, f := range fs {
		if f.Severity >= 0 && int(f.Severity) < len(c) {
			c[f.Severity]++
		}
	}
	return fmt.Sprintf("%d critical, %d warning, %d info", c[analyzer.SeverityCritical], c[analyzer.SeverityWarning], c[analyzer.SeverityInfo])
}

func countAtLeast(fs []analyzer.Finding, min analyzer.Severity) int {
	n := 0
	for _, f := range fs {
		if f.Severity >= min && f.Severity > analyzer.SeverityNone {
			n++
		}
	}
	return n
}

func findingsOf(r *analyzer.Report, sev analyzer.Severity) []analyzer.Finding {
	var out []analyzer.Finding
	for _, f := range r.Findings {
		if f.Severity == sev {
			out = append(out, f)
		}
	}
	return out
}

// scope names where a finding is: node, table and key, whichever apply.
func scope(f analyzer.Finding) string {
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
		if s.State != "error" {
			continue
		}
		where := s.Node
		if where == "" {
			where = "cluster"
		}
		line := fmt.Sprintf("%s on %s: %s", s.Source, where, s.Error)
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
		return fmt.Sprintf("stale (%s old)", humanDuration(n.DataAgeSeconds))
	case n.Targeted:
		return "ok"
	}
	return "not read"
}

func humanBytes(b float64) string {
	if b <= 0 || math.IsNaN(b) {
		return "-"
	}
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", b)
	}
	return fmt.Sprintf("%.1f %s", b, units[i])
}

func percent(v float64) string {
	if v <= 0 || math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", v*100)
}

func ratio(v float64) string {
	if v <= 0 || math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.2f", v)
}

func rate(v float64) string {
	if v < 0 || math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.1f", v)
}

func forecast(seconds float64) string {
	if seconds < 0 || math.IsNaN(seconds) || math.IsInf(seconds, 0) {
		return "-"
	}
	if seconds == 0 {
		return "already over"
	}
	return "in " + humanDuration(seconds)
}

func humanDuration(seconds float64) string {
	d := time.Duration(seconds * float64(time.Second))
	switch {
	case d >= 48*time.Hour:
		return fmt.Sprintf("%.1f days", d.Hours()/24)
	case d >= 2*time.Hour:
		return fmt.Sprintf("%.1f hours", d.Hours())
	case d >= 2*time.Minute:
		return fmt.Sprintf("%.0f minutes", d.Minutes())
	}
	return fmt.Sprintf("%.0f seconds", d.Seconds())
}

var mdReplacer = strings.NewReplacer("|", "\\|", "*", "\\*", "_", "\\_", "`", "\\`", "<", "&lt;", ">", "&gt;")

func mdEscape(s string) string { return mdReplacer.Replace(s) }
