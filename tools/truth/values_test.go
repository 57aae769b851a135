package truth

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

func schemaOf(cols ...column) *tableSchema {
	s := sortColumns(cols)
	s.Keyspace, s.Name = "truth_x", "t"
	return s
}

func TestGeneratorCompoundKey(t *testing.T) {
	tb := &Table{Name: "t", Partitions: 24, Rows: 3, Columns: map[string]Column{
		"sensor": {Count: 4, Format: "s-%d"},
		"hour":   {Values: []string{"h0", "h1", "h2", "h3", "h4", "h5"}},
	}}
	g, err := newGenerator(tb, schemaOf(
		column{"sensor", "partition_key", 0, "text"}, column{"hour", "partition_key", 1, "text"},
		column{"ts", "clustering", 0, "timestamp"}, column{"v", "regular", -1, "text"}))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for p := 0; p < tb.Partitions; p++ {
		k := g.KeyString(p)
		if seen[k] {
			t.Fatalf("partition %d repeats key %s", p, k)
		}
		seen[k] = true
	}
	cases := []struct {
		p    int
		want string
	}{{0, "s-0:h0"}, {5, "s-0:h5"}, {6, "s-1:h0"}, {23, "s-3:h5"}}
	for _, c := range cases {
		if got := g.KeyString(c.p); got != c.want {
			t.Errorf("KeyString(%d) = %s, want %s", c.p, got, c.want)
		}
	}
	// The same row twice is the same row: deletes and overwrites find it.
	_, a := g.Row(3, 2)
	_, b := g.Row(3, 2)
	if a[2] != b[2] || a[3] != b[3] {
		t.Errorf("row (3,2) differs between calls: %v vs %v", a, b)
	}
	if ts := a[2].(time.Time); !ts.Equal(base.Add(2 * time.Second)) {
		t.Errorf("row 2's timestamp %s, want base + 2 s", ts)
	}
	if !strings.HasPrefix(g.InsertCQL(), "INSERT INTO truth_x.t (sensor, hour, ts, v) VALUES (?, ?, ?, ?)") {
		t.Errorf("insert %s", g.InsertCQL())
	}
	if g.DeleteCQL() != "DELETE FROM truth_x.t WHERE sensor = ? AND hour = ? AND ts = ?" {
		t.Errorf("delete %s", g.DeleteCQL())
	}
}

func TestGeneratorRejects(t *testing.T) {
	cases := []struct {
		name string
		t    *Table
		cols []column
		want string
	}{
		{"two free key columns", &Table{Name: "t", Partitions: 4, Rows: 1},
			[]column{{"a", "partition_key", 0, "text"}, {"b", "partition_key", 1, "text"}, {"c", "clustering", 0, "int"}},
			"both lack a count"},
		{"cardinality mismatch", &Table{Name: "t", Partitions: 5, Rows: 1, Columns: map[string]Column{"a": {Count: 2}}},
			[]column{{"a", "partition_key", 0, "text"}, {"b", "partition_key", 1, "text"}, {"c", "clustering", 0, "int"}},
			"not a multiple"},
		{"boolean with 3 values", &Table{Name: "t", Partitions: 3, Rows: 1},
			[]column{{"a", "partition_key", 0, "boolean"}, {"c", "clustering", 0, "int"}},
			"cannot take 3 values"},
		{"no clustering, several rows", &Table{Name: "t", Partitions: 3, Rows: 2},
			[]column{{"a", "partition_key", 0, "text"}},
			"every partition holds one row"},
		{"unsupported type", &Table{Name: "t", Partitions: 3, Rows: 1},
			[]column{{"a", "partition_key", 0, "text"}, {"n", "regular", -1, "counter"}},
			"counter is not generated"},
		{"unknown column override", &Table{Name: "t", Partitions: 3, Rows: 1, Columns: map[string]Column{"zz": {Size: 3}}},
			[]column{{"a", "partition_key", 0, "text"}},
			`"zz", which the table does not have`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := newGenerator(c.t, schemaOf(c.cols...))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}

func TestKeyStrings(t *testing.T) {
	cases := []struct {
		typ  string
		over Column
		p    int
		want string
	}{
		{"bigint", Column{}, 7, "7"},
		{"text", Column{Format: "SKU-%06d"}, 3, "SKU-000003"},
		{"text", Column{Values: []string{"US", "DE"}}, 1, "DE"},
		{"boolean", Column{}, 1, "true"},
		{"date", Column{}, 2, "2024-12-03"},
	}
	for _, c := range cases {
		tb := &Table{Name: "t", Partitions: 2, Rows: 1, Columns: map[string]Column{"k": c.over}}
		if c.p >= 2 {
			tb.Partitions = c.p + 1
		}
		g, err := newGenerator(tb, schemaOf(column{"k", "partition_key", 0, c.typ}))
		if err != nil {
			t.Fatal(err)
		}
		if got := g.KeyString(c.p); got != c.want {
			t.Errorf("%s %+v partition %d: %q, want %q", c.typ, c.over, c.p, got, c.want)
		}
	}
}

func TestTimeUUID(t *testing.T) {
	at := time.Date(2024, 12, 1, 10, 0, 0, 0, time.UTC)
	a, b := timeUUID(at, 1), timeUUID(at, 2)
	if a == b {
		t.Error("two rows at the same time share a timeuuid")
	}
	if a.Version() != 1 || a.Variant() != gocql.VariantIETF {
		t.Errorf("version %d variant %d", a.Version(), a.Variant())
	}
	if !a.Time().Equal(at) {
		t.Errorf("timeuuid time %s, want %s", a.Time(), at)
	}
	if timeUUID(at, 1) != a {
		t.Error("timeuuid is not deterministic")
	}
}

func TestPopularity(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		kind string
		s    float64
		n    int
	}{{"zipf", 0.9, 1000}, {"zipf", 0.5, 20}, {"zipf", 1.2, 50}, {"uniform", 0, 10}}
	for _, c := range cases {
		p := newPopularity(c.kind, c.s, c.n)
		const draws = 200000
		hits := make([]int, c.n)
		for i := 0; i < draws; i++ {
			hits[p.pick(rng)]++
		}
		for _, k := range []int{0, 1, c.n - 1} {
			want := p.share(k)
			got := float64(hits[k]) / draws
			if d := got - want; d > 0.01+want*0.1 || -d > 0.01+want*0.1 {
				t.Errorf("%s s=%g n=%d rank %d: measured share %.4f, expected %.4f", c.kind, c.s, c.n, k, got, want)
			}
		}
		if c.kind == "zipf" && !(p.share(0) > p.share(1) && p.share(1) > p.share(c.n-1)) {
			t.Errorf("zipf shares do not fall with rank: %g %g %g", p.share(0), p.share(1), p.share(c.n-1))
		}
	}
}
