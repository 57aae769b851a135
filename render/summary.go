package render

import (
	"fmt"
	"strings"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
)

// Exit codes of `partmon report` (docs/operations.md, "Exit codes of partmon report").
const (
	ExitOK          = 0 // nothing at or above --min-severity
	ExitWarning     = 1 // the worst shown finding is a warning (or info, with --min-severity info)
	ExitCritical    = 2 // a critical finding is shown
	ExitCollectFail = 3 // nothing could be collected
	ExitUsage       = 4 // a usage or configuration error
)

// ExitCodes says the exit codes in one line, as the JSON summary carries it.
const ExitCodes = "0: nothing at or above min_severity; 1: the worst shown is a warning (or info with min_severity info); " +
	"2: a critical finding; 3: could not collect; 4: usage or configuration error"

// ExitCode makes `partmon report` usable as a gate: 0 with nothing at or
// above minSev, else 1 for the worst being a warning, 2 for critical.
func ExitCode(findings []finding.Finding, minSev finding.Severity) int {
	worst := finding.SeverityNone
	for _, f := range findings {
		if f.Severity >= minSev && f.Severity > worst {
			worst = f.Severity
		}
	}
	switch worst {
	case finding.SeverityCritical:
		return ExitCritical
	case finding.SeverityWarning, finding.SeverityInfo: // info only with --min-severity info
		return ExitWarning
	}
	return ExitOK
}

// Summary is what the JSON report says first: the problems by severity,
// those --min-severity hid, and the exit code the command returns.
type Summary struct {
	MinSeverity string `json:"min_severity"`
	// Problems and Findings count every severity; Hidden* those below
	// MinSeverity, which the report leaves out.
	Problems       SeverityCounts `json:"problems"`
	Findings       SeverityCounts `json:"findings"`
	HiddenProblems int            `json:"hidden_problems"`
	HiddenFindings int            `json:"hidden_findings"`
	HiddenRemarks  int            `json:"hidden_remarks"`
	ExitCode       int            `json:"exit_code"`
	ExitCodes      string         `json:"exit_codes"`
}

// SeverityCounts counts by severity.
type SeverityCounts struct {
	Critical int `json:"critical"`
	Warning  int `json:"warning"`
	Info     int `json:"info"`
}

func (c *SeverityCounts) add(s finding.Severity) {
	switch s {
	case finding.SeverityCritical:
		c.Critical++
	case finding.SeverityWarning:
		c.Warning++
	case finding.SeverityInfo:
		c.Info++
	}
}

// Summarize counts r's problems and findings and what minSeverity hides.
func Summarize(r *analyzer.Report, minSeverity finding.Severity) Summary {
	s := Summary{MinSeverity: minSeverity.String(), ExitCode: ExitCode(r.Findings, minSeverity), ExitCodes: ExitCodes}
	for _, p := range analyzer.ProblemsIn(r) {
		s.Problems.add(p.Severity)
		if p.Severity < minSeverity {
			s.HiddenProblems++
		}
	}
	for _, f := range r.Findings {
		s.Findings.add(f.Severity)
		if f.Severity < minSeverity {
			s.HiddenFindings++
		}
	}
	if minSeverity > finding.SeverityInfo {
		s.HiddenRemarks = len(r.Remarks)
	}
	return s
}

// hiddenLine says what --min-severity left out, or "" when nothing.
func hiddenLine(s Summary, minSeverity finding.Severity) string {
	if s.HiddenProblems+s.HiddenRemarks == 0 {
		return ""
	}
	var parts []string
	below := []struct {
		sev finding.Severity
		n   int
	}{{finding.SeverityWarning, s.Problems.Warning}, {finding.SeverityInfo, s.Problems.Info}}
	for _, b := range below {
		if b.sev < minSeverity && b.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s %s", b.n, b.sev, plural(b.n, "problem")))
		}
	}
	if s.HiddenRemarks > 0 {
		parts = append(parts, fmt.Sprintf("%d design %s", s.HiddenRemarks, plural(s.HiddenRemarks, "remark")))
	}
	lower := finding.SeverityInfo
	if s.Problems.Info == 0 && s.HiddenRemarks == 0 {
		lower = finding.SeverityWarning
	}
	return fmt.Sprintf("--min-severity %s hides %s (--min-severity %s shows them)",
		minSeverity, strings.Join(parts, ", "), lower)
}

// shownReport is r with only what minSeverity shows, for the JSON form.
func shownReport(r *analyzer.Report, minSeverity finding.Severity) *analyzer.Report {
	c := *r
	c.Findings, c.Problems, c.Remarks = nil, nil, nil
	for _, f := range r.Findings {
		if f.Severity >= minSeverity {
			c.Findings = append(c.Findings, f)
		}
	}
	for _, p := range analyzer.ProblemsIn(r) {
		if p.Severity >= minSeverity {
			c.Problems = append(c.Problems, p)
		}
	}
	if minSeverity <= finding.SeverityInfo {
		c.Remarks = r.Remarks
	}
	if c.Findings == nil {
		c.Findings = []finding.Finding{}
	}
	if c.Problems == nil {
		c.Problems = []analyzer.Problem{}
	}
	return &c
}

func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}
