package web

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/internal/format"
	"github.com/partmon/partmon/model"
)

// pageGuardrails is the page's guardrail panel and key history view.
type pageGuardrails struct {
	Clients   string
	Settings  []pageGuardrailRow
	Crossings []pageCrossing
	Suggested []pageSuggested
	YAML      string
	Keys      []keyChart
	// KeysLeftOut are tables with a key history not drawn.
	KeysLeftOut int
}

type pageGuardrailRow struct{ Guardrail, Level, Value, Nodes, Refuses string }

type pageCrossing struct{ Where, TableURL, Key, Guardrail, Level, Current, Threshold, Percent, When string }

type pageSuggested struct{ Guardrail, Warn, Fail, Evidence string }

// keyChart draws one table's keys: each key's size over time.
type keyChart struct {
	ID, Table, Title string
	TableURL         string
	Width, Height    int
	Lines            []keyLine
	YMax             string
	From, To         string
}

type keyLine struct {
	Key, Colour, Points, Title string
	Dots                       []keyDot // each recorded point, so a key seen once shows
}

type keyDot struct{ X, Y string }

// keyColours: Okabe–Ito, readable by colour-blind readers.
var keyColours = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"}

const maxKeyCharts = 12

func newPageGuardrails(r *analyzer.Report) pageGuardrails {
	var g pageGuardrails
	if gr := r.Guardrails; gr != nil {
		g.Clients = gr.Clients
		g.Settings = guardrailRows(gr.Settings)
		for _, c := range gr.Crossings {
			if len(g.Crossings) == 20 {
				break
			}
			g.Crossings = append(g.Crossings, pageCrossingOf(c, r.Taken))
		}
		for _, s := range gr.Suggested {
			g.Suggested = append(g.Suggested, pageSuggestedOf(s))
		}
		g.YAML = gr.GuardrailYAML()
	}
	g.Keys, g.KeysLeftOut = keyCharts(r.KeyHistory)
	return g
}

// guardrailRows folds the nodes that run a guardrail level with one value
// into one row.
func guardrailRows(settings []analyzer.GuardrailSetting) []pageGuardrailRow {
	type k struct{ g, l, v string }
	nodes := map[k][]string{}
	refuses := map[k]string{}
	var order []k
	for _, s := range settings {
		v := "off (unset)"
		if s.Set {
			v = guardrailValue(s.Value, s.Unit)
		}
		key := k{s.Guardrail, s.Level, v}
		if _, seen := nodes[key]; !seen {
			order = append(order, key)
		}
		nodes[key] = append(nodes[key], s.Node)
		refuses[key] = s.Refuses
	}
	var out []pageGuardrailRow
	for _, key := range order {
		out = append(out, pageGuardrailRow{key.g, key.l, key.v, strings.Join(nodes[key], ", "), refuses[key]})
	}
	return out
}

func guardrailValue(v float64, unit model.GuardrailUnit) string {
	switch unit {
	case model.UnitBytes:
		return format.Bytes(v)
	case model.UnitPercent:
		return fmt.Sprintf("%.0f %%", v)
	}
	return fmt.Sprintf("%.0f", v)
}

func crossingUnit(g string) model.GuardrailUnit {
	if f, ok := model.GuardrailFactsOf(g); ok {
		return f.Unit
	}
	return model.UnitCount
}

func pageCrossingOf(c analyzer.GuardrailCrossing, taken time.Time) pageCrossing {
	u := crossingUnit(c.Guardrail)
	p := pageCrossing{Where: c.Keyspace + "." + c.Table, Key: c.Key, Guardrail: c.Guardrail, Level: c.Level,
		Current: guardrailValue(c.Current, u), Threshold: guardrailValue(c.Threshold, u), Percent: fmt.Sprintf("%.0f %%", c.Fraction*100)}
	p.TableURL = tableURL(c.Keyspace, c.Table)
	switch {
	case c.Node != "":
		p.Where, p.Key, p.TableURL = "node "+c.Node, "(data disk)", ""
	case c.Column != "":
		p.Key = "column " + c.Column + " (Cassandra's line names no key)"
		if c.Table == "" {
			p.Where = "table unknown"
		}
	case p.Key == "":
		p.Key = "(largest partition)"
	}
	switch {
	case c.Crossed:
		p.When = "crossed"
	case c.At > 0:
		p.When = time.Unix(c.At, 0).UTC().Format("2006-01-02 15:04") + " (in " + format.Seconds(float64(c.At-taken.Unix())) + ")"
	default:
		p.When = "no forecast: " + c.Why
	}
	return p
}

