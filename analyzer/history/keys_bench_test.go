package history

import (
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/partmon/partmon/model"
)

// manyKeys names n tables of perTable keys each, once (the names are the
// same every cycle, as a real cluster's are).
type manyKeys struct {
	tables []string
	keys   [][]string
}

func newManyKeys(n, perTable int) *manyKeys {
	m := &manyKeys{tables: make([]string, n), keys: make([][]string, n)}
	for i := range m.tables {
		m.tables[i] = fmt.Sprintf("t%05d", i)
		m.keys[i] = make([]string, perTable)
		for k := range m.keys[i] {
			m.keys[i][k] = fmt.Sprintf("key-%05d-%02d", i, k)
		}
	}
	return m
}

// snapshot: one node naming every key by size and by tombstones, the
// figures growing with the cycle so every point is new.
func (m *manyKeys) snapshot(cycle int) *model.Snapshot {
	at := t0.Add(time.Duration(cycle) * 5 * time.Minute)
	nd := &model.NodeData{HostID: "h01", Address: "10.0.0.1", Tables: map[string]*model.TableStats{}}
	nd.TopPartitions = make([]model.TopPartition, 0, 2*len(m.tables)*len(m.keys[0]))
	for i, tbl := range m.tables {
		for k, key := range m.keys[i] {
			nd.TopPartitions = append(nd.TopPartitions,
				model.TopPartition{Keyspace: "ks", Table: tbl, Type: "SIZES", Key: key, Value: int64(1<<20 + k<<10 + cycle<<12), LastUpdate: at},
				model.TopPartition{Keyspace: "ks", Table: tbl, Type: "TOMBSTONES", Key: key, Value: int64(1000 + k + cycle), LastUpdate: at})
		}
	}
	return &model.Snapshot{Taken: at, Cluster: "bench", Engine: model.EngineCassandra,
		Nodes:   []model.Node{{HostID: "h01", Address: "10.0.0.1", DC: "dc1", Tokens: []int64{0}, Targeted: true}},
		PerNode: map[string]*model.NodeData{"h01": nd}}
}

// At 10,000 tables naming 10 keys each (top_partitions' default), over 50
// cycles, the key history holds at most max_keys series of at most
// key_points points: its JSON in the state file stays under 20 MiB and the
// live heap it adds under 64 MiB (measured: see docs/scale.md).
func TestKeyHistoryBoundAtTenThousandTables(t *testing.T) {
	if testing.Short() {
		t.Skip("records 50 cycles of 10,000 tables (about 16 s): skipped by -short only")
	}
	h := New(Limits{})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m := newManyKeys(10000, 10)
	for c := 0; c < 50; c++ {
		record(h, m.snapshot(c))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	series, points := 0, 0
	for _, m := range h.Keys.Tables {
		for _, ks := range m {
			series++
			points += len(ks.Points)
		}
	}
	data, err := json.Marshal(h.Keys)
	if err != nil {
		t.Fatal(err)
	}
	heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("10,000 tables, 50 cycles: %d series, %d points, %.1f MiB of JSON, %.1f MiB of heap", series, points, float64(len(data))/(1<<20), float64(heap)/(1<<20))
	if series > h.Limits.MaxKeys || points > series*h.Limits.KeyPoints {
		t.Errorf("%d series with %d points, want at most %d series of %d", series, points, h.Limits.MaxKeys, h.Limits.KeyPoints)
	}
	if len(data) > 20<<20 || heap > 64<<20 {
		t.Errorf("key history %d bytes of JSON, %d of heap: over the stated bound", len(data), heap)
	}
}

// BenchmarkKeyHistoryRecord: one cycle's recording at 10,000 tables of 10
// named keys, on a full
func BenchmarkKeyHistoryRecord(b *testing.B) {
	h := New(Limits{})
	m := newManyKeys(10000, 10)
	for c := 0; c < 50; c++ {
		record(h, m.snapshot(c))
	}
	snaps := make([]*model.Snapshot, b.N)
	for i := range snaps {
		snaps[i] = m.snapshot(50 + i)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		record(h, snaps[i])
	}
}
