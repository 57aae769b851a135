package collector

import (
	"math"
	"testing"
	"time"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
)

func TestLatencySource(t *testing.T) {
	// The 5.0 shape as the real cluster has it, and the column names from
	// before CASSANDRA-15570 (4.0-alpha4) for the probe's fallback.
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
