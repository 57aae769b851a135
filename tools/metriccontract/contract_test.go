package metriccontract

import (
	"slices"
	"testing"

	"github.com/partmon/partmon/tools/promexpr"
)

func TestGoldenFilesCoverContract(t *testing.T) {
	// The label checks are only as good as the golden files: they must show
	// the data metrics whose labels dashboards and rules filter on.
	golden, err := Labels()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{
		"partmon_table_max_partition_size_bytes", "partmon_node_ownership_skew_ratio",
		"partmon_partition_size_bytes", "partmon_finding_value", "partmon_collector_success", "partmon_up",
	} {
		if _, ok := golden[name]; !ok {
			t.Errorf("%s is in no exporter/testdata/*.prom file", name)
		}
	}
	if !golden["partmon_table_max_partition_size_bytes"]["keyspace"] {
		t.Errorf("partmon_table_max_partition_size_bytes has no keyspace label in the golden files")
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		expr  string
		extra []string
		want  []string
	}{
		{expr: `max by (keyspace, table) (partmon_table_max_partition_size_bytes{cluster="c", keyspace="ks"})`},
		{expr: `up{job="partmon"} == 0`, extra: []string{"up"}},
		{expr: `up{job="partmon"} == 0`, want: []string{"unknown metric up"}},
		{expr: `partmon_no_such_metric`, want: []string{"unknown metric partmon_no_such_metric"}},
		{expr: `partmon_table_max_partition_size_bytes{colour="blue"}`,
			want: []string{"metric partmon_table_max_partition_size_bytes has no label colour"}},
		{expr: `sum by (colour) (partmon_up)`, want: []string{"grouping label colour is on none of the metrics read"}},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			a, err := promexpr.Analyze(tc.expr)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Check(a, tc.extra...)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Check = %q, want %q", got, tc.want)
			}
		})
	}
}
