package analyzer

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/partmon/partmon/analyzer/scope"
	"github.com/partmon/partmon/model"
)

// The wide_partition rule says "unknown" only where no bound decides:
// the schema first, then the bytes the sources give.
func TestWideUnknownOnlyWhereNoBoundDecides(t *testing.T) {
	noCK := []model.Column{pk("id", "uuid", 0), col("name", "text"), col("email", "text")}
	intCK := []model.Column{pk("queue", "text", 0), ck("id", "int", 0, "asc"), col("payload", "text")}
	threeCells := append(append([]model.Column{}, intCK...), col("sender", "text"), col("sent", "timestamp"))
	cases := []struct {
		name          string
		cols          []model.Column
		maxBytes      int64 // max_partition_size, a MiB ceiling
		fragmentBytes int64 // nodetool's Partition Size max, 0 unread
		cells         int64
		perRead       float64
		scans         model.Ops
		ttl           int    // default_time_to_live, seconds
		wantNote      string // "" : no wide_partition note at all
	}{
		// The two kinds of needless notes.
		{name: "no clustering column: one row per partition", cols: noCK, maxBytes: 1 * mib, perRead: 1},
		{name: "no clustering column, even with range reads counting many rows", cols: noCK, maxBytes: 1 * mib, perRead: 126_934,
			scans: model.Ops{Count: 9, Rate: 2}},
		{name: "no clustering column, a huge fragment", cols: noCK, maxBytes: 300 * mib, fragmentBytes: 300 * mib},
		// 1 MiB holds up to 116,508 int-clustered rows: max_partition_size alone does not decide.
		{name: "MiB ceiling only: unknown, nodetool's bytes decide", cols: intCK, maxBytes: 1 * mib, perRead: 500,
			wantNote: "room for at most 116,508 rows of at least 9 bytes, while the most live rows one read command counted was 500 (rows_per_read; pages and LIMIT cap it); what decides: nodetool tablehistograms ks t"},
		// The same table with nodetool's bucket bound, 152,321 bytes: at most 16,925 rows.
		{name: "nodetool's bytes decide", cols: intCK, maxBytes: 1 * mib, fragmentBytes: 152_321, cells: 12_000, perRead: 500},
		// The example: 126,934 cells at three a row bound the rows
		// from below only (at least 35,259); a row marker writes no cell.
		{name: "cells do not bound rows from above", cols: threeCells, maxBytes: 1 * mib, cells: 126_934, perRead: 500, wantNote: "what decides: nodetool tablehistograms"},
		{name: "nodetool's bytes leave room: the count decides", cols: intCK, maxBytes: 2 * mib, fragmentBytes: 1_131_752, perRead: 500,
			wantNote: "its largest partition fragment is up to 1.1 MiB (nodetool tablehistograms Partition Size max, per sstable): room for at most 125,750 rows of at least 9 bytes, " +
				"while the most live rows one read command counted was 500 (rows_per_read; pages and LIMIT cap it); what decides: a count of the rows of its largest partition, e.g. sstablepartitions --min-rows 100,000"},
		// A fragment written after nodetool ran: max_partition_size is larger than the bucket rounds to.
		{name: "a later, larger max_partition_size holds", cols: intCK, maxBytes: 3 * mib, fragmentBytes: 152_321, perRead: 500,
			wantNote: "up to 3.0 MiB (max_partition_size, per sstable)"},
		{name: "boolean clustering: three clusterings at most", cols: []model.Column{pk("id", "text", 0), ck("done", "boolean", 0, "asc"), col("v", "text")},
			maxBytes: 50 * mib, fragmentBytes: 50 * mib},
		{name: "timestamp clustering in 1 MiB: at most 80,660 rows", cols: []model.Column{pk("sensor", "text", 0), ck("ts", "timestamp", 0, "desc"), col("v", "double")},
			maxBytes: 1 * mib, perRead: 10},
		// A default TTL bounds nothing: a write's USING TTL overrides it.
		{name: "a default TTL does not decide", cols: intCK, maxBytes: 1 * mib, perRead: 500, ttl: 86_400,
			wantNote: "room for at most 116,508 rows of at least 9 bytes"},
		{name: "a TTL'd table's bytes decide", cols: intCK, maxBytes: 1 * mib, fragmentBytes: 152_321, perRead: 500, ttl: 86_400},
		{name: "static-only or not, text clustering in 1 MiB leaves room", cols: []model.Column{pk("id", "text", 0), ck("c", "text", 0, "asc"), {Name: "s", Kind: "static", Type: "text"}},
			maxBytes: 1 * mib, perRead: 1, wantNote: "room for at most 149,796 rows of at least 7 bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tb := table("t", c.cols...)
			tb.DefaultTTLSeconds = c.ttl
			b := newSnap().ring("dc1", 1).keyspace("ks", simple("1"), tb)
			b.stats("h01", "ks", "t", model.TableStats{MaxPartitionBytes: c.maxBytes, MaxFragmentBytes: c.fragmentBytes, MeanPartitionBytes: 1 * kib,
				MaxCellsPerPartition: c.cells, LocalScans: c.scans,
				RowsPerRead: model.Distribution{Count: 10, P50: c.perRead, P99: c.perRead, Max: c.perRead}})
			a := analysisOf(t, b.s)
			fs := ruleWidePartition(a)
			if len(fs) != 0 {
				t.Fatalf("want no finding, got %+v", fs)
			}
			notes := strings.Join(a.notes, "|")
			switch {
			case c.wantNote == "" && strings.Contains(notes, "wide_partition"):
				t.Errorf("the evidence decides, yet a note: %q", a.notes)
			case c.wantNote != "" && (!strings.Contains(notes, "wide_partition of ks.t unknown: ") || !strings.Contains(notes, c.wantNote)):
				t.Errorf("notes %q lack %q", a.notes, c.wantNote)
			}
		})
	}
}

