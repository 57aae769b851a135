package collector

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
)

// ringTable answers the sampler's two statements from partitions at
// random tokens, as a node would: token order, LIMIT, clustering order.
type ringTable struct {
	tokens []int64 // sorted
	rows   map[int64]int
	now    time.Time
	lat    func(req int) time.Duration // each request's latency
	reqs   int
}

func (f *ringTable) Address() string { return "10.0.0.1" }

func (f *ringTable) Select(_ context.Context, stmt string, args []any, each func(cql.Row) error) error {
	f.now = f.now.Add(f.lat(f.reqs))
	f.reqs++
	limit := args[len(args)-1].(int)
	emit := func(tok int64, from int) {
		for c := from; c < f.rows[tok] && limit > 0; c++ {
			limit--
			_ = each(cql.Row{sampleTokenAlias: tok, "k": tok, "c": c, "v": "x", writeTimeAlias(0): int64(1)})
		}
	}
	if strings.Contains(stmt, "> ? AND") { // after a token, up to a bound
		lo, hi := args[0].(int64), args[1].(int64)
		for _, t := range f.tokens {
			if t > lo && t <= hi && limit > 0 {
				emit(t, 0)
			}
		}
		return nil
	}
	emit(args[0].(int64), args[1].(int)+1) // the rest of one partition
	return nil
}

func newRingTable(n int, rows func(i int) int) *ringTable {
	r := rand.New(rand.NewPCG(9, 9))
	f := &ringTable{rows: map[int64]int{}, now: time.Unix(0, 0), lat: func(int) time.Duration { return time.Millisecond }}
	for i := range n {
		t := int64(r.Uint64())
		f.tokens = append(f.tokens, t)
		f.rows[t] = rows(i)
	}
	slices.Sort(f.tokens)
	return f
}

var ringCols = []model.SampleColumn{{Name: "k", Type: "bigint", Kind: model.ColumnPartitionKey}, {Name: "c", Type: "int", Kind: model.ColumnClustering},
	{Name: "v", Type: "text", Kind: model.ColumnRegular, Position: -1}}

func sampleOf(t *testing.T, f *ringTable, lim model.SampleLimits) (*model.KeySample, time.Duration, error) {
	t.Helper()
	var slept time.Duration
	lim = withSampleDefaults(lim)
	s := &keySampler{q: f, lim: lim, rowCap: 100000, now: func() time.Time { return f.now },
		sleep: func(_ context.Context, d time.Duration) error {
			slept += max(d, 0)
			f.now = f.now.Add(max(d, 0))
			return nil
		},
		sample: &model.KeySample{Keyspace: "ks", Table: "t", Columns: ringCols, Limits: lim}, stmts: sampleStatements("ks", "t", ringCols)}
	err := s.run(context.Background())
	return s.sample, slept, err
}

func TestKeySamplerTakesWholePartitionsOnceWithinItsLimits(t *testing.T) {
	f := newRingTable(20000, func(i int) int { return 1 + i%3 + 1200*(i%50/49) }) // every 50th: 1,201+ rows, three pages
	s, slept, err := sampleOf(t, f, model.SampleLimits{RowsPerSecond: 1000})
	if err != nil {
		t.Fatal(err)
	}
	seen, paged := map[int64]bool{}, false
	for _, p := range s.Partitions {
		paged = paged || len(p.Rows) > 2*s.Limits.PageRows
		if seen[p.Token] || len(p.Rows) != f.rows[p.Token] || p.Truncated {
			t.Fatalf("partition %d: %d rows of %d, seen before %v", p.Token, len(p.Rows), f.rows[p.Token], seen[p.Token])
		}
		seen[p.Token] = true
	}
	if !paged {
		t.Errorf("no partition of three pages among %d", len(s.Partitions))
	}
	if s.Cost.RingShare > s.Limits.MaxRingShare+1e-9 || s.Stopped != stopRingShare {
		t.Errorf("read %.4f of the ring against %.4f, stopped %q", s.Cost.RingShare, s.Limits.MaxRingShare, s.Stopped)
	}
	if want := time.Duration(float64(s.Cost.RowsRead) / 1000 * float64(time.Second)); f.now.Sub(time.Unix(0, 0)) < want || slept == 0 {
		t.Errorf("%d rows in %v (slept %v): faster than 1,000 rows/s", s.Cost.RowsRead, f.now.Sub(time.Unix(0, 0)), slept)
	}
}

