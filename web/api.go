package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/publish"
)

const notReadyMessage = "no report yet: the first collection cycle has not finished"

type apiError struct {
	Error string `json:"error"`
}

// findingsResponse is the body of GET /api/v1/findings.
type findingsResponse struct {
	Cluster   string            `json:"cluster"`
	Generated time.Time         `json:"generated"`
	Count     int               `json:"count"`
	Findings  []finding.Finding `json:"findings"`
	// Problems gather the findings one table partition shows through
	// several kinds (analyzer.Problem): a problem is listed when one of its
	// findings passes the filter.
	Problems []analyzer.Problem `json:"problems"`
	// Remarks are the schema-only design notes, apart from the findings.
	Remarks []finding.Finding `json:"remarks,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v) // the client went away; nothing left to tell it
}

// findingFilter selects findings by the query parameters of /api/v1/findings.
// Parameters other than severity take several values, repeated or comma
// separated; a finding must match one value of every parameter given.
type findingFilter struct {
	minSeverity finding.Severity
	sets        map[string]map[string]bool // parameter → accepted values
}

// filterFields reads a finding's value for each set-valued parameter.
var filterFields = map[string]func(finding.Finding) string{
	"kind":     func(f finding.Finding) string { return f.Kind },
	"keyspace": func(f finding.Finding) string { return f.Keyspace },
	"table":    func(f finding.Finding) string { return f.Table },
	"node":     func(f finding.Finding) string { return f.Node },
	"id":       func(f finding.Finding) string { return f.ID },
}

func parseFindingFilter(q url.Values) (findingFilter, error) {
	ff := findingFilter{sets: make(map[string]map[string]bool)}
	for name, values := range q {
		var parts []string
		for _, v := range values {
			for p := range strings.SplitSeq(v, ",") {
				if p = strings.TrimSpace(p); p == "" {
					return ff, fmt.Errorf("parameter %s has an empty value", name)
				}
				parts = append(parts, p)
			}
		}
		switch {
		case name == "severity":
			if len(parts) != 1 {
				return ff, fmt.Errorf("parameter severity takes one value (the minimum), got %d", len(parts))
			}
			s, err := finding.ParseSeverity(parts[0])
			if err != nil {
				return ff, fmt.Errorf("parameter severity: %w", err)
			}
			ff.minSeverity = s
		case filterFields[name] != nil:
			set := make(map[string]bool, len(parts))
			for _, p := range parts {
				if name == "kind" && !slices.Contains(analyzer.Kinds(), p) {
					return ff, fmt.Errorf("parameter kind: unknown kind %q (want one of %s)", p, strings.Join(analyzer.Kinds(), ", "))
				}
				set[p] = true
			}
			ff.sets[name] = set
		default:
			return ff, fmt.Errorf("unknown parameter %q (known: severity, kind, keyspace, table, node, id)", name)
		}
	}
	return ff, nil
}

func (ff findingFilter) keep(f finding.Finding) bool {
	if f.Severity < ff.minSeverity {
		return false
	}
	for name, set := range ff.sets {
		if name == "node" && anyNode(f, set) {
			continue // a finding folded over nodes matches any of them
		}
		if !set[filterFields[name](f)] {
			return false
		}
	}
	return true
}

func anyNode(f finding.Finding, set map[string]bool) bool {
	for _, n := range f.Nodes {
		if set[n.Node] {
			return true
		}
	}
	return false
}

// findingsHandler serves latest's findings, labelled with e's cluster name.
func findingsHandler(latest *publish.Latest, e *exporter.Exporter) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ff, err := parseFindingFilter(r.URL.Query())
		if err != nil {
			writeJSON(w, http.StatusBadRequest, apiError{err.Error()})
			return
		}
		rep := latest.Report()
		if rep == nil {
			writeJSON(w, http.StatusServiceUnavailable, apiError{notReadyMessage})
			return
		}
		out := findingsResponse{Cluster: e.ClusterName(rep), Generated: rep.Generated, Findings: []finding.Finding{}, Problems: []analyzer.Problem{}}
		for _, f := range rep.Findings {
			if ff.keep(f) {
				out.Findings = append(out.Findings, f)
			}
		}
		for _, p := range analyzer.ProblemsIn(rep) {
			if slices.ContainsFunc(p.Evidence, ff.keep) {
				out.Problems = append(out.Problems, p)
			}
		}
		for _, f := range rep.Remarks {
			if ff.keep(f) {
				out.Remarks = append(out.Remarks, f)
			}
		}
		out.Count = len(out.Findings)
		writeCompact(w, out)
	})
}

func reportHandler(latest *publish.Latest) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.URL.Query()) > 0 {
			writeJSON(w, http.StatusBadRequest, apiError{"/api/v1/report takes no parameters"})
			return
		}
		rep := latest.Report()
		if rep == nil {
			writeJSON(w, http.StatusServiceUnavailable, apiError{notReadyMessage})
			return
		}
		writeCompact(w, rep)
	})
}

// writeCompact writes the report and the findings: compact, not indented,
// since at 30 nodes × 10,000 tables the indented report was 750 MB and
// indenting it and the findings most of the cycle's CPU (docs/benchmarks.md);
// a reader pipes them through jq.
func writeCompact(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	if err := writeCompactJSON(w, v); err != nil {
		// The client went away, or a value would not encode: either way the
		// body is cut short, and a response cache must not keep it.
		if f, ok := w.(interface{ encodingFailed() }); ok {
			f.encodingFailed()
		}
	}
}
