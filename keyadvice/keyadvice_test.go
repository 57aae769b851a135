package keyadvice

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/model"
)

func TestParseKey(t *testing.T) {
	for in, want := range map[string]string{
		"(a, b)":                      "(a, b)",
		"((a), b)":                    "(a, b)",
		"((a, b), c, d)":              "((a, b), c, d)",
		"a":                           "(a)",
		"((A, bucket(ts, 1d)), ts)":   "((a, bucket(ts, 1d)), ts)",
		"((a, bucket(ts, 90m)), ts) ": "((a, bucket(ts, 1h30m)), ts)",
	} {
		k, err := ParseKey(in)
		if err != nil || k.String() != want {
			t.Errorf("ParseKey(%q) = %s, %v; want %s", in, k, err, want)
		}
	}
	for _, in := range []string{"", "(a,", "((a), b", "(a b)", "((a, bucket(ts, -1h)), ts)", "((a, bucket(ts)), ts)"} {
		if _, err := ParseKey(in); err == nil || !strings.Contains(err.Error(), "PRIMARY KEY") {
			t.Errorf("ParseKey(%q): %v, want an error saying how to write a key", in, err)
		}
	}
}

var cols = []model.SampleColumn{
	{Name: "a", Type: "int", Kind: model.ColumnPartitionKey},
	{Name: "ts", Type: "timestamp", Kind: model.ColumnClustering, Time: true},
	{Name: "tags", Type: "set<text>", Kind: model.ColumnRegular, Position: -1},
	{Name: "v", Type: "text", Kind: model.ColumnRegular, Position: -1},
}

func primitive(t string) bool { return !strings.Contains(t, "<") }

func TestCheckNamesTheProblem(t *testing.T) {
	for key, want := range map[string]string{
		"((a, b), ts)":              "column \"b\", which the table does not have (its columns: a, ts, tags, v)",
		"((a, tags), ts)":           "column \"tags\" is of type set<text>, which cannot be a key column",
		"((a, bucket(v, 1d)), ts)":  "only a timestamp or date can be bucketed",
		"((a, bucket(ts, 1d)), ts)": "",
		"((v), a, ts)":              "",
		"((a), ts, ts)":             "names column \"ts\" twice",
	} {
		k, err := ParseKey(key)
		if err != nil {
			t.Fatal(err)
		}
		err = k.Check(cols, primitive)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: %v, want %q", key, err, want)
		}
	}
}

// simulate samples a table of n partitions (uniform tokens) the way the
// sampler does: ranges of up to perRange partitions after random tokens,
// until share of the ring is read; rows(i) are partition i's rows.
func simulate(r *rand.Rand, n, perRange int, share float64, rows func(i int) []model.SampledRow) *model.KeySample {
	tok := make([]int64, n)
	for i := range tok {
		tok[i] = int64(r.Uint64())
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return int(math.Copysign(1, float64(tok[a])-float64(tok[b]))) })
	s := &model.KeySample{Columns: cols}
	for s.Cost.RingShare < share {
		start := int64(r.Uint64())
		j, _ := slices.BinarySearchFunc(order, start, func(i int, t int64) int {
			if tok[i] <= t {
				return -1
			}
			return 1
		})
		bound := int64(math.MaxInt64) // the next range's start, as the sampler stops there
		for _, o := range s.Ranges {
			if o.Start > start && o.Start < bound {
				bound = o.Start
			}
		}
		if slices.ContainsFunc(s.Ranges, func(o model.SampledRange) bool { return start >= o.Start && start <= o.End }) {
			continue
		}
		rg := model.SampledRange{Start: start, End: bound, Cut: true}
		for ; j < n && tok[order[j]] <= bound && rg.Partitions <= perRange; j++ {
			if rg.Partitions == perRange {
				rg.End, rg.Cut = tok[order[j]], false
				break
			}
			s.Partitions = append(s.Partitions, model.SampledPartition{Token: tok[order[j]], Rows: rows(order[j])})
			rg.Partitions++
		}
		s.Ranges = append(s.Ranges, rg)
		s.Cost.RingShare += float64(uint64(rg.End)-uint64(rg.Start)) / 18446744073709551616.0
	}
	return s
}

