package history

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/model"
)

func TestHeatMergeColumns(t *testing.T) {
	col := func(start, end int64, reads ...float64) HeatColumn {
		c := HeatColumn{Start: start, End: end, Tables: map[string]HeatRates{}}
		if reads != nil {
			c.Tables["ks.t"] = HeatRates{Reads: reads, Writes: make([]float64, len(reads))}
		}
		return c
	}
	cases := []struct {
		name string
		a, b HeatColumn
		want []float64
	}{
		{"time-weighted", col(0, 60, 10, 4), col(60, 240, 30, 8), []float64{25, 7}},
		{"a node without a rate in one keeps the other's", col(0, 60, NoRate, 4), col(60, 120, 30, NoRate), []float64{30, 4}},
		{"without a rate in both stays unknown", col(0, 60, NoRate), col(60, 120, NoRate), []float64{NoRate}},
		{"a table absent from one had no traffic there", col(0, 60), col(60, 120, 30), []float64{15}},
		{"a shorter slice ends in unknowns", col(0, 60, 10), col(60, 120, 20, 6), []float64{15, 6}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := mergeColumns(c.a, c.b)
			if m.Start != c.a.Start || m.End != c.b.End {
				t.Fatalf("merged span %d..%d", m.Start, m.End)
			}
			got := m.Tables["ks.t"].Reads
			if len(got) != len(c.want) {
				t.Fatalf("reads %v, want %v", got, c.want)
			}
			for i := range got {
				if math.Abs(got[i]-c.want[i]) > 1e-9 {
					t.Fatalf("reads %v, want %v", got, c.want)
				}
			}
		})
	}
}

// Merging two columns keeps the keys either was sampled with.
func TestHeatMergeKeepsSampledKeys(t *testing.T) {
	h := New(Limits{})
	for step := 0; step < 4; step++ {
		s := sizeSnap(time.Duration(step)*time.Minute, 0, 1+int64(step)*600, 0)
		if step == 1 || step == 2 {
			s.PerNode["h01"].HotPartitions = []model.HotPartition{
				{Keyspace: "ks", Table: "t", Key: "hot", Op: "read", Count: 90, Total: 100},
				{Keyspace: "ks", Table: "t", Key: "warm", Op: "read", Count: 9, Total: 100},
				{Keyspace: "ks", Table: "t", Key: "a", Op: "read", Count: 1, Total: 100},
				{Keyspace: "ks", Table: "t", Key: "b", Op: "read", Count: 1, Total: 100},
			}
		}
		record(h, s)
	}
	if got := h.Heat.Columns[0].Keys["ks.t"]; strings.Join(got, ",") != "hot,warm,a" {
		t.Fatalf("column keys %v, want the %d most counted", got, HeatKeys)
	}
	merged := mergeColumns(h.Heat.Columns[0], h.Heat.Columns[2])
	if got := merged.Keys["ks.t"]; strings.Join(got, ",") != "hot,warm,a" {
		t.Fatalf("merged keys %v", got)
	}
}
