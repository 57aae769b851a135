package collector

import (
	"errors"
	"maps"
	"math"
	"testing"
	"time"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
)

func TestMebibytesSource(t *testing.T) {
	maxPart := registryByName(t, "max_partition_size")
	disk := registryByName(t, "disk_usage")
	const stmtMax = "SELECT keyspace_name, table_name, mebibytes FROM system_views.max_partition_size"
	const stmtDisk = "SELECT keyspace_name, table_name, mebibytes FROM system_views.disk_usage"
	row := func(ks, tbl string, mib any) cql.Row {
		return cql.Row{"keyspace_name": ks, "table_name": tbl, "mebibytes": mib}
	}

	t.Run("MiB to bytes", func(t *testing.T) {
		f := newFake("n1").on(stmtMax, row("ks", "a", int64(124)), row("ks", "b", int64(0)))
		out, rows, err := run(t, maxPart, f, cassandra50Caps())
		if err != nil || rows != 2 {
			t.Fatalf("rows %d err %v", rows, err)
		}
		if got := out.Node.Tables["ks.a"].MaxPartitionBytes; got != 124<<20 {
			t.Errorf("max partition %d, want %d", got, 124<<20)
		}
		if _, ok := out.Node.Tables["ks.b"]; !ok {
			t.Error("a zero-size table must still be listed")
		}
	})
	t.Run("overflowed histogram stays at the int64 maximum", func(t *testing.T) {
		// Long.MAX_VALUE bytes → ceil(2^63-1 / 2^20) = 2^43 MiB.
		f := newFake("n1").on(stmtMax, row("ks", "a", int64(1)<<43))
		out, _, err := run(t, maxPart, f, cassandra50Caps())
		if err != nil {
			t.Fatal(err)
		}
		if got := out.Node.Tables["ks.a"].MaxPartitionBytes; got != math.MaxInt64 {
			t.Errorf("got %d, want MaxInt64", got)
		}
	})
	t.Run("disk usage sums to the node load", func(t *testing.T) {
		f := newFake("n1").on(stmtDisk, row("ks", "a", int64(3)), row("system", "local", int64(1)))
		out, _, err := run(t, disk, f, cassandra50Caps())
		if err != nil {
			t.Fatal(err)
		}
		if out.Node.LoadBytes != 4<<20 || out.Node.Tables["ks.a"].DiskUsageBytes != 3<<20 {
			t.Errorf("load %g, table %d", out.Node.LoadBytes, out.Node.Tables["ks.a"].DiskUsageBytes)
		}
	})
	bad := []struct {
		name string
		row  cql.Row
		want string
	}{
		{"negative", row("ks", "a", int64(-1)), "ks.a: negative size -1 MiB"},
		{"null", row("ks", "a", nil), `column "mebibytes" is null`},
		{"text instead of bigint", row("ks", "a", "12"), `column "mebibytes": want an integer, got string`},
		{"missing table_name", cql.Row{"keyspace_name": "ks", "mebibytes": int64(1)}, `column "table_name" missing from result`},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := run(t, maxPart, newFake("n1").on(stmtMax, tc.row), cassandra50Caps())
			wantErr(t, err, "reading system_views.max_partition_size on n1: row 1: "+tc.want)
		})
	}
	t.Run("max_sstable_size is 5.0+", func(t *testing.T) {
		_, _, err := run(t, registryByName(t, "max_sstable_size"), newFake("n1"), cassandra40Caps())
		if !errors.Is(err, ErrUnsupported) {
			t.Fatalf("want ErrUnsupported, got %v", err)
		}
	})
	t.Run("ScyllaDB has no system_views", func(t *testing.T) {
		_, _, err := run(t, maxPart, newFake("n1"), scyllaCaps())
		if !errors.Is(err, ErrUnsupported) {
			t.Fatalf("want ErrUnsupported, got %v", err)
		}
	})
}