// fragmentRowBound may only over-count: rows written with the fewest bytes
// Cassandra's serializer allows (empty clustering values included, as long
// as the clusterings stay distinct) never outnumber the bound of their
// bytes.
func TestFragmentRowBoundNeverUnderCounts(t *testing.T) {
	types := []string{"int", "text", "boolean", "uuid", "timestamp", "tinyint", "blob", "frozen<list<int>>"}
	r := rand.New(rand.NewSource(24))
	for trial := 0; trial < 2000; trial++ {
		var cols []model.Column
		for i := 0; i < 1+r.Intn(3); i++ {
			cols = append(cols, ck(fmt.Sprintf("c%d", i), types[r.Intn(len(types))], i, "asc"))
		}
		tb := table("t", append([]model.Column{pk("k", "text", 0)}, cols...)...)
		rows, bytes := leanestRows(r, cols, 1+r.Intn(500))
		if got, _ := fragmentRowBound(&tb, bytes); got < float64(rows) {
			t.Fatalf("clustering %v: %d rows in %g bytes, bound %g", cols, rows, bytes, got)
		}
	}
}

// leanestRows writes up to n distinct clusterings, each value empty at
// random (a header flag, no bytes) or at its type's least non-empty size,
// every row with its 3 header bytes, 1 of content and 1 clustering header:
// the least bytes those rows take.
func leanestRows(r *rand.Rand, cols []model.Column, n int) (rows int, bytes float64) {
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		key, size := "", 5
		for _, c := range cols {
			if r.Intn(3) == 0 {
				key += "|" // empty
				continue
			}
			w, fixed := fixedClusteringBytes[c.Type]
			if !fixed {
				w = 2 // a length vint and one byte: any longer value is bigger
			}
			key += fmt.Sprintf("|%d", r.Intn(1000))
			size += w
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		rows++
		bytes += float64(size)
	}
	return rows, bytes
}

// Over random snapshots: no wide_partition note on a table with no
// clustering column, and every note's stated room reaches the warning.
func TestNoUnknownNoteWhereTheSchemaOrABoundDecides(t *testing.T) {
	th := DefaultThresholds()
	notes := 0
	for seed := int64(1); seed <= propertySeeds; seed++ {
		r := rand.New(rand.NewSource(seed))
		s, h := genSnapshot(r)
		for _, nd := range s.PerNode {
			for _, st := range nd.Tables {
				if r.Intn(2) == 0 {
					st.MaxFragmentBytes = int64(bucketBounds[r.Intn(len(bucketBounds))])
				}
			}
		}
		a := newAnalysis(s, scope.Of(s), h, th)
		ruleWidePartition(a)
		for _, n := range a.notes {
			if !strings.HasPrefix(n, "wide_partition of ") {
				continue
			}
			notes++
			key := strings.Fields(strings.TrimPrefix(n, "wide_partition of "))[0]
			tv := a.tableByKey(key)
			if tv == nil {
				t.Fatalf("seed %d: note on unknown table %s", seed, key)
			}
			if len(clusteringColumns(tv.schema)) == 0 {
				t.Errorf("seed %d: %s has no clustering column, yet: %s", seed, key, n)
			}
			if b := rowsUpperBound(tv); b.rows < float64(th.PartitionRowsWarning) {
				t.Errorf("seed %d: %s holds at most %g rows, yet: %s", seed, key, b.rows, n)
			}
		}
	}
	if notes == 0 {
		t.Fatal("the generator never reached an unknown note: the property tests nothing")
	}
}

func (a *analysis) tableByKey(key string) *tableView {
	for _, t := range a.tables {
		if t.key == key {
			return t
		}
	}
	return nil
}
