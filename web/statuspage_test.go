package web

import (
	"encoding/xml"
	"errors"
	"io"
	"math"
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

// svgStats parses the page's inline SVG with encoding/xml and counts its elements.
type svgStats struct {
	paths, circles, texts int
	skewedTexts           []string
}

func parseSVG(t *testing.T, page string) svgStats {
	t.Helper()
	start, end := strings.Index(page, "<svg"), strings.Index(page, "</svg>")
	if start < 0 || end < start {
		t.Fatal("page has no <svg> element")
	}
	dec := xml.NewDecoder(strings.NewReader(page[start : end+len("</svg>")]))
	dec.Strict = true
	var st svgStats
	var inText, skewed bool
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if el.Name.Space != "http://www.w3.org/2000/svg" {
				t.Errorf("element %s outside the SVG namespace", el.Name.Local)
			}
			switch el.Name.Local {
			case "path":
				st.paths++
				for _, a := range el.Attr {
					if a.Name.Local == "d" {
						checkPathData(t, a.Value)
					}
				}
			case "circle":
				st.circles++
			case "text":
				st.texts++
				inText, skewed = true, false
				for _, a := range el.Attr {
					if a.Name.Local == "fill" && a.Value == "#b00020" {
						skewed = true
					}
				}
			}
		case xml.CharData:
			if inText && skewed {
				st.skewedTexts = append(st.skewedTexts, string(el))
			}
		case xml.EndElement:
			if el.Name.Local == "text" {
				inText = false
			}
		}
	}
	return st
}

var pathNumber = regexp.MustCompile(`-?[0-9]+(\.[0-9]+)?`)

// checkPathData: every coordinate is a finite number inside the picture.
func checkPathData(t *testing.T, d string) {
	t.Helper()
	for _, n := range pathNumber.FindAllString(d, -1) {
		v, err := strconv.ParseFloat(n, 64)
		if err != nil || math.IsNaN(v) || v < 0 || v > ringWidth {
			t.Errorf("path %q has coordinate %q outside the picture", d, n)
		}
	}
}

func TestStatusPage(t *testing.T) {
	eLatest := &publish.Latest{}
	e := exporter.New(eLatest, exporter.Options{})
	r := reporttest.Cluster()
	r.Findings = append(r.Findings, finding.Finding{ID: "f-xss", Kind: analyzer.KindStaleData, Severity: finding.SeverityInfo,
		Summary: `<script>alert("x")</script>`, Advice: `a & b`})
	r.Notes = []string{"keyspace legacy: replication class unknown, no ownership figures"}
	eLatest.Publish(r)
	page := get(t, newTestHandler(t, eLatest, e, nil).URL+"/").body

	for _, want := range []string{
		"partition customer|42 is 200 MiB", "add a month bucket to the partition key: 200 MiB → 17 MiB",
		`id="finding-f-oversized"`, `<td class="sev">critical</td>`, "1 critical", "2 warning",
		// the low cardinality of shop.orders is one problem with its oversized key: its evidence inside that card
		"(1 info finding)", `<div class="also" id="also-f-lowcard">`,
		"127.0.0.2 serves 3.2× its fair share of shop.orders reads", "stale (10 minutes old)",
		"timeout after 10s", "size_estimates", // the failing collector and its error
		"&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;", "a &amp; b",
		"<li>keyspace legacy: replication class unknown, no ownership figures</li>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("status page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script>") {
		t.Error("a finding's text reached the page unescaped")
	}
	// One card per problem: the low cardinality rides in its table's
	// oversized card, never a card of its own.
	var cards []string
	for _, m := range cardRE.FindAllStringSubmatch(page, -1) {
		cards = append(cards, m[2])
	}
	if got := strings.Join(cards, ","); got != "f-oversized,f-hotrange,f-skew,f-xss" {
		t.Errorf("cards %s, want one per problem: f-oversized,f-hotrange,f-skew,f-xss", got)
	}
	st := parseSVG(t, page)
	// Three single-token nodes: three owner arcs, the background ring and a dot per token.
	if st.paths != 3 || st.circles != 4 || st.texts != 3 {
		t.Errorf("SVG has %d paths, %d circles, %d texts; want 3, 4, 3", st.paths, st.circles, st.texts)
	}
	wantSkewed := []string{"127.0.0.1  owns 25.0%  skew ×0.75", "127.0.0.3  owns 41.7%  skew ×1.25"}
	if strings.Join(st.skewedTexts, "|") != strings.Join(wantSkewed, "|") {
		t.Errorf("skew-flagged legend %q, want %q", st.skewedTexts, wantSkewed)
	}
}

func TestStatusPageAfterFailedCycle(t *testing.T) {
	eLatest := &publish.Latest{}
	e := exporter.New(eLatest, exporter.Options{})
	eLatest.Publish(reporttest.Cluster())
	eLatest.Publish(reporttest.Failed())
	page := get(t, newTestHandler(t, eLatest, e, nil).URL+"/").body
	for _, want := range []string{"the last cycle failed, this is the last good report", "no hosts available", "partition customer|42 is 200 MiB"} {
		if !strings.Contains(page, want) {
			t.Errorf("status page lacks %q", want)
		}
	}
}

