package truth

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/partmon/partmon/analyzer"
)

// Verdicts of a finding.
const (
	VerdictExpected = "expected" // matches a planted problem
	VerdictAllowed  = "allowed"  // true and allowed, not required
	VerdictInfo     = "info"     // unplanned, at info: reported, never counted false
	VerdictFalse    = "false"    // unplanned and above info
	// VerdictMisplaced: the kind, keyspace and table of a planted problem,
	// but the wrong node or key (or none where the source names one).
	VerdictMisplaced = "misplaced"
	VerdictOutside   = "outside" // not on a corpus keyspace, nothing to judge it by
)

// Judged is one finding with its verdict.
type Judged struct {
	Finding
	Scenario       string   `json:"scenario,omitempty"`
	Verdict        string   `json:"verdict"`
	Why            string   `json:"why,omitempty"`
	Contradictions []string `json:"contradictions,omitempty"`
}

// UnmarshalJSON decodes the finding and the verdict beside it. Without it,
// Finding's UnmarshalJSON is promoted and drops every field of Judged: a
// results file read back by `truthcorpus table` had no verdicts, and its
// confusion table said 0 false where the run had judged 5.
func (j *Judged) UnmarshalJSON(b []byte) error {
	if err := j.Finding.UnmarshalJSON(b); err != nil {
		return err
	}
	var v struct {
		Scenario       string   `json:"scenario"`
		Verdict        string   `json:"verdict"`
		Why            string   `json:"why"`
		Contradictions []string `json:"contradictions"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	j.Scenario, j.Verdict, j.Why, j.Contradictions = v.Scenario, v.Verdict, v.Why, v.Contradictions
	return nil
}

// ExpectResult is one planted problem and whether partmon found it.
type ExpectResult struct {
	Scenario string   `json:"scenario"`
	Kind     string   `json:"kind"`
	Keyspace string   `json:"keyspace"`
	Table    string   `json:"table,omitempty"`
	Nodes    []string `json:"nodes,omitempty"` // the truth's nodes (empty: any)
	Key      string   `json:"key,omitempty"`
	Found    bool     `json:"found"`
	// Unknown: not found, but partmon said that it could not judge this kind
	// on this table, and why (a report note); Note holds what it said.
	Unknown bool     `json:"unknown,omitempty"`
	Matches []string `json:"matches,omitempty"` // finding IDs
	Note    string   `json:"note,omitempty"`
	// Evidence is what nodetool said of a missed problem on the truth's nodes.
	Evidence []string `json:"evidence,omitempty"`
}

// Truth is what the runner resolved against the live cluster before
// judging: each scenario's key strings and replica nodes.
type Truth struct {
	// Replicas of a KeyRef ("keyspace.table/partition"), from nodetool getendpoints.
	Replicas map[string][]string
	// DC and Rack of each node address.
	DC, Rack map[string]string
	// Keys renders a KeyRef as partmon prints keys.
	Keys map[string]string
}

func refID(ks string, r *KeyRef) string { return fmt.Sprintf("%s.%s/%d", ks, r.Table, r.Partition) }

// nodesOf is the truth's node set of an expectation; nil means any node.
func (t *Truth) nodesOf(sc *Scenario, e *Expectation) []string {
	switch {
	case e.Node != "":
		return []string{e.Node}
	case e.NodeOf != nil:
		var out []string
		for _, n := range t.Replicas[refID(sc.Keyspace, e.NodeOf)] {
			if e.NodeOf.DC == "" || t.DC[n] == e.NodeOf.DC {
				out = append(out, n)
			}
		}
		return out
	case e.NodeIn != nil:
		out := []string{}
		for n, dc := range t.DC {
			if dc == e.NodeIn.DC && t.Rack[n] == e.NodeIn.Rack {
				out = append(out, n)
			}
		}
		slices.Sort(out)
		return out
	}
	return nil
}

// match says whether finding f is the problem e describes, and if not, why.
func (t *Truth) match(sc *Scenario, e *Expectation, f *Finding) (bool, string) {
	if f.Kind != e.Kind || f.Keyspace != sc.Keyspace || (e.Table != "" && f.Table != e.Table) {
		return false, ""
	}
	if want := t.nodesOf(sc, e); want != nil {
		got := f.AllNodes()
		if len(got) == 0 {
			return false, fmt.Sprintf("names no node; the truth is %s", strings.Join(want, ", "))
		}
		if !slices.ContainsFunc(got, func(n string) bool { return slices.Contains(want, n) }) {
			return false, fmt.Sprintf("names node %s; the truth is %s", strings.Join(got, ", "), strings.Join(want, ", "))
		}
		// A key's problem folded over nodes names its replicas only (in any
		// DC): on a vnode ring the neighbour of one replica's range holds
		// none of it.
		if e.NodeOf != nil {
			all := t.Replicas[refID(sc.Keyspace, e.NodeOf)]
			for _, n := range got {
				if !slices.Contains(all, n) {
					return false, fmt.Sprintf("names node %s, which holds no replica of the key (replicas %s)", n, strings.Join(all, ", "))
				}
			}
		}
	}
	if e.Key != nil {
		want := t.Keys[refID(sc.Keyspace, e.Key)]
		if f.PartitionKey != want {
			return false, fmt.Sprintf("names key %q; the truth is %q", f.PartitionKey, want)
		}
	}
	return true, ""
}

func activeIn(e *Expectation, phase string) bool { return e.Phase == PhaseBoth || e.Phase == phase }

func rank(sev string) int { return severityRank[strings.ToLower(sev)] }

// judgeScenario sorts the findings on one scenario's keyspace into
// expected, allowed, info and false, and says which planted problems were
// found. A finding below an expectation's minimum severity does not find it.
func (t *Truth) judgeScenario(sc *Scenario, phase string, findings []Finding, notes []string) ([]ExpectResult, []Judged) {
	var results []ExpectResult
	judged := make([]Judged, len(findings))
	for i := range findings {
		judged[i] = Judged{Finding: findings[i], Scenario: sc.Name}
	}
	for i := range sc.Expect {
		e := &sc.Expect[i]
		if !activeIn(e, phase) {
			continue
		}
		r := ExpectResult{Scenario: sc.Name, Kind: e.Kind, Keyspace: sc.Keyspace, Table: e.Table, Nodes: t.nodesOf(sc, e)}
		if e.Key != nil {
			r.Key = t.Keys[refID(sc.Keyspace, e.Key)]
		}
		var near []string
		for j := range judged {
			ok, why := t.match(sc, e, &judged[j].Finding)
			switch {
			case ok && rank(judged[j].Severity) >= rank(e.MinSeverity):
				r.Found = true
				r.Matches = append(r.Matches, judged[j].ID)
				judged[j].Verdict = VerdictExpected
			case ok:
				near = append(near, fmt.Sprintf("found at %s, below the expected %s", judged[j].Severity, e.MinSeverity))
				judged[j].Verdict = VerdictAllowed
				judged[j].Why = "matches a planted problem, below its expected severity"
			case why != "":
				near = append(near, why)
				if judged[j].Verdict == "" {
					judged[j].Verdict, judged[j].Why = VerdictMisplaced, "a planted "+e.Kind+" that "+why
				}
			}
		}
		if n := unknownNote(notes, e.Kind, sc.Keyspace, e.Table); !r.Found && n != "" {
			r.Unknown, r.Note = true, n
		} else if !r.Found {
			r.Note = strings.Join(dedupe(near), "; ")
			if r.Note == "" {
				r.Note = "no " + e.Kind + " finding on " + sc.Keyspace + tableSuffix(e.Table)
			}
		}
		results = append(results, r)
	}
	for j := range judged {
		if v := judged[j].Verdict; v != "" && v != VerdictMisplaced {
			continue
		}
		verdict, why := t.unplanned(sc, phase, &judged[j].Finding)
		if judged[j].Verdict == "" || verdict == VerdictAllowed {
			judged[j].Verdict, judged[j].Why = verdict, why
		}
	}
	return results, judged
}

func (t *Truth) unplanned(sc *Scenario, phase string, f *Finding) (string, string) {
	var whyNot []string
	for i := range sc.Allow {
		a := &sc.Allow[i]
		if !activeIn(a, phase) {
			continue
		}
		ok, why := t.match(sc, a, f)
		if ok {
			return VerdictAllowed, a.Why
		}
		if why != "" {
			whyNot = append(whyNot, "allowed "+a.Kind+" "+why)
		}
	}
	if rank(f.Severity) <= rank("info") {
		return VerdictInfo, ""
	}
	why := "no planted problem of this kind on " + sc.Keyspace + tableSuffix(f.Table)
	if sc.Design == DesignGood {
		why = "a good design, which must stay silent above info"
	}
	if len(whyNot) > 0 {
		why += "; " + strings.Join(dedupe(whyNot), "; ")
	}
	return VerdictFalse, why
}

func tableSuffix(t string) string {
	if t == "" {
		return ""
	}
	return "." + t
}

func dedupe(in []string) []string {
	var out []string
	for _, s := range in {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// contradictions lists what is impossible in a finding's own figures or
// against what the corpus wrote: a severity its value does not reach, a
// share outside 0..1, more rows than the partition's bytes can hold or
// than were ever written into it. maxRows and minRowBytes come from the
// truth (0: unknown); maxBytes is partmon's own largest partition figure
// for the finding's table and node (0: unknown).
func contradictions(f *Finding, maxRows int64, minRowBytes, maxBytes int64) []string {
	var out []string
	if rank(f.Severity) >= rank("warning") && f.Threshold != 0 {
		if analyzer.LowerIsWorse(f.Kind) && f.Value >= f.Threshold {
			out = append(out, fmt.Sprintf("severity %s but value %g is not below threshold %g", f.Severity, f.Value, f.Threshold))
		}
		if !analyzer.LowerIsWorse(f.Kind) && f.Value < f.Threshold {
			out = append(out, fmt.Sprintf("severity %s but value %g is below threshold %g", f.Severity, f.Value, f.Threshold))
		}
	}
	if f.Unit == "ratio" && f.Kind == "hot_partition" && (f.Value <= 0 || f.Value > 1) {
		out = append(out, fmt.Sprintf("a key's share of operations of %g is outside 0..1", f.Value))
	}
	if f.Value < 0 {
		out = append(out, fmt.Sprintf("negative value %g", f.Value))
	}
	if f.Unit == "rows" {
		if maxBytes > 0 && minRowBytes > 0 && f.Value > 1.1*float64(maxBytes)/float64(minRowBytes) {
			out = append(out, fmt.Sprintf("%.0f rows cannot fit in the %d-byte largest partition partmon itself reports (each row carries at least %d bytes of payload: at most %d rows)",
				f.Value, maxBytes, minRowBytes, maxBytes/minRowBytes))
		}
		if maxRows > 0 && f.Value > 1.1*float64(maxRows) {
			out = append(out, fmt.Sprintf("%.0f rows, but no partition of the table ever held more than %d", f.Value, maxRows))
		}
	}
	return out
}

// sortJudged orders findings by scenario, verdict, kind and node.
func sortJudged(js []Judged) {
	sort.SliceStable(js, func(i, j int) bool {
		a, b := js[i], js[j]
		if a.Scenario != b.Scenario {
			return a.Scenario < b.Scenario
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Node < b.Node
	})
}

// UnknownNote is one of partmon's notes saying it could not judge a kind
// on a corpus table.
type UnknownNote struct {
	Scenario string `json:"scenario"`
	Kind     string `json:"kind"`
	Keyspace string `json:"keyspace"`
	Table    string `json:"table"`
	Note     string `json:"note"`
	// Decided: the scenario's truth says partmon's evidence settles this
	// kind on this table, so the note is a defect.
	Decided bool   `json:"decided,omitempty"`
	Why     string `json:"why,omitempty"` // the truth's reason, when Decided
}

// unknownNotes are the notes of the form "<kind> of <ks>.<table>[ on
// <node>] unknown: …" on the scenarios' keyspaces, each marked Decided
// when its scenario's truth settles that kind on that table in this phase.
func unknownNotes(scs []*Scenario, phase string, notes []string) []UnknownNote {
	byKS := map[string]*Scenario{}
	for _, sc := range scs {
		byKS[sc.Keyspace] = sc
	}
	var out []UnknownNote
	for _, n := range notes {
		kind, rest, ok := strings.Cut(n, " of ")
		if !ok || strings.Contains(kind, " ") || !strings.Contains(n, " unknown") {
			continue
		}
		ks, table, _ := strings.Cut(strings.Fields(rest)[0], ".")
		sc := byKS[ks]
		if sc == nil {
			continue
		}
		u := UnknownNote{Scenario: sc.Name, Kind: kind, Keyspace: ks, Table: table, Note: n}
		for _, d := range sc.Decided {
			if d.Kind == kind && d.Table == table && activeIn(&d, phase) {
				u.Decided, u.Why = true, d.Why
			}
		}
		out = append(out, u)
	}
	return out
}

// unknownNote is partmon's note saying that it could not judge kind on the
// table ("wide_partition of ks.t unknown: ..."), or "".
func unknownNote(notes []string, kind, keyspace, table string) string {
	prefix := kind + " of " + keyspace + tableSuffix(table)
	for _, n := range notes {
		if strings.HasPrefix(n, prefix+" unknown") || strings.HasPrefix(n, prefix+" on ") && strings.Contains(n, " unknown: ") {
			return n
		}
	}
	return ""
}
