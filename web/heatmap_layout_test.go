package web

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/partmon/partmon/analyzer"
)

// heatTable is a table's map with only what the layout reads.
func heatTable(name string, findings int, traffic float64) analyzer.HeatMap {
	return analyzer.HeatMap{Keyspace: "ks", Table: name, Findings: findings, Traffic: traffic}
}

// evenTables are t1..tn at 30·i ops/s, as the analyzer's heat tests record
// them (10·i on each of three nodes), after "skewed": one finding, 10 ops/s.
func evenTables(n int) []analyzer.HeatMap {
	maps := []analyzer.HeatMap{{}, heatTable("skewed", 1, 10)}
	for i := 1; i <= n; i++ {
		maps = append(maps, heatTable(fmt.Sprintf("t%d", i), 0, float64(30*i)))
	}
	return maps
}

func TestHeatmapsDrawn(t *testing.T) {
	cases := []struct {
		name        string
		maps        []analyzer.HeatMap
		want        string // tables in drawn order, "all" for the all-tables map
		wantLeftOut int
	}{
		{"tables with findings first, then the busiest, six of them", evenTables(7), "all skewed t7 t6 t5 t4 t3", 2},
		{"fewer tables than the page holds: all drawn", evenTables(3), "all skewed t3 t2 t1", 0},
		{"exactly as many as the page holds", evenTables(5), "all skewed t5 t4 t3 t2 t1", 0},
		{"ties keep the analyzer's order",
			[]analyzer.HeatMap{{}, heatTable("b", 0, 5), heatTable("a", 0, 5), heatTable("c", 2, 1), heatTable("d", 1, 9)},
			"all d c b a", 0},
		{"no all-tables map: the tables alone", evenTables(1)[1:], "skewed t1", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			drawn, leftOut := heatmapsDrawn(c.maps)
			var got []string
			for _, m := range drawn {
				got = append(got, cmp.Or(m.Table, "all"))
			}
			if strings.Join(got, " ") != c.want || leftOut != c.wantLeftOut {
				t.Errorf("drew %q, %d left out; want %q, %d", got, leftOut, c.want, c.wantLeftOut)
			}
		})
	}
}

// TestHeatmapsPageSaysWhatIsLeftOut: the page draws the arranged maps in
// that order and says how many tables have no map of their own.
func TestHeatmapsPageSaysWhatIsLeftOut(t *testing.T) {
	r := &analyzer.Report{Generated: heatT0, Heat: &analyzer.HeatMaps{Maps: evenTables(8)}}
	html := renderPart(t, "heatmaps", newHeatmaps(r))
	var ids []string
	for _, m := range regexp.MustCompile(`<figure class="heatmap" id="([^"]+)"`).FindAllStringSubmatch(html, -1) {
		ids = append(ids, m[1])
	}
	want := []string{"heat-all", "heat-ks-skewed", "heat-ks-t8", "heat-ks-t7", "heat-ks-t6", "heat-ks-t5", "heat-ks-t4"}
	if !slices.Equal(ids, want) {
		t.Errorf("maps %q, want %q", ids, want)
	}
	if !strings.Contains(html, `id="heat-left-out">3 more tables with traffic have no heatmap of their own`) {
		t.Errorf("the page does not say 3 tables are left out:\n%s", html)
	}
}

// TestHeatmapsDrawnListsKeysInTableOrder: the all-tables map lists every
// table's hot keys, those of the tables drawn first leading, left-out
// tables' too, and the report's own map is left as it was.
func TestHeatmapsDrawnListsKeysInTableOrder(t *testing.T) {
	key := func(table string) analyzer.HeatKey {
		return analyzer.HeatKey{Keyspace: "ks", Table: table, Key: table + "-key"}
	}
	maps := []analyzer.HeatMap{{Keys: []analyzer.HeatKey{key("a"), key("b"), key("c")}}}
	for _, m := range []analyzer.HeatMap{heatTable("a", 0, 1), heatTable("b", 1, 1), heatTable("c", 0, 2)} {
		m.Keys = []analyzer.HeatKey{key(m.Table)}
		maps = append(maps, m)
	}
	drawn, _ := heatmapsDrawn(maps)
	var got []string
	for _, k := range drawn[0].Keys {
		got = append(got, k.Table)
	}
	if strings.Join(got, " ") != "b c a" {
		t.Errorf("all-tables keys of %q, want b c a", got)
	}
	if maps[0].Keys[0].Table != "a" {
		t.Errorf("the report's all-tables map was reordered: %+v", maps[0].Keys)
	}
}