// arcShares lists the arcs' titles: owner and share of the ring.
func arcShares(arcs []ringArc) []string {
	var out []string
	for _, a := range arcs {
		out = append(out, a.Title)
	}
	return out
}

func TestRingPicture(t *testing.T) {
	const q = int64(1) << 62 // a quarter of the ring
	tests := []struct {
		name      string
		nodes     []analyzer.NodeSummary
		ownership []analyzer.Ownership
		wantArcs  []string
		wantInner []string // vnode rings: every range, neighbours of one owner merged
		wantDots  int
		wantNote  string
	}{
		{
			name:     "one node owns the whole ring",
			nodes:    []analyzer.NodeSummary{{Address: "a", TokenValues: []int64{0}}},
			wantArcs: []string{"a owns 100.0% of the ring here"},
			wantDots: 1,
		},
		{
			// a: -2q, q ; b: 0. Ranges: a (q-4q … -2q] = 25%, b (-2q … 0] = 50%, a (0 … q] = 25%.
			name: "vnodes: one arc per run of one owner",
			nodes: []analyzer.NodeSummary{
				{Address: "a", TokenValues: []int64{-2 * q, q}},
				{Address: "b", TokenValues: []int64{0}},
			},
			wantArcs: []string{"a: 2 ranges (vnodes), 50.0% of the ring together; the inner ring places each",
				"b: 1 range (vnodes), 50.0% of the ring together; the inner ring places each"},
			wantInner: []string{"range (4611686018427387904, -9223372036854775808]: a, 25.0% of the ring",
				"range (-9223372036854775808, 0]: b, 50.0% of the ring", "range (0, 4611686018427387904]: a, 25.0% of the ring"},
		},
		{
			name: "adjacent tokens of one owner merge",
			nodes: []analyzer.NodeSummary{
				{Address: "a", TokenValues: []int64{-q, 0}},
				{Address: "b", TokenValues: []int64{q}},
			},
			// a's first range wraps from q: (q-4q … -q] = 50%, then (-q … 0] = 25% merge: 75%.
			wantArcs: []string{"a: 2 ranges (vnodes), 75.0% of the ring together; the inner ring places each",
				"b: 1 range (vnodes), 25.0% of the ring together; the inner ring places each"},
			wantInner: []string{"2 ranges (4611686018427387904, 0]: a, 75.0% of the ring", "range (0, 4611686018427387904]: b, 25.0% of the ring"},
		},
		{
			name:  "no token values: arcs by raw ownership",
			nodes: []analyzer.NodeSummary{{Address: "a"}, {Address: "b"}},
			ownership: []analyzer.Ownership{
				{Node: "a", Owns: 0.6}, {Node: "b", Owns: 0.4}, {Node: "a", Keyspace: "ks", Owns: 1},
			},
			wantArcs: []string{"a owns 60.0%", "b owns 40.0%"},
			wantNote: "token values unknown: arcs sized by raw ownership",
		},
		{
			name:     "nothing known",
			nodes:    []analyzer.NodeSummary{{Address: "a"}},
			wantNote: "no token or ownership data",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pic := newRingPicture(&analyzer.Report{Nodes: tc.nodes, Ownership: tc.ownership})
			if got := arcShares(pic.Arcs); strings.Join(got, "|") != strings.Join(tc.wantArcs, "|") {
				t.Errorf("arcs %q, want %q", got, tc.wantArcs)
			}
			if got := arcShares(pic.Inner); strings.Join(got, "|") != strings.Join(tc.wantInner, "|") {
				t.Errorf("inner ring %q, want %q", got, tc.wantInner)
			}
			if len(pic.Dots) != tc.wantDots || pic.Note != tc.wantNote {
				t.Errorf("%d dots, note %q; want %d, %q", len(pic.Dots), pic.Note, tc.wantDots, tc.wantNote)
			}
			for _, a := range append(pic.Arcs, pic.Inner...) {
				checkPathData(t, a.D)
			}
		})
	}
}

// pageValue writes values in the finding's unit the way the finding texts do.
func TestPageValue(t *testing.T) {
	tests := []struct {
		v    float64
		unit string
		want string
	}{
		{200 << 20, finding.UnitBytes, "200 MiB"},
		{1536, finding.UnitBytes, "1.5 KiB"},
		{3.2, finding.UnitRatio, "3.20"},
		{0, finding.UnitRatio, "0.00"},
		{86400, finding.UnitSeconds, "24.0 h"},
		{3 * 86400, finding.UnitSeconds, "3.0 d"},
		{150000, finding.UnitRows, "150,000 rows"},
		{52000, finding.UnitTombstones, "52,000 tombstones"},
		{3, finding.UnitPartitions, "3 partitions"},
		{1200, finding.UnitOpsPerSec, "1,200 ops/s"},
		{0.5, "", "0.5"},
		{7, "widgets", "7 widgets"},
	}
	for _, tc := range tests {
		if got := pageValue("", tc.v, tc.unit); got != tc.want {
			t.Errorf("pageValue(%v, %q) = %q, want %q", tc.v, tc.unit, got, tc.want)
		}
	}
}
