package web

import (
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/tools/reporttest"
)

// manyFindingsReport has oversized partitions on tables t000.. (the first
// three critical, the rest warnings, each its own table so none fold; the
// value grows with the index, so the last ones are furthest past their
// threshold), two hot token ranges and remarks schema notes.
func manyFindingsReport(oversized, remarks int) *analyzer.Report {
	const mib = 1 << 20
	r := reporttest.Cluster()
	r.Findings, r.Problems, r.Remarks = nil, nil, nil
	for i := range oversized {
		sev, thr := finding.SeverityWarning, float64(50*mib)
		if i < 3 {
			sev, thr = finding.SeverityCritical, 100*mib
		}
		r.Findings = append(r.Findings, finding.Finding{ID: fmt.Sprintf("big-%03d", i), Kind: analyzer.KindOversizedPartition,
			Severity: sev, Keyspace: "ks", Table: fmt.Sprintf("t%03d", i), PartitionKey: "k", Value: thr + float64(i)*mib,
			Threshold: thr, Unit: finding.UnitBytes, Summary: "large"})
	}
	for i := range 2 {
		r.Findings = append(r.Findings, finding.Finding{ID: fmt.Sprintf("hot-%d", i), Kind: analyzer.KindHotTokenRange,
			Severity: finding.SeverityWarning, Node: "127.0.0.1", Keyspace: "ks", Table: fmt.Sprintf("h%d", i),
			Value: 2.5, Threshold: 2, Unit: finding.UnitRatio, Summary: "hot"})
	}
	for i := range remarks {
		r.Remarks = append(r.Remarks, finding.Finding{ID: fmt.Sprintf("r-%03d", i), Kind: analyzer.KindAscendingTimeOrder,
			Severity: finding.SeverityInfo, Keyspace: "ks", Table: fmt.Sprintf("t%03d", i), Summary: "ascending"})
	}
	return r
}

func boundedPageOf(t *testing.T, r *analyzer.Report) (page, base string) {
	t.Helper()
	latest := &publish.Latest{}
	latest.Publish(r)
	srv := newTestHandler(t, latest, exporter.New(latest, exporter.Options{}), nil)
	return get(t, srv.URL+"/").body, srv.URL
}

var (
	findingRowRE = regexp.MustCompile(`<tr class="\w+" id="finding-([^"]+)">`)
	moreRE       = regexp.MustCompile(`<p class="more muted" data-kind="(\w+)">(\d+) more [^<]*<a href="([^"]+)">`)
	remarkRE     = regexp.MustCompile(`<li id="remark-([^"]+)">`)
)

// TestStatusPageDrawsTheWorstOfEachKind: past pagePerKind problems of a
// kind, the overview draws the most severe and furthest past their
// threshold, says how many it left out, and links to the API's list of
// them, which holds them all; the counts of the page are the report's.
func TestStatusPageDrawsTheWorstOfEachKind(t *testing.T) {
	const oversized = 25
	page, base := boundedPageOf(t, manyFindingsReport(oversized, 14))

	var cards []string
	for _, m := range cardRE.FindAllStringSubmatch(page, -1) {
		cards = append(cards, m[2])
	}
	// Three critical, then the seven warnings furthest past 50 MiB (the
	// highest indexes), in the report's order; both hot ranges.
	want := []string{"big-000", "big-001", "big-002", "big-018", "big-019", "big-020", "big-021", "big-022", "big-023", "big-024", "hot-0", "hot-1"}
	if strings.Join(cards, ",") != strings.Join(want, ",") {
		t.Errorf("cards %v, want %v", cards, want)
	}
	var rows []string
	for _, m := range findingRowRE.FindAllStringSubmatch(page, -1) {
		rows = append(rows, m[1])
	}
	if strings.Join(rows, ",") != strings.Join(want, ",") {
		t.Errorf("findings table rows %v, want %v", rows, want)
	}
	if n := len(remarkRE.FindAllString(page, -1)); n != pagePerKind {
		t.Errorf("%d schema notes drawn, want %d", n, pagePerKind)
	}
	for _, s := range []string{"The worst 12 of 27 findings", "14 design notes", "3 critical problems and 24 warnings"} {
		if !strings.Contains(page, s) {
			t.Errorf("the page does not say %q", s)
		}
	}

	more := moreRE.FindAllStringSubmatch(page, -1)
	// The urgent cards, the schema notes and the findings table.
	if len(more) != 3 {
		t.Fatalf("%d lines of findings left out, want 3: %q", len(more), more)
	}
	for _, m := range more {
		kind, count, link := m[1], m[2], html.UnescapeString(m[3])
		wantCount, wantKind := fmt.Sprint(oversized-pagePerKind), analyzer.KindOversizedPartition
		if kind == analyzer.KindAscendingTimeOrder {
			wantCount, wantKind = fmt.Sprint(14-pagePerKind), kind
		}
		if kind != wantKind || count != wantCount {
			t.Errorf("left out: %s %s, want %s %s", count, kind, wantCount, wantKind)
		}
		var body findingsResponse
		if err := json.Unmarshal([]byte(get(t, base+link).body), &body); err != nil {
			t.Fatalf("%s: %v", link, err)
		}
		if got, all := len(body.Findings)+len(body.Remarks), pagePerKind+atoi(t, count); got != all {
			t.Errorf("%s lists %d findings, want the %d of the kind", link, got, all)
		}
	}
}

// TestStatusPageBoundedByConstruction: ten times the findings of the same
// kinds draw the same page, the counts' digits aside.
func TestStatusPageBoundedByConstruction(t *testing.T) {
	small, _ := boundedPageOf(t, manyFindingsReport(100, 100))
	large, _ := boundedPageOf(t, manyFindingsReport(1000, 1000))
	if len(large) > len(small)+200 {
		t.Errorf("the page of 1,000 findings a kind is %d bytes, of 100 %d: it grows with the findings", len(large), len(small))
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestPastThreshold(t *testing.T) {
	tests := []struct {
		kind             string
		value, threshold float64
		want             float64
	}{
		{analyzer.KindOversizedPartition, 200, 100, 2},
		{analyzer.KindLowCardinalityKey, 25, 100, 4}, // a key count: fewer is worse
		{analyzer.KindPartitionGrowthForecast, 3600, 7200, 2},
		{analyzer.KindAscendingTimeOrder, 0, 0, 0}, // judges no number
		{analyzer.KindOversizedPartition, 200, 0, 0},
	}
	for _, tt := range tests {
		f := finding.Finding{Kind: tt.kind, Value: tt.value, Threshold: tt.threshold}
		if got := pastThreshold(f); got != tt.want {
			t.Errorf("%s %g against %g: %g, want %g", tt.kind, tt.value, tt.threshold, got, tt.want)
		}
	}
}