func pageSuggestedOf(s analyzer.SuggestedGuardrail) pageSuggested {
	if s.Warn == 0 {
		return pageSuggested{Guardrail: s.Guardrail, Warn: "—", Fail: "—", Evidence: s.Why}
	}
	fail := "— (no fail level)"
	if s.Fail > 0 {
		fail = guardrailValue(s.Fail, s.Unit)
	}
	return pageSuggested{s.Guardrail, guardrailValue(s.Warn, s.Unit), fail, s.Evidence}
}

// keyCharts draws the tables whose keys were seen most recently, at most
// maxKeyCharts, each key's size as a line.
func keyCharts(h map[string][]history.NamedKeySeries) ([]keyChart, int) {
	tables := make([]string, 0, len(h))
	last := map[string]int64{}
	for t, ks := range h {
		for _, k := range ks {
			last[t] = max(last[t], k.Last)
		}
		tables = append(tables, t)
	}
	sort.Slice(tables, func(i, j int) bool {
		if last[tables[i]] != last[tables[j]] {
			return last[tables[i]] > last[tables[j]]
		}
		return tables[i] < tables[j]
	})
	left := 0
	if len(tables) > maxKeyCharts {
		left, tables = len(tables)-maxKeyCharts, tables[:maxKeyCharts]
	}
	var out []keyChart
	for i, t := range tables {
		if c, ok := keyChartOf(i, t, h[t]); ok {
			out = append(out, c)
		}
	}
	return out, left
}

func keyChartOf(i int, table string, keys []history.NamedKeySeries) (keyChart, bool) {
	const w, ht, left, top, plotW, plotH = 560, 180, 8, 8, 544, 150
	var t0, t1 int64
	var ymax int64
	for _, k := range keys {
		for _, p := range k.Points {
			if t0 == 0 || p[0] < t0 {
				t0 = p[0]
			}
			t1, ymax = max(t1, p[0]), max(ymax, p[1])
		}
	}
	if ymax == 0 {
		return keyChart{}, false
	}
	span := max(t1-t0, 1)
	c := keyChart{ID: fmt.Sprintf("keys-%d", i), Table: table, Width: w, Height: ht, YMax: format.Bytes(float64(ymax)),
		From: time.Unix(t0, 0).UTC().Format("2006-01-02 15:04"), To: time.Unix(t1, 0).UTC().Format("2006-01-02 15:04"),
		Title: table + ": size of each named key over time", TableURL: tableKeyURL(table)}
	for j, k := range keys {
		if j == len(keyColours) {
			break
		}
		var pts []string
		var dots []keyDot
		for _, p := range k.Points {
			if p[1] == 0 {
				continue
			}
			x := left + float64(p[0]-t0)/float64(span)*plotW
			y := top + plotH - float64(p[1])/float64(ymax)*plotH
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
			dots = append(dots, keyDot{fmt.Sprintf("%.1f", x), fmt.Sprintf("%.1f", y)})
		}
		lastSize := k.Points[len(k.Points)-1][1]
		c.Lines = append(c.Lines, keyLine{Key: k.Key, Colour: keyColours[j], Points: strings.Join(pts, " "), Dots: dots,
			Title: fmt.Sprintf("%s: %s now; first seen %s, last %s; replicas %s", k.Key, format.Bytes(float64(lastSize)),
				time.Unix(k.First, 0).UTC().Format("2006-01-02 15:04"), time.Unix(k.Last, 0).UTC().Format("2006-01-02 15:04"), strings.Join(k.Replicas, ", "))})
	}
	return c, true
}
