package analyzer

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/partmon/partmon/analyzer/finding"
)

// Every Kind* constant is in the one table, once, and is declared in the
// file that registers its facts (registerKind) beside its rule: a new kind is
// one file. The exporter, the alert pusher and the rule tests read Kinds()
// instead of parsing this source.
func TestKindsListEveryKindOnce(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	declaredIn := map[string]string{}   // constant -> its file
	registeredIn := map[string]string{} // constant -> the file registering its facts
	value := map[string]string{}        // constant -> kind
	var want []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GenDecl:
				if n.Tok != token.CONST {
					return true
				}
				for _, spec := range n.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, id := range vs.Names {
						if i >= len(vs.Values) || !strings.HasPrefix(id.Name, "Kind") {
							continue
						}
						if lit, ok := vs.Values[i].(*ast.BasicLit); ok {
							v, _ := strconv.Unquote(lit.Value)
							value[id.Name], declaredIn[id.Name] = v, name
							want = append(want, v)
						}
					}
				}
			case *ast.CallExpr:
				if fn, ok := n.Fun.(*ast.Ident); ok && fn.Name == "registerKind" && len(n.Args) == 2 {
					if lit, ok := n.Args[1].(*ast.CompositeLit); ok {
						for _, e := range lit.Elts {
							if kv, ok := e.(*ast.KeyValueExpr); ok && fmt.Sprint(kv.Key) == "Name" {
								registeredIn[fmt.Sprint(kv.Value)] = name
							}
						}
					}
				}
			}
			return true
		})
	}
	if len(want) < 13 {
		t.Fatalf("read %d Kind constants: %q", len(want), want)
	}
	for id, file := range declaredIn {
		if registeredIn[id] != file {
			t.Errorf("%s (%s) is declared in %s but its facts are registered in %q: a kind's constant, facts and rule share a file",
				id, value[id], file, registeredIn[id])
		}
	}
	slices.Sort(want)
	got := Kinds()
	if sorted := slices.Sorted(slices.Values(got)); !reflect.DeepEqual(sorted, want) {
		t.Fatalf("Kinds() = %q, want every Kind constant once: %q", got, want)
	}
	seen := map[string]bool{}
	for _, k := range got {
		if seen[k] || k == "" || strings.ToLower(k) != k {
			t.Fatalf("kind %q repeated, empty or not lower case", k)
		}
		seen[k] = true
	}
	if pushed := KindsPushedWithoutKey(); !slices.Contains(pushed, KindOversizedPartition) || slices.Contains(pushed, KindStaleData) {
		t.Fatalf("KindsPushedWithoutKey() = %q: want oversized partitions pushed and stale data not", pushed)
	}
}

// TestKindsOrder: the kinds are listed, and their rules run, in this
// order, set by each rule file's registerKind place; everything that lists
// kinds (the docs tables, Checks, the exporter's help) follows it. A kind
// added after them needs no line here; one put between them moves a place
// on purpose, and this list with it.
func TestKindsOrder(t *testing.T) {
	want := []string{
		KindOversizedPartition, KindWidePartition, KindHotPartition, KindHotTokenRange, KindTombstoneHeavy,
		KindOwnershipSkew, KindLoadSkew, KindLowCardinalityKey, KindUnbucketedTimeSeries,
		KindSecondaryIndexHighCard, KindPartitionGrowthForecast, KindStaleData, KindAscendingTimeOrder,
		KindGuardrailCrossing,
	}
	if got := Kinds(); len(got) < len(want) || !reflect.DeepEqual(got[:len(want)], want) {
		t.Errorf("Kinds() = %q\nwant first  %q", got, want)
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
	seen := func(node string) finding.Finding {
		return finding.Finding{Kind: fake, Severity: finding.SeverityWarning, Node: node, Keyspace: "ks", Table: "t", Value: 3, Threshold: 2, Unit: finding.UnitRatio}
	}
	remove := AddKind(KindFacts{Name: fake, Label: "fake", Sentence: "A fake problem."})
	defer remove()
	kinds[len(kinds)-1].rule = func(*analysis) []finding.Finding { return []finding.Finding{seen("10.0.0.1"), seen("10.0.0.2")} }

	var got []finding.Finding
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
