package collector

import (
	"testing"

	"github.com/partmon/partmon/collector/internal/cql"
)

func TestSizeEstimates(t *testing.T) {
	est := func(ks, tbl, rt string, mean, count any) cql.Row {
		r := cql.Row{"keyspace_name": ks, "table_name": tbl, "mean_partition_size": mean, "partitions_count": count}
		if rt != "" {
			r["range_type"] = rt
		}
		return r
	}
	t.Run("Cassandra: size_estimates, count-weighted mean", func(t *testing.T) {
		// Only the primary estimates, in half the rows of table_estimates.
		f := newFake("n1").on(sizeEstimatesQuery,
			est("ks", "t", "", int64(100), int64(10)),
			est("ks", "t", "", int64(400), int64(30)),
		)
		out, rows, err := run(t, sizeEstimatesSource{}, f, cassandra50Caps())
		if err != nil || rows != 2 {
			t.Fatalf("rows %d err %v", rows, err)
		}
		ts := out.Node.Tables["ks.t"]
		if ts.PartitionsEstimate != 40 || ts.MeanPartitionBytes != (100*10+400*30)/40 {
			t.Errorf("got count %d mean %d, want 40 and %d", ts.PartitionsEstimate, ts.MeanPartitionBytes, (100*10+400*30)/40)
		}
		f.expectationsMet(t)
	})
	t.Run("Cassandra without size_estimates: table_estimates' primary ranges only", func(t *testing.T) {
		caps := cassandra50Caps()
		delete(caps.SystemTables, "size_estimates")
		f := newFake("n1").on(tableEstimatesQuery,
			est("ks", "t", "primary", int64(100), int64(10)),
			est("ks", "t", "primary", int64(400), int64(30)),
			est("ks", "t", "local_primary", int64(9999), int64(9999)),
		)
		out, rows, err := run(t, sizeEstimatesSource{}, f, caps)
		if err != nil || rows != 3 {
			t.Fatalf("rows %d err %v", rows, err)
		}
		ts := out.Node.Tables["ks.t"]
		if ts.PartitionsEstimate != 40 || ts.MeanPartitionBytes != (100*10+400*30)/40 {
			t.Errorf("got count %d mean %d, want 40 and %d", ts.PartitionsEstimate, ts.MeanPartitionBytes, (100*10+400*30)/40)
		}
		f.expectationsMet(t)
	})
	t.Run("ScyllaDB reads size_estimates", func(t *testing.T) {
		// db/size_estimates_virtual_reader.cc: same columns as Cassandra's size_estimates
		// (docs/sources.md, ScyllaDB system.size_estimates).
		f := newFake("n1").on(sizeEstimatesQuery, est("ks", "t", "", int64(50), int64(4)))
		out, _, err := run(t, sizeEstimatesSource{}, f, scyllaCaps())
		if err != nil {
			t.Fatal(err)
		}
		if ts := out.Node.Tables["ks.t"]; ts.PartitionsEstimate != 4 || ts.MeanPartitionBytes != 50 {
			t.Errorf("got %+v", ts)
		}
		f.expectationsMet(t)
	})
	t.Run("zero partitions keep a zero mean", func(t *testing.T) {
		f := newFake("n1").on(sizeEstimatesQuery, est("ks", "t", "", int64(0), int64(0)))
		out, _, err := run(t, sizeEstimatesSource{}, f, cassandra50Caps())
		if err != nil || out.Node.Tables["ks.t"].MeanPartitionBytes != 0 {
			t.Fatalf("err %v stats %+v", err, out.Node.Tables["ks.t"])
		}
	})
	for _, tc := range []struct {
		name string
		row  cql.Row
		want string
	}{
		{"negative count", est("ks", "t", "primary", int64(1), int64(-3)), "ks.t: negative estimate"},
		{"null mean", est("ks", "t", "primary", nil, int64(3)), `column "mean_partition_size" is null`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := run(t, sizeEstimatesSource{}, newFake("n1").on(sizeEstimatesQuery, tc.row), cassandra50Caps())
			wantErr(t, err, "reading system.size_estimates on n1: row 1: "+tc.want)
		})
	}
	t.Run("null range type in table_estimates", func(t *testing.T) {
		caps := cassandra50Caps()
		delete(caps.SystemTables, "size_estimates")
		row := with(est("ks", "t", "primary", int64(1), int64(1)), "range_type", nil)
		_, _, err := run(t, sizeEstimatesSource{}, newFake("n1").on(tableEstimatesQuery, row), caps)
		wantErr(t, err, `reading system.table_estimates on n1: row 1: column "range_type" is null`)
	})
}