func TestKeySamplerStopsWhenLatencyRises(t *testing.T) {
	f := newRingTable(200000, func(int) int { return 2 })
	f.lat = func(req int) time.Duration {
		if req < 40 {
			return 10 * time.Millisecond
		}
		return 300 * time.Millisecond
	}
	s, _, err := sampleOf(t, f, model.SampleLimits{PerRange: 1, MaxRingShare: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.Stopped, "the node's read latency rose") || s.Cost.Requests > 40+latencyWindow {
		t.Errorf("stopped %q after %d requests", s.Stopped, s.Cost.Requests)
	}
}

func TestKeySamplerRefusesATableTooSmall(t *testing.T) {
	_, _, err := sampleOf(t, newRingTable(100, func(int) int { return 1 }), model.SampleLimits{})
	if err == nil || !strings.Contains(err.Error(), "too few partitions to sample") || !strings.Contains(err.Error(), "raise the ring share") {
		t.Errorf("100 partitions: %v", err)
	}
}

// The rest of a partition is read after its last row in clustering order:
// a tuple relation compares in each type's natural order, so a descending
// clustering reads with <, and mixed orders have no single relation.
func TestKeySampleStatementsFollowClusteringOrder(t *testing.T) {
	col := func(name, kind string, desc bool) model.SampleColumn {
		return model.SampleColumn{Name: name, Kind: kind, Type: "int", Desc: desc}
	}
	tests := []struct {
		name string
		ck   []model.SampleColumn
		want string // the relation in the in-partition statement; "" for none
	}{
		{"ascending", []model.SampleColumn{col("c", model.ColumnClustering, false)}, `("c") > (?)`},
		{"descending", []model.SampleColumn{col("c", model.ColumnClustering, true), col("d", model.ColumnClustering, true)}, `("c", "d") < (?, ?)`},
		{"mixed", []model.SampleColumn{col("c", model.ColumnClustering, true), col("d", model.ColumnClustering, false)}, ""},
		{"no clustering", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cols := append([]model.SampleColumn{col("k", model.ColumnPartitionKey, false)}, tt.ck...)
			st := sampleStatements("ks", "t", cols)
			if tt.want == "" {
				if st.inPartition != "" {
					t.Errorf("in-partition statement %q, want none", st.inPartition)
				}
				return
			}
			if !strings.Contains(st.inPartition, tt.want) {
				t.Errorf("in-partition statement %q, want the relation %s", st.inPartition, tt.want)
			}
		})
	}
}

// The rows limit is a hard bound: no request asks for more rows than are
// left under it, whatever the page size and however partitions fall.
func TestKeySamplerRowsLimitIsHard(t *testing.T) {
	tests := []struct {
		name    string
		maxRows int64
		rows    func(i int) int
	}{
		{"small partitions", 1000, func(i int) int { return 1 + i%3 }},
		{"a page-spanning partition every 7th", 3000, func(i int) int { return 2 + 150*(i%7/6) }},
		{"the limit inside a page", 1037, func(i int) int { return 1 + i%5 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newRingTable(50000, tt.rows)
			s, _, err := sampleOf(t, f, model.SampleLimits{MaxRows: tt.maxRows, PageRows: 100, MaxRingShare: 0.5, Partitions: 100000})
			if err != nil {
				t.Fatal(err)
			}
			if s.Cost.RowsRead > tt.maxRows || s.Stopped != stopRows {
				t.Errorf("%d rows read against a limit of %d, stopped %q", s.Cost.RowsRead, tt.maxRows, s.Stopped)
			}
			held := 0
			for _, p := range s.Partitions {
				held += len(p.Rows)
				if !p.Truncated && len(p.Rows) != f.rows[p.Token] {
					t.Errorf("partition %d: %d rows of %d, not marked cut short", p.Token, len(p.Rows), f.rows[p.Token])
				}
			}
			if int64(held) > s.Cost.RowsRead {
				t.Errorf("%d rows held, more than the %d read", held, s.Cost.RowsRead)
			}
		})
	}
}