func text(s string) *string { return &s }

// rowsOf: partition i has 1 + i%7 rows, clustering ts a minute apart,
// each row tagged v = "x" or "y" by i%2.
func rowsOf(i int) []model.SampledRow {
	var out []model.SampledRow
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for j := range 1 + i%7 {
		ts := base.Add(time.Duration(j) * time.Minute).Format(time.RFC3339Nano)
		out = append(out, model.SampledRow{Values: []*string{text(strconv.Itoa(i)), text(ts), nil, text([]string{"x", "y"}[i%2])}, Bytes: 20})
	}
	return out
}

// The token density's 95 % interval covers the true partition count in
// about 95 % of samples, and its mean is within 2 % of it.
func TestDensityCoversTheTruth(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n, trials = 20000, 300
	covered, sum := 0, 0.0
	for range trials {
		e := density(simulate(r, n, 10, 0.02, func(int) []model.SampledRow { return nil }))
		sum += e.Value
		if e.Low <= n && n <= e.High {
			covered++
		}
	}
	if mean := sum / trials; math.Abs(mean-n)/n > 0.02 {
		t.Errorf("mean estimate %.0f of %d partitions", mean, n)
	}
	if c := float64(covered) / trials; c < 0.90 {
		t.Errorf("the interval covered the truth in %.0f %% of samples", 100*c)
	}
}

func TestProjectRefinedIsExactInsideTheSample(t *testing.T) {
	s := simulate(rand.New(rand.NewPCG(3, 4)), 7000, 10, 0.05, rowsOf)
	th := analyzer.DefaultThresholds()
	cur := Project(s, CurrentKey(cols), Options{Thresholds: th})
	if cur.Method != MethodCurrent || cur.Rows.Max != 7 || cur.Rows.P50 < 3 || cur.Rows.P50 > 5 {
		t.Errorf("current key: %+v", cur)
	}
	k, _ := ParseKey("((a, bucket(ts, 2m)), ts)")
	p := Project(s, k, Options{Thresholds: th})
	// 1..7 rows a minute apart: ceil(rows/2) buckets, each of 1 or 2 rows.
	if p.Method != MethodRefines || p.Rows.Max != 2 || !p.Partitions.Known {
		t.Fatalf("bucketed: %+v", p)
	}
	want := 7000 * (1 + 1 + 2 + 2 + 3 + 3 + 4) / 7.0
	if math.Abs(p.Partitions.Value-want) > 3*(p.Partitions.High-p.Partitions.Low)/(2*z95) {
		t.Errorf("bucketed: %.0f partitions, want about %.0f", p.Partitions.Value, want)
	}
	if p.Bucket == nil || p.Bucket.Column != "ts" || math.Abs(p.Bucket.RowsPerSecond-1.0/60) > 1e-9 || p.Bucket.Width != 30*24*time.Hour {
		t.Errorf("bucket width: %+v", p.Bucket)
	}
}

func TestProjectRegroupedKnowsFewValuesAndSaysUnknownOfMany(t *testing.T) {
	s := simulate(rand.New(rand.NewPCG(5, 6)), 7000, 10, 0.05, rowsOf)
	o := Options{Thresholds: analyzer.DefaultThresholds(), Show: func(k string) string { return "#" + k }}
	few, _ := ParseKey("((v), a, ts)")
	p := Project(s, few, o)
	if p.Method != MethodRegroups || !p.Partitions.Known || p.Partitions.Value != 2 || !p.Rows.Known {
		t.Fatalf("two values: %+v", p)
	}
	if want := 7000 * 4 / 2.0; math.Abs(p.Rows.P50-want)/want > 0.2 || len(p.TopValues) != 2 || !strings.HasPrefix(p.TopValues[0].Value, "#") {
		t.Errorf("two values: rows %+v (want about %.0f each), top %v", p.Rows, want, p.TopValues)
	}
	many, _ := ParseKey("((ts), a)")
	s2 := simulate(rand.New(rand.NewPCG(7, 8)), 7000, 10, 0.05, func(i int) []model.SampledRow {
		r := rowsOf(i)
		for j := range r {
			r[j].Values[1] = text(time.Unix(int64(i*10+j), 0).UTC().Format(time.RFC3339))
		}
		return r
	})
	if p := Project(s2, many, o); p.Partitions.Known || !strings.HasPrefix(p.Partitions.Why, "unknown") {
		t.Errorf("every value once: %+v", p.Partitions)
	}
}

