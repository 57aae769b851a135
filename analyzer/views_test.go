package analyzer

import (
	"strings"
	"testing"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/model"
)

// A materialized view is judged like a table, and its findings name the
// base it is built from. With no schema row for it (the collector before it
// read system_schema.views), the view's sizes still make a finding.
func TestViewFindingsNameTheirBase(t *testing.T) {
	base := table("orders", pk("id", "uuid", 0), col("status", "text"))
	view := table("orders_by_status", pk("status", "text", 0), ck("id", "uuid", 0, "asc"))
	view.BaseTable = "orders"
	cases := []struct {
		name     string
		tables   []model.Table
		wantBase string
	}{
		{"view in the schema", []model.Table{base, view}, "orders"},
		{"view missing from the schema", []model.Table{base}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newSnap().ring("dc1", 3).keyspace("ks", simple("3"), c.tables...)
			for _, h := range []string{"h01", "h02", "h03"} {
				b.stats(h, "ks", "orders_by_status", model.TableStats{MaxPartitionBytes: 124 * mib, MeanPartitionBytes: 40 * mib, PartitionsEstimate: 3})
			}
			r := Analyze(b.s, nil, DefaultThresholds())
			if len(r.RuleFailures) != 0 {
				t.Fatalf("rule failures %+v", r.RuleFailures)
			}
			var got *finding.Finding
			for i, f := range r.Findings {
				if f.Kind == KindOversizedPartition && f.Table == "orders_by_status" {
					got = &r.Findings[i]
				}
			}
			if got == nil {
				t.Fatalf("no oversized_partition on the view; findings %v", scopes(r.Findings))
			}
			if got.BaseTable != c.wantBase {
				t.Errorf("base table %q, want %q", got.BaseTable, c.wantBase)
			}
			if named := strings.Contains(got.Advice, "materialized view of ks.orders"); named != (c.wantBase != "") {
				t.Errorf("advice names the base: %v, want %v: %s", named, c.wantBase != "", got.Advice)
			}
		})
	}
}
