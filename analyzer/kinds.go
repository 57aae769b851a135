package analyzer

import (
	"fmt"
	"slices"
	"sort"
	"strconv"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/model"
)

// The kinds of finding are declared each in its rule's file (KindOversizedPartition
// in rule_oversized.go, ...). Their strings are the analyzer's vocabulary: the
// JSON output, the fixture truth file, metric labels and alert names use them.

// The shipped Prometheus alerts that read finding series (RuleAlert).
const (
	AlertAnalyzerFinding    = "PartmonAnalyzerFinding"
	AlertOversizedPartition = "PartmonOversizedPartition"
)

// KindFacts is everything partmon knows about one kind of finding. The
// table below is their one home: the rules the analyzer runs, how findings
// fold and group into problems, the headline texts, the status page's
// charts, the exporter's series and the pushed alerts all read it.
type KindFacts struct {
	Name string
	// Label is the kind's name as a person reads it.
	Label string
	// Sentence says what a finding of the kind means, from what its rule
	// measures (docs/detection.md), without the numbers: those stand beside it.
	Sentence string
	// MultipleOf names what a ratio value of the kind is a multiple of: a
	// bare "2.58" says nothing to a reader. Empty for ratios that are
	// fractions (a hot key's share, the tombstone ratio): they keep their number.
	MultipleOf string
	// PushedWithoutKey: partmon pushes these to Alertmanager even when they
	// name no partition key, because an operator acts on them per table.
	// Findings naming a key are pushed whatever their kind. The shipped
	// rules alert on them too (the push is off by default); their finding
	// series carry pushed="true", and the shipped inhibitions let a pushed
	// alert mute the rule alerts so labelled (one alert per problem).
	PushedWithoutKey bool
	// RuleAlert is the shipped Prometheus alert that reads the kind's
	// partmon_finding_value series (deploy/prometheus/partmon-alerts.yml
	// selects them by their alert label, never by kind); empty when the
	// kind's alert reads a gauge of its own, or there is none.
	RuleAlert string
	// TableWide: the finding judges the table's design (key, schema) and is
	// the same from every node's data, so the rules alert on it once per
	// table (its series carry measured="table"; the others "node").
	TableWide bool
	// LowerIsWorse: the finding's value is bad below its threshold (a key
	// count, a time until a size is crossed), not above it.
	LowerIsWorse bool
	// SizeIsTheProblem: the table's partition size is the problem, so the
	// status page draws its size history first.
	SizeIsTheProblem bool

	// scope is what names a problem of the kind (fold.go).
	scope idScope
	// problemOrder, for the kinds that judge a table's partitions, is the
	// order in which a member lends a problem its ID (problems.go); 0 for
	// the other kinds.
	problemOrder int
	// splitOrder, for the kinds that advise splitting a partition, is the
	// order in which their advice is preferred (problems.go); 0 for the
	// other kinds.
	splitOrder int
	// rule finds the kind's problems; the rules run in the table's order.
	rule rule
	// Rule, for a kind added from outside this package (AddKind), finds
	// its problems in the snapshot. Tests use it: a rule that panics shows
	// what the analysis and the daemon do then (rule_failures.go).
	Rule func(*model.Snapshot) []finding.Finding
}

// kinds is the one table of kinds, in a fixed order. Each rule file
// declares its kind's name, its facts and its rule together and registers
// them at their place in the table (registerKind); adding a kind is one file.
var kinds []KindFacts

// kindPlaces are the places the kinds were registered at, in order.
var kindPlaces []int

// registerKind puts k into the table at place (kinds are listed, and their
// rules run, in the order of their places). Two kinds at one place, or one
// name twice, is a programming error.
func registerKind(place int, k KindFacts) {
	i := sort.SearchInts(kindPlaces, place)
	if i < len(kindPlaces) && kindPlaces[i] == place {
		panic(fmt.Sprintf("kinds %s and %s registered at place %d", kinds[i].Name, k.Name, place))
	}
	if _, dup := KindOf(k.Name); dup {
		panic("kind " + k.Name + " registered twice")
	}
	kindPlaces = slices.Insert(kindPlaces, i, place)
	kinds = slices.Insert(kinds, i, k)
}

// Kinds lists every kind of finding the analyzer can report, in a fixed order.
func Kinds() []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.Name
	}
	return out
}

// KindOf returns the facts of a kind; false for a kind the table lacks.
func KindOf(name string) (KindFacts, bool) {
	for _, k := range kinds {
		if k.Name == name {
			return k, true
		}
	}
	return KindFacts{}, false
}

// AddKind puts a kind defined outside this package into the table (with
// its Rule, if any, and a table's scope), and remove takes it out again. Tests use
// it to show that everything reading kinds renders a new one.
func AddKind(k KindFacts) (remove func()) {
	registerKind(kindPlaces[len(kindPlaces)-1]+1, k)
	return func() {
		for i := range kinds {
			if kinds[i].Name == k.Name {
				kinds = slices.Delete(kinds, i, i+1)
				kindPlaces = slices.Delete(kindPlaces, i, i+1)
				return
			}
		}
	}
}

// KindsPushedWithoutKey lists the kinds pushed to Alertmanager even when a
// finding names no partition key.
func KindsPushedWithoutKey() []string {
	var out []string
	for _, k := range kinds {
		if k.PushedWithoutKey {
			out = append(out, k.Name)
		}
	}
	return out
}

// SeriesLabels are the labels the exporter puts on a kind's finding series
// for the shipped rules and inhibitions to select on: alert (RuleAlert),
// measured ("node" or "table") and pushed ("true" or "false").
func (k KindFacts) SeriesLabels() (alert, measured, pushed string) {
	measured = "node"
	if k.TableWide {
		measured = "table"
	}
	return k.RuleAlert, measured, strconv.FormatBool(k.PushedWithoutKey)
}

// LowerIsWorse says whether a finding of kind is worse the lower its value
// (its severity thresholds are upper bounds).
func LowerIsWorse(kind string) bool {
	k, _ := KindOf(kind)
	return k.LowerIsWorse
}

// idScopeOf is what names a problem of kind (scopeTable for a kind the table lacks).
func idScopeOf(kind string) idScope {
	k, _ := KindOf(kind)
	return k.scope
}
