package web

import (
	"testing"

	"github.com/partmon/partmon/analyzer"
)

// The page draws only tables whose heatmap has cells: the analyzer builds
// them for its first HeatTableMaps tables in the page's own order.
func TestPageDrawsNoMoreHeatmapsThanHaveCells(t *testing.T) {
	if heatmapTables > analyzer.HeatTableMaps {
		t.Errorf("the page draws %d tables' heatmaps, the analyzer gives cells to %d", heatmapTables, analyzer.HeatTableMaps)
	}
}