// A whale the sample missed still reaches the current key's warnings
// through Cassandra's own largest partition on the node.
func TestAdviseWarnsOfTheNodesLargestPartition(t *testing.T) {
	s := simulate(rand.New(rand.NewPCG(9, 10)), 7000, 10, 0.05, rowsOf)
	th := analyzer.DefaultThresholds()
	k, _ := ParseKey("((a, bucket(ts, 2m)), ts)")
	if a := Advise(s, []Key{k}, Options{Thresholds: th}); len(a.Keys) != 2 || len(a.Keys[0].Warnings) != 0 || !a.Keys[0].Current {
		t.Fatalf("no whale: %+v", a.Keys)
	}
	s.NodeMaxPartitionBytes = 2 * th.PartitionWarningBytes
	a := Advise(s, []Key{k}, Options{Thresholds: th})
	if len(a.Keys[0].Warnings) != 1 || !strings.Contains(a.Keys[0].Warnings[0], "the sample did not meet") || len(a.Keys[1].Warnings) != 0 {
		t.Errorf("whale: %v / %v", a.Keys[0].Warnings, a.Keys[1].Warnings)
	}
}

// A p99 whose tail lies in one sampled current partition (a whale drawn
// once, split in shards) is one draw's figure, not the table's: undecided.
func TestP99DecidedByTheDrawsBehindItsTail(t *testing.T) {
	var gs []*group
	for c := 0; c < 80; c++ { // 80 small partitions, one a current one
		gs = append(gs, &group{rows: 5, currents: map[int]bool{c: true}})
	}
	for shard := 0; shard < 8; shard++ { // the whale's shards, all in current partition 80
		gs = append(gs, &group{rows: 2500, currents: map[int]bool{80: true}})
	}
	rows := sizes(groupValues(gs, func(g *group) float64 { return float64(g.rows) }), 0, false)
	rows.P99Draws = tailDraws(gs, rows.P99, func(g *group) float64 { return float64(g.rows) })
	if rows.P99 != 2500 || rows.P99Draws != 1 || rows.P99Decided() {
		t.Errorf("p99 %v from %d draws, decided %v: want 2500 from 1 draw, undecided", rows.P99, rows.P99Draws, rows.P99Decided())
	}
	even := sizes(groupValues(gs[:80], func(g *group) float64 { return float64(g.rows) }), 0, false)
	even.P99Draws = tailDraws(gs[:80], even.P99, func(g *group) float64 { return float64(g.rows) })
	if !even.P99Decided() {
		t.Errorf("80 equal partitions: p99 from %d draws undecided", even.P99Draws)
	}
}

// A key of too few partitions for the nodes the sampler found in the ring
// is warned about; the nodes come from the sample unless the caller says.
func TestLowCardinalityJudgedOnTheSampledRing(t *testing.T) {
	s := simulate(rand.New(rand.NewPCG(11, 12)), 7000, 10, 0.05, rowsOf)
	th := analyzer.DefaultThresholds()
	few, _ := ParseKey("((v), a, ts)") // two partitions
	tests := []struct {
		name        string
		sampleNodes int
		optNodes    int
		warned      bool
	}{
		{"ring unknown", 0, 0, false},
		{"three nodes in the ring", 3, 0, true},
		{"the caller's count first", 0, 3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.Nodes = tt.sampleNodes
			p := Project(s, few, Options{Thresholds: th, Nodes: tt.optNodes})
			warned := slices.ContainsFunc(p.Warnings, func(w string) bool { return strings.Contains(w, "too few to spread the table") })
			if warned != tt.warned {
				t.Errorf("warnings %v, want the low-cardinality one %v", p.Warnings, tt.warned)
			}
			cur := Project(s, CurrentKey(s.Columns), Options{Thresholds: th, Nodes: tt.optNodes})
			if len(cur.Warnings) != 0 {
				t.Errorf("7,000 partitions warned about: %v", cur.Warnings)
			}
		})
	}
}
