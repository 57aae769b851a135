package analyzer

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/model"
)

// Past HeatTableMaps busy tables, only the tables a page draws first get
// cells (findings first, then the busiest); every table keeps its map's
// figures, and the all-tables map still counts every table's traffic.
func TestHeatCellsOnlyForTheTablesDrawn(t *testing.T) {
	h := history.New(history.Limits{})
	n := HeatTableMaps + 10
	var s *model.Snapshot
	for step := int64(0); step < 2; step++ {
		var tables []model.Table
		for i := 0; i < n; i++ {
			tables = append(tables, table(fmt.Sprintf("t%02d", i), pk("k", "text", 0)))
		}
		b := newSnap().ring("dc1", 3).keyspace("ks", simple("1"), tables...)
		for i := 0; i < n; i++ {
			for j := 1; j <= 3; j++ { // table i at i+1 ops/s on each node
				b.stats(hostID(j), "ks", fmt.Sprintf("t%02d", i), model.TableStats{LocalReads: model.Ops{Count: 1 + step*60*int64(i+1), Rate: float64(i + 1)}})
			}
		}
		b.s.Taken = t0.Add(time.Duration(step) * time.Minute)
		s = b.s
		record(h, s)
	}
	r := Analyze(s, h, DefaultThresholds())
	if r.Heat == nil || len(r.Heat.Maps) < 2 {
		t.Fatalf("heat %+v", r.Heat)
	}
	withCells, want := 0, 0.0
	for _, m := range r.Heat.Maps[1:] {
		var i int
		if _, err := fmt.Sscanf(m.Table, "t%d", &i); err != nil {
			t.Fatalf("heat map table %q: %v", m.Table, err)
		}
		busiest := i >= n-HeatTableMaps
		if (len(m.Nodes) > 0) != busiest {
			t.Errorf("%s (%v ops/s on each node): cells %v, want %v", m.Table, i+1, len(m.Nodes) > 0, busiest)
		}
		if len(m.Nodes) > 0 {
			withCells++
		}
		if math.Abs(m.ReadRate-float64(3*(i+1))) > 1e-9 && math.Abs(m.ReadRate-float64(i+1)) > 1e-9 {
			t.Errorf("%s: read rate %v lost", m.Table, m.ReadRate)
		}
		want += float64(i + 1)
	}
	if withCells != HeatTableMaps {
		t.Errorf("%d maps with cells, want %d", withCells, HeatTableMaps)
	}
	if c := r.Heat.Maps[0].Nodes[0].Reads[0]; math.Abs(c.Rate-want) > 1e-9 {
		t.Errorf("all tables on node 1: %v ops/s, want %v", c.Rate, want)
	}
}
