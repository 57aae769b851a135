package analyzer

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/partmon/partmon/analyzer/finding"
)

// Steps of the analysis besides the rules, as RuleFailure.Rule names them.
const (
	// StepIndex indexes the snapshot for the rules (newAnalysis): when it
	// fails the report has the snapshot's sources and nothing else.
	StepIndex     = "index"
	StepSummaries = "summaries"
	StepFold      = "fold"
	StepHeatMap   = "heat_map"
)

// Checks lists what a RuleFailure can name: the kinds that have a rule, in
// the table's order, then the steps.
func Checks() []string {
	var out []string
	for _, k := range kinds {
		if k.rule != nil || k.Rule != nil {
			out = append(out, k.Name)
		}
	}
	return append(out, StepIndex, StepSummaries, StepFold, StepHeatMap)
}

// A panic in a rule or a step is a partmon bug, never something a snapshot
// may cause: it costs that rule's findings (or that step's part of the
// report) for one cycle, and the report says so instead of the process
// dying. The monitoring of everything else goes on.

// recovered is a panic caught at one of Analyze's boundaries.
type recovered struct{ msg string }

func (e *recovered) Error() string { return e.msg }

// try runs f and turns a panic into an error naming where it happened.
func try[T any](f func() T) (v T, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &recovered{msg: fmt.Sprintf("panic: %v (at %s)", p, panicSite())}
		}
	}()
	return f(), nil
}

// panicSite is the first frame outside the runtime below the deferred
// recover: the line that panicked, as its directory, file and line.
func panicSite() string {
	pcs := make([]uintptr, 32)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, "runtime.") && f.File != "" {
			return fmt.Sprintf("%s/%s:%d", filepath.Base(filepath.Dir(f.File)), filepath.Base(f.File), f.Line)
		}
		if !more {
			return "unknown site"
		}
	}
}

// failures collects the rules and steps that failed in one Analyze.
type failures struct {
	list  []RuleFailure
	notes []string
}

// step runs one step of the analysis behind a recover; false when it failed.
func (fs *failures) step(name, lost string, f func()) bool {
	_, err := try(func() struct{} { f(); return struct{}{} })
	if err == nil {
		return true
	}
	fs.list = append(fs.list, RuleFailure{Rule: name, Error: err.Error()})
	fs.notes = append(fs.notes, fmt.Sprintf("analysis step %s failed (%v): %s this cycle; a partmon bug, please report this note", name, err, lost))
	return false
}

// runRules runs every rule behind its own recover: a rule that panics
// costs its own findings only (on the tables it fails on, when it fails on
// some alone), never the other rules'.
func (a pipeline) runRules(fs *failures) []finding.Finding {
	var all []finding.Finding
	for _, k := range kinds {
		if k.rule == nil && k.Rule != nil {
			outside := k.Rule
			k.rule = func(a *analysis) []finding.Finding { return outside(a.s) }
		}
		if k.rule == nil {
			continue
		}
		found, fail := a.runRule(k)
		all = append(all, found...)
		if fail == nil {
			continue
		}
		fs.list = append(fs.list, *fail)
		if len(fail.Tables) > 0 {
			fs.notes = append(fs.notes, fmt.Sprintf("rule %s failed on %s (%s): no %s finding for %s this cycle, the other tables' stand; a partmon bug, please report this note",
				k.Name, strings.Join(fail.Tables, ", "), fail.Error, k.Name, plural(len(fail.Tables), "that table", "those tables")))
		} else {
			fs.notes = append(fs.notes, fmt.Sprintf("rule %s failed (%s): none of its findings this cycle, the other rules' stand; a partmon bug, please report this note",
				k.Name, fail.Error))
		}
	}
	return all
}

// runRule runs one rule; when it panics, it runs it on each table alone
// to name the tables it fails on, then once more without them, whose
// findings stand. A rule that fails whatever the tables loses them all.
func (a pipeline) runRule(k KindFacts) ([]finding.Finding, *RuleFailure) {
	keep := len(a.notes)
	found, err := try(func() []finding.Finding { return k.rule(a.analysis) })
	if err == nil {
		return found, nil
	}
	a.notes = a.notes[:keep] // a failed run's notes are half a story
	fail := &RuleFailure{Rule: k.Name, Error: err.Error()}
	var good []*tableView
	for _, t := range a.tables {
		if _, err := (pipeline{a.only([]*tableView{t})}).try(k.rule); err != nil {
			fail.Tables = append(fail.Tables, t.key)
		} else {
			good = append(good, t)
		}
	}
	if len(fail.Tables) == 0 || len(good) == len(a.tables) {
		fail.Tables = nil
		return nil, fail
	}
	b := a.only(good)
	found, err = pipeline{b}.try(k.rule)
	if err != nil {
		fail.Tables = nil
		return nil, fail
	}
	a.notes = append(a.notes, b.notes...)
	return found, fail
}

// only is a copy of the analysis that holds the given tables and no notes.
func (a *analysis) only(tables []*tableView) *analysis {
	b := *a
	b.tables, b.notes = tables, nil
	return &b
}

func (a pipeline) try(r rule) ([]finding.Finding, error) {
	return try(func() []finding.Finding { return r(a.analysis) })
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// pipeline runs the rules over the index, each behind a recover, and folds their findings.
type pipeline struct{ *analysis }
