package collector

import (
	"testing"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
)

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