func TestLatencySource(t *testing.T) {
	// The 5.0 shape as the real cluster has it; the 4.0 shape from research
	// cql_sources.md §5.2 (TableMetricTables.java at 4.0.14).
	const stmt50 = `SELECT keyspace_name, table_name, count, per_second, "p99th_ms" FROM system_views.local_read_latency`
	const stmt40 = `SELECT keyspace_name, table_name, count, per_second, "99th_ms" FROM system_views.local_read_latency`
	row := func(col string, count int64, p99 float64) cql.Row {
		return cql.Row{"keyspace_name": "ks", "table_name": "t", "count": count, "per_second": 2.5, col: p99}
	}
	tests := []struct {
		name     string
		caps     *Capabilities
		stmt     string
		col      string
		p99      float64
		wantP99s float64
	}{
		// 4.1+ scales microsecond reservoirs by 1e-6: the *_ms column holds seconds.
		{"5.0 column holds seconds", cassandra50Caps(), stmt50, "p99th_ms", 0.051, 0.051},
		{"4.0 column holds milliseconds", cassandra40Caps(), stmt40, "99th_ms", 51.0, 0.051},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := registryByName(t, "local_read_latency")
			out, _, err := run(t, src, newFake("n1").on(tc.stmt, row(tc.col, 10, tc.p99)), tc.caps)
			if err != nil {
				t.Fatal(err)
			}
			got := out.Node.Tables["ks.t"].LocalReads
			if math.Abs(got.P99Seconds-tc.wantP99s) > 1e-12 || got.Count != 10 || got.PerSecond != 2.5 || got.Rate != -1 {
				t.Errorf("got %+v, want p99 %gs, count 10, per_second 2.5, rate -1 (first read)", got, tc.wantP99s)
			}
		})
	}

	t.Run("rate from consecutive reads, -1 after a restart", func(t *testing.T) {
		clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		src := latencySource{name: "local_read_latency", rates: newRateTracker(), now: func() time.Time { return clock },
			msToSeconds: latencyMillisToSeconds, field: func(ts *model.TableStats) *model.Ops { return &ts.LocalReads }}
		steps := []struct {
			advance time.Duration
			count   int64
			want    float64
		}{
			{0, 1000, -1},
			{10 * time.Second, 1500, 50},
			{20 * time.Second, 1500, 0},
			{10 * time.Second, 30, -1}, // counter dropped: node restarted
			{5 * time.Second, 80, 10},
		}
		for i, s := range steps {
			clock = clock.Add(s.advance)
			out, _, err := run(t, src, newFake("n1").on(stmt50, row("p99th_ms", s.count, 0)), cassandra50Caps())
			if err != nil {
				t.Fatal(err)
			}
			if got := out.Node.Tables["ks.t"].LocalReads.Rate; got != s.want {
				t.Errorf("step %d: rate %g, want %g", i, got, s.want)
			}
		}
	})

	bad := []struct {
		name string
		row  cql.Row
		want string
	}{
		{"null count", cql.Row{"keyspace_name": "ks", "table_name": "t", "count": nil, "per_second": 1.0, "p99th_ms": 1.0}, `column "count" is null`},
		{"NaN percentile", cql.Row{"keyspace_name": "ks", "table_name": "t", "count": int64(1), "per_second": 1.0, "p99th_ms": math.NaN()}, "negative or NaN value"},
		{"negative count", cql.Row{"keyspace_name": "ks", "table_name": "t", "count": int64(-4), "per_second": 1.0, "p99th_ms": 1.0}, "negative or NaN value"},
		{"int where double", cql.Row{"keyspace_name": "ks", "table_name": "t", "count": int64(1), "per_second": int64(1), "p99th_ms": 1.0}, `column "per_second": want a double, got int64`},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := run(t, registryByName(t, "local_read_latency"), newFake("n1").on(stmt50, tc.row), cassandra50Caps())
			wantErr(t, err, "reading system_views.local_read_latency on n1: row 1: ")
			wantErr(t, err, tc.want)
		})
	}
	t.Run("unknown column layout", func(t *testing.T) {
		caps := cassandra50Caps()
		caps.VirtualColumns["local_read_latency"] = set("keyspace_name", "table_name", "count")
		_, _, err := run(t, registryByName(t, "local_read_latency"), newFake("n1"), caps)
		wantErr(t, err, "system_views.local_read_latency has none of the columns [p99th_ms 99th_ms]")
	})
}

