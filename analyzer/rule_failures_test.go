package analyzer

import (
	"slices"
	"strings"
	"testing"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/model"
)

// injectRule replaces kind's rule for the test (the kinds table is the
// rules' one home, so this is the rules list Analyze runs).
func injectRule(t *testing.T, kind string, wrap func(orig rule) rule) {
	t.Helper()
	for i := range kinds {
		if kinds[i].Name == kind {
			orig := kinds[i].rule
			kinds[i].rule = wrap(orig)
			t.Cleanup(func() { kinds[i].rule = orig })
			return
		}
	}
	t.Fatalf("no kind %s", kind)
}

// guardSnapshot: two oversized tables (good, bad) and a table whose schema
// alone gives an ascending_time_order remark, so that two rules find something.
func guardSnapshot() *model.Snapshot {
	b := newSnap().ring("dc1", 3).keyspace("ks", simple("3"),
		table("good", pk("id", "text", 0), ck("seq", "int", 0, "asc")),
		table("bad", pk("id", "text", 0), ck("seq", "int", 0, "asc")),
		table("events", pk("id", "text", 0), ck("ts", "timestamp", 0, "asc")))
	for _, tb := range []string{"good", "bad"} {
		b.stats("h01", "ks", tb, model.TableStats{MaxPartitionBytes: 124 * mib, MeanPartitionBytes: mib, PartitionsEstimate: 100})
	}
	b.stats("h01", "ks", "events", model.TableStats{MaxPartitionBytes: mib, MeanPartitionBytes: mib / 2, PartitionsEstimate: 100})
	return b.s
}

func nilTable() string {
	var t *model.Table
	//nolint:govet // nilness: the dereference is the panic under test
	return t.Name // the nil dereference a view without schema once caused
}

func kindTables(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Kind+" "+f.Keyspace+"."+f.Table)
	}
	slices.Sort(out)
	return out
}

// A rule that panics on one table costs its finding on that table only:
// the rule's findings on the other tables, and the other rules', stand;
// the report names the rule and the table in a note and a RuleFailure. A
// rule that panics whatever the tables loses all its findings, no more.
func TestRulePanicCostsItsOwnFindingsOnly(t *testing.T) {
	clean := Analyze(guardSnapshot(), nil, DefaultThresholds())
	if got := kindTables(clean.Findings); !slices.Equal(got, []string{"oversized_partition ks.bad", "oversized_partition ks.good"}) {
		t.Fatalf("clean findings %v, want both tables oversized", got)
	}
	if got := kindTables(clean.Remarks); !slices.Contains(got, "ascending_time_order ks.events") {
		t.Fatalf("clean remarks %v, want ks.events' ascending time order", got)
	}
	if len(clean.RuleFailures) != 0 {
		t.Fatalf("clean run failed: %+v", clean.RuleFailures)
	}

	t.Run("on one table", func(t *testing.T) {
		injectRule(t, KindOversizedPartition, func(orig rule) rule {
			return func(a *analysis) []finding.Finding {
				for _, tv := range a.tables {
					if tv.name == "bad" {
						nilTable()
					}
				}
				return orig(a)
			}
		})
		r := Analyze(guardSnapshot(), nil, DefaultThresholds())
		if got := kindTables(r.Findings); !slices.Equal(got, []string{"oversized_partition ks.good"}) {
			t.Errorf("findings %v, want ks.good's to stand", got)
		}
		if got, want := kindTables(r.Remarks), kindTables(clean.Remarks); !slices.Equal(got, want) {
			t.Errorf("remarks %v, want the other rule's %v", got, want)
		}
		if len(r.RuleFailures) != 1 || r.RuleFailures[0].Rule != KindOversizedPartition ||
			!slices.Equal(r.RuleFailures[0].Tables, []string{"ks.bad"}) || !strings.Contains(r.RuleFailures[0].Error, "nil pointer") ||
			!strings.Contains(r.RuleFailures[0].Error, "analyzer/rule_failures_test.go:") {
			t.Errorf("rule failures %+v, want oversized_partition on ks.bad with the panic and its line", r.RuleFailures)
		}
		if !hasNote(r, "rule oversized_partition failed on ks.bad", "the other tables' stand") {
			t.Errorf("notes %q, want one naming the rule and the table", r.Notes)
		}
	})

	t.Run("whatever the tables", func(t *testing.T) {
		injectRule(t, KindOversizedPartition, func(rule) rule {
			return func(*analysis) []finding.Finding { nilTable(); return nil }
		})
		r := Analyze(guardSnapshot(), nil, DefaultThresholds())
		if len(r.Findings) != 0 || len(r.Problems) != 0 {
			t.Errorf("findings %v, want none: the only rule that found any failed", kindTables(r.Findings))
		}
		if got, want := kindTables(r.Remarks), kindTables(clean.Remarks); !slices.Equal(got, want) {
			t.Errorf("remarks %v, want the other rule's %v", got, want)
		}
		if len(r.RuleFailures) != 1 || r.RuleFailures[0].Rule != KindOversizedPartition || len(r.RuleFailures[0].Tables) != 0 {
			t.Errorf("rule failures %+v, want oversized_partition with no table", r.RuleFailures)
		}
		if !hasNote(r, "rule oversized_partition failed (panic: runtime error", "none of its findings this cycle") {
			t.Errorf("notes %q", r.Notes)
		}
		if len(r.Tables) != 3 || len(r.Nodes) != 3 {
			t.Errorf("%d tables, %d nodes: the figures must stand", len(r.Tables), len(r.Nodes))
		}
	})
}

