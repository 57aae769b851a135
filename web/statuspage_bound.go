package web

import (
	"net/url"
	"slices"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/headline"
)

// pagePerKind bounds what the overview draws of one kind in one section
// (the urgent problems, the info ones, the schema notes, the findings
// table): the worst ten, as many as the exporter publishes keys per table
// (thresholds.top_k's default) and about what a first screen holds. The
// rest of each kind is one line, its count and a link to the API's view filtered
// to the kind; every table's own page still lists all of its problems.
// A cluster of 30 nodes × 10,000 tables had 18,838 findings, drawn three
// times each: 30 MB of HTML, seconds to render, unreadable past the
// first screen. Bounded, the page holds at most pagePerKind × kinds
// problems per section, whatever the cluster's size.
const pagePerKind = 10

// pageTablesShown bounds the tables-with-findings list, worst first: the
// tables past it are one line with a link to the findings API.
const pageTablesShown = 50

// pageMore is the line that stands for a kind's problems past pagePerKind.
type pageMore struct {
	Kind, Label string
	Count       int
	URL         string // the findings API filtered to the kind (and severity)
}

// pastThreshold is how far past its threshold a finding is, as a factor
// (1: at it), the way its kind is bad; 0 when the finding judges no number.
func pastThreshold(f finding.Finding) float64 {
	if f.Threshold <= 0 || f.Value <= 0 {
		return 0
	}
	if analyzer.LowerIsWorse(f.Kind) {
		return f.Threshold / f.Value
	}
	return f.Value / f.Threshold
}

// worstPerKind keeps, of fs in page order, the n worst of each kind (most
// severe, then furthest past its threshold; page order among equals), in
// page order, and one pageMore per kind with findings left out, in the
// order the kinds first appear. minSeverity names the severity the API
// link asks for (the section's least).
func worstPerKind(fs []finding.Finding, n int, minSeverity finding.Severity) (kept []int, more []pageMore) {
	byKind := map[string][]int{}
	var kinds []string
	for i, f := range fs {
		if byKind[f.Kind] == nil {
			kinds = append(kinds, f.Kind)
		}
		byKind[f.Kind] = append(byKind[f.Kind], i)
	}
	for _, k := range kinds {
		idx := byKind[k]
		if len(idx) > n {
			slices.SortStableFunc(idx, func(a, b int) int {
				if fs[a].Severity != fs[b].Severity {
					return int(fs[b].Severity) - int(fs[a].Severity)
				}
				pa, pb := pastThreshold(fs[a]), pastThreshold(fs[b])
				switch {
				case pa > pb:
					return -1
				case pa < pb:
					return 1
				}
				return a - b
			})
			more = append(more, pageMore{Kind: k, Label: headline.Label(k), Count: len(idx) - n, URL: kindURL(k, minSeverity)})
			idx = idx[:n]
		}
		kept = append(kept, idx...)
	}
	slices.Sort(kept)
	return kept, more
}

// kindURL is the findings API's view of one kind at or above a severity.
func kindURL(kind string, minSeverity finding.Severity) string {
	q := url.Values{"kind": {kind}}
	if minSeverity > finding.SeverityInfo {
		q.Set("severity", minSeverity.String())
	}
	return "/api/v1/findings?" + q.Encode()
}

// boundProblems is pagePerKind of each kind of ps.
func boundProblems(ps []analyzer.Problem, minSeverity finding.Severity) ([]analyzer.Problem, []pageMore) {
	fs := make([]finding.Finding, len(ps))
	for i, p := range ps {
		fs[i] = p.Finding
	}
	kept, more := worstPerKind(fs, pagePerKind, minSeverity)
	out := make([]analyzer.Problem, len(kept))
	for i, k := range kept {
		out[i] = ps[k]
	}
	return out, more
}

// boundFindings is pagePerKind of each kind of fs.
func boundFindings(fs []finding.Finding, minSeverity finding.Severity) ([]finding.Finding, []pageMore) {
	kept, more := worstPerKind(fs, pagePerKind, minSeverity)
	out := make([]finding.Finding, len(kept))
	for i, k := range kept {
		out[i] = fs[k]
	}
	return out, more
}
