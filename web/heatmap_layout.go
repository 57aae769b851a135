package web

import (
	"sort"

	"github.com/partmon/partmon/analyzer"
)

// heatmapTables is how many tables get a heatmap of their own on the page:
// those with findings first, then the busiest; the all-tables map comes on
// top, and the traffic of the tables left out is in it.
const heatmapTables = 6

// heatmapsDrawn arranges the analyzer's heatmaps for the page: the
// all-tables map first, then heatmapTables tables, those with findings
// before the rest and the busier first (ties keep the analyzer's order);
// leftOut counts the tables without a map of their own. The all-tables
// map's hot keys are every table's, listed in that order of tables (the
// analyzer lists them table by table), so its markers and the ring's hot
// ranges meet the tables that matter first.
func heatmapsDrawn(maps []analyzer.HeatMap) (drawn []analyzer.HeatMap, leftOut int) {
	var tables []analyzer.HeatMap
	for _, m := range maps {
		if m.Table == "" {
			drawn = append(drawn, m)
		} else {
			tables = append(tables, m)
		}
	}
	sort.SliceStable(tables, func(i, j int) bool {
		fi, fj := tables[i].Findings > 0, tables[j].Findings > 0
		if fi != fj {
			return fi
		}
		return tables[i].Traffic > tables[j].Traffic
	})
	if len(tables) > 0 {
		var keys []analyzer.HeatKey
		for _, t := range tables {
			keys = append(keys, t.Keys...)
		}
		for i := range drawn {
			drawn[i].Keys = keys // drawn holds copies: the report's maps keep theirs
		}
	}
	if len(tables) > heatmapTables {
		leftOut, tables = len(tables)-heatmapTables, tables[:heatmapTables]
	}
	return append(drawn, tables...), leftOut
}
