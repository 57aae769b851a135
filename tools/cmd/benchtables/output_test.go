package main

import (
	"reflect"
	"testing"
)

// A --node-cost-only run measures no daemon and no nodetool: their targets
// are left out, not "met" on zeros; a full run judges them.
func TestTargetsLeaveOutWhatWasNotMeasured(t *testing.T) {
	names := func(ts []target) []string {
		var out []string
		for _, t := range ts {
			out = append(out, t.name)
		}
		return out
	}
	costOnly := &stageResult{UserTables: 1000, Cycle: []float64{200}}
	if got, want := names(targets([]*stageResult{costOnly})), []string{"cycle ≤ 1 s per node"}; !reflect.DeepEqual(got, want) {
		t.Errorf("node-cost-only targets %v, want %v", got, want)
	}
	full := &stageResult{UserTables: 1000, Cycle: []float64{200}, Scrape: []float64{80}, PeakRSS: []float64{30},
		Tablestats: []float64{1000}, series: seriesCount{maxPerTable: 8}}
	got := targets([]*stageResult{full})
	want := []target{
		{"cycle ≤ 1 s per node", "200 ms", true},
		{"scrape ≤ 50 ms", "80.0 ms", false},
		{"peak RSS ≤ 64 MiB", "30.0 MiB (max of runs)", true},
		{"≤ 8 series per table per node", got[3].measured, true},
		{"≥ 10× faster than nodetool tablestats", "5.0×", false},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("full run targets\n%v\nwant\n%v", got, want)
	}
}