func hasNote(r *Report, parts ...string) bool {
	for _, n := range r.Notes {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(n, p)
		}
		if ok {
			return true
		}
	}
	return false
}

// A materialized view with sizes on every node and no schema
// row crashed the wide_partition rule (fragmentRowBound dereferenced the
// nil table). It is judged by its sizes, and no rule fails on it.
func TestTableWithSizesButNoSchema(t *testing.T) {
	b := newSnap().ring("dc1", 3).keyspace("ks", simple("3"), table("base", pk("id", "text", 0), col("v", "text")))
	for _, h := range []string{"h01", "h02", "h03"} {
		b.stats(h, "ks", "by_v", model.TableStats{MaxPartitionBytes: 124 * mib, MeanPartitionBytes: mib, PartitionsEstimate: 100,
			MaxCellsPerPartition: 1e6, MaxFragmentBytes: 100 * mib,
			RowsPerRead: model.Distribution{Count: 10, P99: 200000, Max: 200000}})
	}
	r := Analyze(b.s, nil, DefaultThresholds())
	if len(r.RuleFailures) != 0 {
		t.Fatalf("rule failures %+v", r.RuleFailures)
	}
	if !hasNote(r, "ks.by_v: sizes but no schema row", "are unknown for it") {
		t.Errorf("notes %q, want one saying what is unknown for the table without schema", r.Notes)
	}
	if got := kindTables(r.Findings); !slices.Contains(got, "oversized_partition ks.by_v") {
		t.Errorf("findings %v, want the view's size judged", got)
	}
	for _, f := range r.Findings {
		if f.Table == "by_v" && (f.Kind == KindUnbucketedTimeSeries || f.Kind == KindLowCardinalityKey || f.Kind == KindSecondaryIndexHighCard) {
			t.Errorf("finding %s on a table without schema: only the schema could say it", f.Kind)
		}
	}
}

// A kind added from outside (AddKind) with a Rule that panics is a
// failure like any rule's, and a check the exporter lists.
func TestOutsideRulePanic(t *testing.T) {
	remove := AddKind(KindFacts{Name: "test_outside", scope: scopeTable,
		Rule: func(s *model.Snapshot) []finding.Finding { return []finding.Finding{{Summary: s.Nodes[99].Address}} }})
	defer remove()
	if !slices.Contains(Checks(), "test_outside") {
		t.Errorf("checks %v lack the added kind", Checks())
	}
	r := Analyze(guardSnapshot(), nil, DefaultThresholds())
	if len(r.RuleFailures) != 1 || r.RuleFailures[0].Rule != "test_outside" || !strings.Contains(r.RuleFailures[0].Error, "index out of range") {
		t.Errorf("rule failures %+v, want test_outside's index out of range", r.RuleFailures)
	}
	if got := kindTables(r.Findings); len(got) != 2 {
		t.Errorf("findings %v, want the two oversized tables", got)
	}
}
