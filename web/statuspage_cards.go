package web

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/headline"
	"github.com/partmon/partmon/render"
)

// pageProblem is one card: one problem, its replicas folded in by the
// analyzer (Finding.Nodes), the sentence and number first, the evidence
// and advice behind a <details>.
type pageProblem struct {
	ID, Severity, Kind, Label, Where, Key, Sentence string
	Kinds                                           string // every kind of the problem, space-separated
	Value, Threshold                                string
	// Against is what Value is judged against, in words (pageNumber).
	Against string
	// TableURL is the table's own page; empty for a keyspace or the cluster.
	TableURL                 string
	Nodes                    string // "127.0.0.1, 127.0.0.2" or ""
	Summary, Advice, Sources string
	PerNode                  []pageNodeValue
	// Also is the evidence of the problem's other kinds (the analyzer's
	// Problem gathers the kinds one partition shows into one card).
	Also []pageEvidence
	// Measure is the command that measures the key the advice proposes;
	// MeasuredSample and MeasuredLines the key advisor's answer for it,
	// when it has one (quoteMeasured).
	Measure, MeasuredSample       string
	MeasuredLines                 [][2]string
	suggestedKey, keyspace, table string
}

// pageEvidence is one more kind's finding inside a problem's card.
type pageEvidence struct {
	ID, Kind, Label, Severity, Summary, Sources string
}

// pageNodeValue is one node's own measurement of a problem.
type pageNodeValue struct {
	Node, DC, Rack, Value, Threshold, Severity string
}

// pageRemarks are remarks as one-kind cards.
func pageRemarks(fs []finding.Finding, th analyzer.Thresholds) []pageProblem {
	ps := make([]analyzer.Problem, len(fs))
	for i, f := range fs {
		ps[i] = analyzer.Problem{Finding: f, Kinds: []string{f.Kind}, Evidence: []finding.Finding{f}}
	}
	return pageProblems(ps, th, time.Time{})
}

// pageProblems are the cards, most severe first; now dates a forecast.
func pageProblems(ps []analyzer.Problem, th analyzer.Thresholds, now time.Time) []pageProblem {
	sorted := append([]analyzer.Problem(nil), ps...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Severity > sorted[j].Severity })
	out := make([]pageProblem, 0, len(sorted))
	for _, pr := range sorted {
		f := pr.Finding
		p := pageProblem{
			ID: f.ID, Severity: f.Severity.String(), Kind: f.Kind, Kinds: strings.Join(pr.Kinds, " "), Label: headline.Label(f.Kind),
			Where: headline.Where(f), Key: f.PartitionKey, Sentence: headline.Sentence(f),
			Value: pageValue(f.Kind, f.Value, f.Unit), Threshold: pageValue(f.Kind, f.Threshold, f.Unit),
			Nodes:   strings.Join(headline.Nodes(f), ", "),
			Summary: f.Summary, Advice: f.Advice, Sources: strings.ReplaceAll(f.Source, ",", ", "),
			TableURL: tableURL(f.Keyspace, f.Table),
			Measure:  render.MeasureCommand(f), suggestedKey: f.SuggestedKey, keyspace: f.Keyspace, table: f.Table,
		}
		p.Value, p.Against = pageNumber(f, th, now)
		if f.Threshold == 0 {
			p.Threshold = "" // schema remarks judge no number
			if f.Value == 0 {
				p.Value = ""
			}
		}
		for _, n := range f.Nodes {
			p.PerNode = append(p.PerNode, pageNodeValue{
				Node: n.Node, DC: n.DC, Rack: n.Rack, Value: pageValue(f.Kind, n.Value, f.Unit),
				Threshold: pageValue(f.Kind, n.Threshold, f.Unit), Severity: n.Severity.String(),
			})
		}
		for _, o := range pr.Evidence[min(1, len(pr.Evidence)):] {
			p.Also = append(p.Also, pageEvidence{ID: o.ID, Kind: o.Kind, Label: headline.Label(o.Kind), Severity: o.Severity.String(),
				Summary: o.Summary, Sources: strings.ReplaceAll(o.Source, ",", ", ")})
		}
		out = append(out, p)
	}
	return out
}

// stateLine is the cluster's state in one line: how many problems of which
// severity in how many tables, or that there are none.
func stateLine(r *analyzer.Report, up bool) (string, string) {
	var crit, warn, info int
	tables := map[string]bool{}
	for _, p := range analyzer.ProblemsIn(r) {
		f := p.Finding
		switch f.Severity {
		case finding.SeverityCritical:
			crit++
		case finding.SeverityWarning:
			warn++
		case finding.SeverityInfo:
			info++
		}
		if f.Severity >= finding.SeverityWarning && f.Table != "" {
			tables[f.Keyspace+"."+f.Table] = true
		}
	}
	class := "ok"
	var line string
	switch {
	case crit+warn == 0:
		line = "No problems at warning or above"
	default:
		var parts []string
		if crit > 0 {
			parts = append(parts, plural(crit, "critical problem"))
		}
		if warn > 0 {
			parts = append(parts, plural(warn, "warning"))
		}
		line = strings.Join(parts, " and ")
		if len(tables) > 0 {
			line += " in " + plural(len(tables), "table")
		}
		class = "warning"
		if crit > 0 {
			class = "critical"
		}
	}
	if info > 0 {
		line += fmt.Sprintf(" (%s)", plural(info, "info finding"))
	}
	if !up {
		line += "; the last cycle failed, this is the last good report"
		class = "critical"
	}
	return line, class
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
