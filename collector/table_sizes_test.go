package collector

import (
	"errors"
	"math"
	"testing"

	"github.com/partmon/partmon/collector/internal/cql"
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

func TestMebibytesToBytes(t *testing.T) {
	for _, tc := range []struct{ in, want int64 }{{0, 0}, {1, 1 << 20}, {(1 << 43) - 1, ((1 << 43) - 1) << 20}, {1 << 43, math.MaxInt64}} {
		if got := mebibytesToBytes(tc.in); got != tc.want {
			t.Errorf("mebibytesToBytes(%d) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