func TestDistributionSource(t *testing.T) {
	const stmt50 = `SELECT keyspace_name, table_name, count, "p50th", "p99th", max FROM system_views.tombstones_per_read`
	const stmt40 = `SELECT keyspace_name, table_name, count, "50th", "99th", max FROM system_views.tombstones_per_read`
	for _, tc := range []struct {
		name     string
		caps     *Capabilities
		stmt     string
		p50, p99 string
	}{
		{"5.0", cassandra50Caps(), stmt50, "p50th", "p99th"},
		{"4.0", cassandra40Caps(), stmt40, "50th", "99th"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake("n1").on(tc.stmt, cql.Row{"keyspace_name": "ks", "table_name": "q", "count": int64(30), tc.p50: 20501.0, tc.p99: 20501.0, "max": 20501.0})
			out, _, err := run(t, registryByName(t, "tombstones_per_read"), f, tc.caps)
			if err != nil {
				t.Fatal(err)
			}
			want := model.Distribution{Count: 30, P50: 20501, P99: 20501, Max: 20501}
			if got := out.Node.Tables["ks.q"].TombstonesPerRead; got != want {
				t.Errorf("got %+v, want %+v", got, want)
			}
		})
	}
	_, _, err := run(t, registryByName(t, "rows_per_read"),
		newFake("n1").on(`SELECT keyspace_name, table_name, count, "p50th", "p99th", max FROM system_views.rows_per_read`,
			cql.Row{"keyspace_name": "ks", "table_name": "q", "count": int64(1), "p50th": "5", "p99th": 5.0, "max": 5.0}), cassandra50Caps())
	wantErr(t, err, `column "p50th": want a double, got string`)
}

func TestSizeEstimates(t *testing.T) {
	est := func(ks, tbl, rt string, mean, count any) cql.Row {
		r := cql.Row{"keyspace_name": ks, "table_name": tbl, "mean_partition_size": mean, "partitions_count": count}
		if rt != "" {
			r["range_type"] = rt
		}
		return r
	}
	t.Run("Cassandra: primary ranges only, count-weighted mean", func(t *testing.T) {
		f := newFake("n1").on(tableEstimatesQuery,
			est("ks", "t", "primary", int64(100), int64(10)),
			est("ks", "t", "primary", int64(400), int64(30)),
			est("ks", "t", "local_primary", int64(9999), int64(9999)),
		)
		out, rows, err := run(t, sizeEstimatesSource{}, f, cassandra50Caps())
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
		// db/size_estimates_virtual_reader.cc: same columns as Cassandra's size_estimates (research §4).
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
		f := newFake("n1").on(tableEstimatesQuery, est("ks", "t", "primary", int64(0), int64(0)))
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
		{"null range type", with(est("ks", "t", "primary", int64(1), int64(1)), "range_type", nil), `column "range_type" is null`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := run(t, sizeEstimatesSource{}, newFake("n1").on(tableEstimatesQuery, tc.row), cassandra50Caps())
			wantErr(t, err, "reading system.table_estimates on n1: row 1: "+tc.want)
		})
	}
}

// with returns a copy of r with each (column, value) pair of colsAndValues set.
func with(r cql.Row, colsAndValues ...any) cql.Row {
	c := maps.Clone(r)
	for i := 0; i+1 < len(colsAndValues); i += 2 {
		c[colsAndValues[i].(string)] = colsAndValues[i+1]
	}
	return c
}

func registryByName(t *testing.T, name string) Source {
	t.Helper()
	for _, r := range registry(Config{}, nil) {
		if r.src.Name() == name {
			return r.src
		}
	}
	t.Fatalf("no source %q", name)
	return nil
}

func TestMebibytesToBytes(t *testing.T) {
	for _, tc := range []struct{ in, want int64 }{{0, 0}, {1, 1 << 20}, {(1 << 43) - 1, ((1 << 43) - 1) << 20}, {1 << 43, math.MaxInt64}} {
		if got := mebibytesToBytes(tc.in); got != tc.want {
			t.Errorf("mebibytesToBytes(%d) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
