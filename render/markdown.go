package render

import (
	"io"
	"strings"
	"time"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/internal/format"
)

func renderMarkdown(w io.Writer, r *analyzer.Report, minSeverity finding.Severity) error {
	p := &printer{w: w}
	p.f("# partmon report: cluster `%s`\n\n", r.Cluster)
	p.f("%s %s, collected %s. %d nodes, %d tables, %s.\n\n", r.Engine, r.Version,
		r.Taken.UTC().Format(time.RFC3339), len(r.Nodes), len(r.Tables), problemCounts(r))

	if h := hiddenLine(Summarize(r, minSeverity), minSeverity); h != "" {
		p.f("%s.\n\n", mdEscape(h))
	}
	p.f("## Findings\n\n")
	if countAtLeast(r.Findings, minSeverity) == 0 {
		p.f("No findings at or above %s.\n", minSeverity)
	}
	for _, sev := range []finding.Severity{finding.SeverityCritical, finding.SeverityWarning, finding.SeverityInfo} {
		if sev < minSeverity {
			continue
		}
		for _, pr := range analyzer.ProblemsOf(r, sev) {
			f := pr.Finding
			p.f("- **%s** `%s` %s — %s", sev, strings.Join(pr.Kinds, " + "), mdEscape(scope(f)), mdEscape(f.Summary))
			for _, o := range pr.Evidence[1:] {
				p.f("  \n  *Also %s (%s):* %s", o.Kind, o.Severity, mdEscape(o.Summary))
			}
			if f.Advice != "" {
				p.f("  \n  *Advice:* %s", mdEscape(f.Advice))
			}
			if cmd := MeasureCommand(f); cmd != "" {
				p.f("  \n  *Measure it first:* `%s`", cmd)
			}
			p.f("\n")
		}
	}
	if len(r.Remarks) > 0 && minSeverity <= finding.SeverityInfo {
		p.f("\n## Design remarks\n\nFrom the schema alone; not counted as findings.\n\n")
		for _, f := range r.Remarks {
			p.f("- `%s` %s — %s\n", f.Kind, mdEscape(scope(f)), mdEscape(f.Summary))
		}
	}
	p.f("\n## Nodes\n\n| Address | DC | Rack | Tokens | Load | Owns (raw) | Load skew | State |\n|---|---|---|---:|---:|---:|---:|---|\n")
	raw := ownershipFor(r, "")
	for _, n := range r.Nodes {
		p.f("| %s | %s | %s | %d | %s | %s | %s | %s |\n", n.Address, n.DC, n.Rack, n.Tokens,
			format.BytesCell(n.LoadBytes), format.PercentCell(raw[n.HostID].Owns), format.RatioCell(n.LoadSkew), nodeState(n))
	}
	for _, ks := range keyspacesWithOwnership(r) {
		p.f("\n### Effective ownership, keyspace `%s`\n\n| Address | DC | Rack | Owns (effective) | Skew |\n|---|---|---|---:|---:|\n", ks)
		for _, o := range r.Ownership {
			if o.Keyspace == ks {
				p.f("| %s | %s | %s | %s | %s |\n", o.Node, o.DC, o.Rack, format.PercentCell(o.Owns), format.RatioCell(o.Skew))
			}
		}
	}
	if tables := largestTables(r); len(tables) > 0 {
		p.f("\n## Tables by largest partition\n\n| Table | Largest | Mean | Partitions | Reads/s | Writes/s | Forecast to critical |\n|---|---:|---:|---:|---:|---:|---|\n")
		for _, t := range tables {
			p.f("| %s.%s | %s | %s | %d | %s | %s | %s |\n", t.Keyspace, t.Table,
				largestCell(t), format.BytesCell(float64(t.MeanPartitionBytes)),
				t.PartitionsEstimate, format.RateCell(t.ReadRate), format.RateCell(t.WriteRate), forecast(t.SecondsToCritical))
		}
	}
	if bad := failedSources(r); len(bad) > 0 {
		p.f("\n## Sources that could not be read\n\n")
		for _, s := range bad {
			p.f("- %s\n", mdEscape(s))
		}
	}
	renderMarkdownGuardrails(p, r)
	return p.err
}

// mdReplacer escapes what would make a key or a summary markup: a link
// (its brackets; parentheses alone make none), code, emphasis, a table
// cell, HTML or an autolink, or a line of its own.
var mdReplacer = strings.NewReplacer("\\", "\\\\", "|", "\\|", "*", "\\*", "_", "\\_", "`", "\\`",
	"[", "\\[", "]", "\\]", "<", "&lt;", ">", "&gt;", "&", "&amp;",
	"\r\n", " ", "\n", " ", "\r", " ")

func mdEscape(s string) string { return mdReplacer.Replace(s) }
