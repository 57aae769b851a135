package analyzer

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Every Kind* constant must be in the one list, once; the exporter, the
// alert pusher and the rule tests read Kinds() instead of parsing this source.
func TestKindsListEveryKindOnce(t *testing.T) {
	want := []string{
		KindOversizedPartition, KindWidePartition, KindHotPartition, KindHotTokenRange,
		KindTombstoneHeavy, KindOwnershipSkew, KindLoadSkew, KindLowCardinalityKey,
		KindUnbucketedTimeSeries, KindSecondaryIndexHighCard, KindPartitionGrowthForecast,
		KindStaleData, KindAscendingTimeOrder, KindGuardrailCrossing,
	}
	got := Kinds()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Kinds() = %q, want %q", got, want)
	}
	seen := map[string]bool{}
	for _, k := range got {
		if seen[k] || k == "" || strings.ToLower(k) != k {
			t.Fatalf("kind %q repeated, empty or not lower case", k)
		}
		seen[k] = true
	}
	pushed := KindsPushedWithoutKey()
	if want := []string{KindOversizedPartition, KindWidePartition, KindHotPartition, KindTombstoneHeavy, KindGuardrailCrossing}; !reflect.DeepEqual(pushed, want) {
		t.Fatalf("KindsPushedWithoutKey() = %q, want %q", pushed, want)
	}
}

// TestEveryKindHasWords: every kind has a label and a sentence, or the
// page and the text report would fall back to its summary.
func TestEveryKindHasWords(t *testing.T) {
	for _, k := range kinds {
		if k.Label == "" || k.Sentence == "" {
			t.Errorf("kind %s has no label or sentence", k.Name)
		}
	}
}

// TestANewKindIsRunAndFolded: a kind added to the table alone has its rule
// run and its findings folded by its scope: two nodes seeing one table's
// problem are one finding with both nodes.
func TestANewKindIsRunAndFolded(t *testing.T) {
	const fake = "fake_table_problem"
	seen := func(node string) Finding {
		return Finding{Kind: fake, Severity: SeverityWarning, Node: node, Keyspace: "ks", Table: "t", Value: 3, Threshold: 2, Unit: UnitRatio}
	}
	remove := AddKind(KindFacts{Name: fake, Label: "fake", Sentence: "A fake problem."})
	defer remove()
	kinds[len(kinds)-1].rule = func(*analysis) []Finding { return []Finding{seen("10.0.0.1"), seen("10.0.0.2")} }

	var got []Finding
	for _, f := range Analyze(newSnap().ring("dc1", 3).s, nil, DefaultThresholds()).Findings {
		if f.Kind == fake {
			got = append(got, f)
		}
	}
	if len(got) != 1 || len(got[0].Nodes) != 2 {
		t.Fatalf("findings of the new kind: %+v, want one with two nodes", got)
	}
	if !slices.Contains(Kinds(), fake) {
		t.Errorf("Kinds() lacks the new kind")
	}
	remove()
	if slices.Contains(Kinds(), fake) {
		t.Errorf("Kinds() keeps the removed kind")
	}
}

// TestSeriesLabels: what the shipped rules select on comes from the row.
func TestSeriesLabels(t *testing.T) {
	tests := []struct {
		kind, alert, measured, pushed string
	}{
		{KindOversizedPartition, AlertOversizedPartition, "node", "true"},
		{KindWidePartition, AlertAnalyzerFinding, "node", "true"},
		{KindLowCardinalityKey, AlertAnalyzerFinding, "table", "false"},
		{KindHotTokenRange, "", "node", "false"},
		{KindPartitionGrowthForecast, "", "table", "false"},
	}
	for _, tc := range tests {
		k, ok := KindOf(tc.kind)
		if !ok {
			t.Fatalf("no kind %s", tc.kind)
		}
		alert, measured, pushed := k.SeriesLabels()
		if alert != tc.alert || measured != tc.measured || pushed != tc.pushed {
			t.Errorf("%s: SeriesLabels() = %q, %q, %q, want %q, %q, %q", tc.kind, alert, measured, pushed, tc.alert, tc.measured, tc.pushed)
		}
	}
}
