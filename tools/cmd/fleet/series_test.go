package main

import (
	"bufio"
	"net/http/httptest"
	"net/netip"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/exporter"
)

// The per-table families of one sidecar's exposition.
const (
	famMax        = "partmon_table_max_partition_size_bytes"
	famMean       = "partmon_table_mean_partition_size_bytes"
	famPartitions = "partmon_table_partitions"
	famDisk       = "partmon_table_disk_usage_bytes"
	famReads      = "partmon_table_local_reads_total"
	famWrites     = "partmon_table_local_writes_total"
	famTombstones = "partmon_table_tombstones_per_read_p99"
	famGrowth     = "partmon_table_partition_growth_bytes_per_second"
)

var (
	sizeFams    = []string{famMax, famMean, famPartitions, famDisk}
	trafficFams = []string{famReads, famWrites}
	// every per-table-per-node family a real sidecar publishes (the traffic
	// skew is cluster mode's), and the table's growth.
	allFams = append(append(append([]string{}, sizeFams...), append(trafficFams, famTombstones)...), famGrowth)
)

// exposition is the /metrics page of sidecar 0 of shape in a fleet of 10
// sidecars in 2 DCs (make scale's smallest; nothing planted), served as the
// fleet serves it, and its series: non-comment lines that
// start with partmon_.
func exposition(t *testing.T, shape Shape, floor exporter.TableFloor) (page string, series int) {
	t.Helper()
	c, tmpl := realCapture(t)
	shape.Sidecars, shape.FirstIP, shape.DCs, shape.Racks = 10, netip.MustParseAddr("127.0.1.1"), 2, 3
	if err := shape.Validate(); err != nil {
		t.Fatal(err)
	}
	ring := Ring(shape, c.Nodes)
	tables := ScaleTables(shape, tmpl.Healthy)
	snap, hist := sidecarSnapshot(options{shape: shape, floor: floor}, tmpl, ring, tables, nil, 0, c.Taken)
	h, _, err := sidecarHandler(floor, analyzer.Analyze(snap, hist, analyzer.DefaultThresholds()), nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	page = rec.Body.String()
	for sc := bufio.NewScanner(strings.NewReader(page)); sc.Scan(); {
		if strings.HasPrefix(sc.Text(), "partmon_") {
			series++
		}
	}
	return page, series
}

var seriesLine = regexp.MustCompile(`^(partmon_\w+)\{[^}]*\btable="(\w+_t\d{5})"`)

// familiesByTable: the families each scaled user table has series of.
func familiesByTable(page string) map[string][]string {
	out := map[string][]string{}
	for sc := bufio.NewScanner(strings.NewReader(page)); sc.Scan(); {
		if m := seriesLine.FindStringSubmatch(sc.Text()); m != nil {
			out[m[2]] = append(out[m[2]], m[1])
		}
	}
	for _, fams := range out {
		sort.Strings(fams)
	}
	return out
}

func sorted(fams ...[]string) []string {
	var out []string
	for _, f := range fams {
		out = append(out, f...)
	}
	sort.Strings(out)
	return out
}

// TestSidecarSeries serves one sidecar of the real capture as the fleet
// does and checks which families each user table publishes, by mix and
// floor. With the floor off a busy table publishes all 7 per-table-per-node
// families a real sidecar publishes and its growth; with partmon's default
// floor, past 200 tables, a busy small table keeps its reads and writes
// (its tombstones p99 is 0, its size under 100 MiB, its growth 0), a large
// one its sizes too, an idle one nothing; under 200 tables the floor
// changes nothing.
func TestSidecarSeries(t *testing.T) {
	off, def := exporter.TableFloor{}, exporter.DefaultTableFloor()
	idleOff := sorted(sizeFams, []string{famGrowth}) // never read or written: no counters, no histogram
	for _, tc := range []struct {
		name   string
		shape  Shape
		floor  exporter.TableFloor
		byKind map[tableKind][]string
	}{
		{"busy, floor off", Shape{Tables: 300, Mix: MixBusy}, off, map[tableKind][]string{kindBusy: sorted(allFams)}},
		{"busy, default floor", Shape{Tables: 300, Mix: MixBusy}, def, map[tableKind][]string{kindBusy: sorted(trafficFams)}},
		{"busy, default floor, under its 200 tables", Shape{Tables: 100, Mix: MixBusy}, def, map[tableKind][]string{kindBusy: sorted(allFams)}},
		{"busy with idle tables, floor off", Shape{Tables: 300, Mix: MixBusy, IdleShare: 0.5}, off,
			map[tableKind][]string{kindBusy: sorted(allFams), kindIdle: idleOff}},
		{"realistic, floor off", Shape{Tables: 300, Mix: MixRealistic}, off,
			map[tableKind][]string{kindBusy: sorted(allFams), kindLarge: sorted(allFams), kindIdle: idleOff}},
		{"realistic, default floor", Shape{Tables: 300, Mix: MixRealistic}, def,
			map[tableKind][]string{kindBusy: sorted(trafficFams), kindLarge: sorted(sizeFams, trafficFams), kindIdle: nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page, _ := exposition(t, tc.shape, tc.floor)
			got := familiesByTable(page)
			_, tmpl := realCapture(t)
			for _, st := range ScaleTables(tc.shape, tmpl.Healthy) {
				want := tc.byKind[st.kind]
				if strings.Join(got[st.Name], " ") != strings.Join(want, " ") {
					t.Errorf("%s (%v): families %v, want %v", st.Name, st.kind, got[st.Name], want)
				}
			}
		})
	}
}

// TestSidecarSeriesCounts: the series of one sidecar at 1,000 tables, by
// mix and floor (docs/scale.md quotes them): every busy or large table
// adds 8 without the floor, an idle one 5; with the default floor a busy
// table 2, a large one 6, an idle one none. The rest is the same page in
// every case (Cassandra's own tables, the node, the collectors, the hot
// key's table).
func TestSidecarSeriesCounts(t *testing.T) {
	off, def := exporter.TableFloor{}, exporter.DefaultTableFloor()
	counts := map[string]int{}
	for _, tc := range []struct {
		mix   string
		floor exporter.TableFloor
		name  string
		per   int // series per 1,000 user tables
	}{
		{MixBusy, off, "busy/off", 1000 * 8},
		{MixBusy, def, "busy/default", 1000 * 2},
		{MixRealistic, off, "realistic/off", 250*8 + 50*8 + 700*5},
		{MixRealistic, def, "realistic/default", 250*2 + 50*6},
	} {
		_, n := exposition(t, Shape{Tables: 1000, Mix: tc.mix}, tc.floor)
		counts[tc.name] = n
		t.Logf("one sidecar, 1,000 tables, mix %s, floor %s: %d partmon_ series", tc.mix, strings.Split(tc.name, "/")[1], n)
		if rest := n - tc.per; rest < 100 || rest > 1000 {
			t.Errorf("%s: %d series, %d of them not the user tables' (want %d for those); the rest should be a few hundred", tc.name, n, rest, tc.per)
		}
	}
	// The user tables' share exactly: the rest cancels out between mixes
	// under the same floor.
	if d := counts["busy/off"] - counts["realistic/off"]; d != 1000*8-(250*8+50*8+700*5) {
		t.Errorf("floor off: busy minus realistic = %d series", d)
	}
}

// TestSidecarPublishesDiskGuardrail: the capture leaves the disk-usage
// guardrail unset, the fleet sets an operator's levels, and each sidecar
// publishes them as ratios, so the overview's guardrail panel has data.
func TestSidecarPublishesDiskGuardrail(t *testing.T) {
	page, _ := exposition(t, Shape{Tables: 10, Mix: MixBusy}, exporter.DefaultTableFloor())
	for _, want := range []string{
		`guardrail="data_disk_usage_percentage",level="warn",node="127.0.1.1",rack="r1"} 0.7`,
		`guardrail="data_disk_usage_percentage",level="fail",node="127.0.1.1",rack="r1"} 0.8`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("no %s in the sidecar's page", want)
		}
	}
}
