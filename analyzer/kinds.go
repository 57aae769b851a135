package analyzer

import (
	"github.com/partmon/partmon/analyzer/finding"
	"strconv"

	"github.com/partmon/partmon/model"
)

// Kinds of finding. These strings are the analyzer's vocabulary: the JSON
// output, the fixture truth file, metric labels and alert names use them.
const (
	KindOversizedPartition      = "oversized_partition"
	KindWidePartition           = "wide_partition"
	KindHotPartition            = "hot_partition"
	KindHotTokenRange           = "hot_token_range"
	KindTombstoneHeavy          = "tombstone_heavy"
	KindOwnershipSkew           = "ownership_skew"
	KindLoadSkew                = "load_skew"
	KindLowCardinalityKey       = "low_cardinality_key"
	KindUnbucketedTimeSeries    = "unbucketed_time_series"
	KindSecondaryIndexHighCard  = "secondary_index_high_cardinality"
	KindPartitionGrowthForecast = "partition_growth_forecast"
	KindStaleData               = "stale_data"
	// KindAscendingTimeOrder (info): a time clustering column in ascending
	// order, so newest-first reads are reversed reads.
	KindAscendingTimeOrder = "ascending_time_order"
	// KindGuardrailCrossing: a key (or the table's largest partition) has
	// crossed, or is forecast to cross, a guardrail threshold.
	KindGuardrailCrossing = "guardrail_crossing"
)

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
	// what the analysis and the daemon do then (guard.go).
	Rule func(*model.Snapshot) []finding.Finding
}

// kinds is the one table of kinds, in a fixed order.
var kinds = []KindFacts{
	{Name: KindOversizedPartition, Label: "oversized partition",
		Sentence:         "A partition has grown past the size the database reads, compacts and repairs comfortably.",
		PushedWithoutKey: true, SizeIsTheProblem: true, RuleAlert: AlertOversizedPartition,
		scope: scopeTable, problemOrder: 1, splitOrder: 3, rule: ruleOversizedPartition},
	{Name: KindWidePartition, Label: "wide partition",
		Sentence:         "A read went through more rows of one partition than one read should.",
		PushedWithoutKey: true, RuleAlert: AlertAnalyzerFinding,
		scope: scopeTable, problemOrder: 2, splitOrder: 4, rule: ruleWidePartition},
	{Name: KindHotPartition, Label: "hot partition",
		Sentence:         "One key takes a large share of the table's sampled operations.",
		PushedWithoutKey: true,
		scope:            scopeKey, problemOrder: 3, rule: ruleHotPartition},
	{Name: KindHotTokenRange, Label: "hot token range",
		Sentence:   "One node serves more of the table's local operations than its share of the data warrants.",
		MultipleOf: "fair share",
		scope:      scopeGroup, rule: ruleHotTokenRange},
	{Name: KindTombstoneHeavy, Label: "tombstone-heavy reads",
		Sentence:         "Reads scan many deleted rows (tombstones) to return few live ones.",
		PushedWithoutKey: true, RuleAlert: AlertAnalyzerFinding,
		scope: scopeTable, problemOrder: 4, rule: ruleTombstoneHeavy},
	{Name: KindOwnershipSkew, Label: "ownership skew",
		Sentence:   "A node owns more of the keyspace's data than its fair share.",
		MultipleOf: "fair share",
		scope:      scopeGroup, rule: ruleOwnershipSkew},
	{Name: KindLoadSkew, Label: "load skew",
		Sentence:   "A node holds more data than the mean of its datacenter.",
		MultipleOf: "its DC's mean load",
		scope:      scopeGroup, rule: ruleLoadSkew},
	{Name: KindLowCardinalityKey, Label: "low-cardinality partition key",
		Sentence:     "The partition key has too few distinct values to spread the data over the nodes.",
		LowerIsWorse: true, RuleAlert: AlertAnalyzerFinding, TableWide: true,
		scope: scopeTable, problemOrder: 6, splitOrder: 2, rule: ruleLowCardinalityKey},
	{Name: KindUnbucketedTimeSeries, Label: "unbucketed time series",
		Sentence:         "A time series grows in partitions whose key has no time bucket.",
		SizeIsTheProblem: true, RuleAlert: AlertAnalyzerFinding, TableWide: true,
		scope: scopeTable, problemOrder: 5, splitOrder: 1, rule: ruleUnbucketedTimeSeries},
	{Name: KindSecondaryIndexHighCard, Label: "high-cardinality secondary index",
		Sentence:  "A secondary index on a column with many values makes its reads ask every node.",
		RuleAlert: AlertAnalyzerFinding, TableWide: true,
		scope: scopeTable, rule: ruleSecondaryIndexHighCardinality},
	{Name: KindPartitionGrowthForecast, Label: "partition growth forecast",
		Sentence:     "The largest partition is growing toward the critical size.",
		LowerIsWorse: true, SizeIsTheProblem: true, TableWide: true,
		scope: scopeTable, problemOrder: 7, splitOrder: 5, rule: rulePartitionGrowthForecast},
	{Name: KindStaleData, Label: "stale data",
		Sentence: "partmon cannot read this node's sources; what it shows for the node is old.",
		scope:    scopeNode, rule: ruleStaleData},
	{Name: KindAscendingTimeOrder, Label: "ascending time order",
		Sentence:  "Rows are clustered oldest first, so newest-first reads are reversed reads.",
		TableWide: true,
		scope:     scopeTable, rule: ruleAscendingTimeOrder},
	{Name: KindGuardrailCrossing, Label: "guardrail crossing",
		Sentence:         "A partition, the values written to a column, or a node's data disk, has crossed, or is forecast to cross, a guardrail threshold the nodes are configured with.",
		PushedWithoutKey: true, LowerIsWorse: true, RuleAlert: AlertAnalyzerFinding, TableWide: true,
		scope: scopeTable, rule: ruleGuardrailCrossing},
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
	kinds = append(kinds, k)
	return func() {
		for i := range kinds {
			if kinds[i].Name == k.Name {
				kinds = append(kinds[:i:i], kinds[i+1:]...)
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
