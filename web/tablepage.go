package web

import (
	"bytes"
	"math"
	"net/http"
	"sort"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/internal/format"
	"github.com/partmon/partmon/model"
)

// pageTableLink is one table with findings in the overview's list.
type pageTableLink struct {
	Table, URL, Severity, Kinds string
	Problems                    int
}

// tablesWithFindings lists every table a finding names, worst first.
func tablesWithFindings(r *analyzer.Report) []pageTableLink {
	byTable := map[string]*pageTableLink{}
	worst := map[string]finding.Severity{}
	var order []string
	for _, p := range analyzer.ProblemsIn(r) {
		if p.Table == "" {
			continue
		}
		k := p.Keyspace + "." + p.Table
		l := byTable[k]
		if l == nil {
			l = &pageTableLink{Table: k, URL: tableURL(p.Keyspace, p.Table)}
			byTable[k] = l
			order = append(order, k)
		}
		l.Problems++
		for _, kind := range p.Kinds {
			if l.Kinds != "" {
				l.Kinds += ", "
			}
			l.Kinds += kind
		}
		worst[k] = max(worst[k], p.Severity)
	}
	out := make([]pageTableLink, 0, len(order))
	for _, k := range order {
		l := byTable[k]
		l.Severity = worst[k].String()
		out = append(out, *l)
	}
	sort.SliceStable(out, func(i, j int) bool { return worst[out[i].Table] > worst[out[j].Table] })
	return out
}

// tablePageData is /tables/{keyspace}/{table}: one table's findings, its
// figures, key history, guardrails, heat and advice.
type tablePageData struct {
	Ready                     bool
	Cluster, Keyspace, Table  string
	Name                      string // keyspace.table
	Known                     bool   // the report holds the table
	StateLine, StateClass     string
	Generated, Age            string
	Problems, Remarks         []pageProblem
	Largest, Mean, Partitions string
	Reads, Writes, Forecast   string
	Growth                    growthCharts
	Heatmaps                  pageHeatmaps
	Guardrails                pageGuardrails
	MetricsPath               string
}

// tableHandler serves the table pages from the status page's templates.
func (p *statusPage) tableHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		d := p.tableData(req.PathValue("keyspace"), req.PathValue("table"))
		status := http.StatusOK
		if d.Ready && !d.Known {
			status = http.StatusNotFound
		}
		var buf bytes.Buffer
		if err := p.tmpl.ExecuteTemplate(&buf, "tablepage", d); err != nil {
			writeText(w, http.StatusInternalServerError, "rendering table page: "+err.Error()+"\n")
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(status)
		_, _ = w.Write(buf.Bytes())
	})
}

func (p *statusPage) tableData(ks, tbl string) tablePageData {
	d := tablePageData{Keyspace: ks, Table: tbl, Name: ks + "." + tbl, MetricsPath: p.metricsPath}
	if d.MetricsPath == "" {
		d.MetricsPath = "/metrics"
	}
	r := p.latest.Cycle().Report
	if r == nil {
		return d
	}
	d.Ready, d.Cluster = true, p.e.ClusterName(r)
	d.Generated = pageTime(r.Generated)
	if !r.Generated.IsZero() {
		d.Age = format.SecondsWords(p.now().Sub(r.Generated).Seconds())
	}
	for _, t := range r.Tables {
		if t.Keyspace == ks && t.Table == tbl {
			d.Known = true
			d.Largest = "≤ " + format.Bytes(float64(t.MaxPartitionBytes))
			d.Mean = format.Bytes(float64(t.MeanPartitionBytes))
			d.Partitions = format.Count(float64(t.PartitionsEstimate))
			d.Reads, d.Writes = format.RateCell(t.ReadRate), format.RateCell(t.WriteRate)
			d.Forecast = tableForecast(t.SecondsToCritical)
		}
	}
	var ps []analyzer.Problem
	for _, pr := range analyzer.ProblemsIn(r) {
		if pr.Keyspace == ks && pr.Table == tbl {
			ps = append(ps, pr)
			d.Known = true
		}
	}
	var remarks []finding.Finding
	for _, f := range r.Remarks {
		if f.Keyspace == ks && f.Table == tbl {
			remarks = append(remarks, f)
			d.Known = true
		}
	}
	th := pageThresholds(r)
	d.Problems, d.Remarks = pageProblems(ps, th, r.Taken), pageRemarks(remarks, th)
	quoteMeasured(d.Problems, p.advice.all())
	d.StateLine, d.StateClass = tableState(d.Problems)
	d.Growth, d.Heatmaps, d.Guardrails = tablePictures(r, ks, tbl)
	return d
}

// tablePictures draws the overview's pictures from the table's data alone.
func tablePictures(r *analyzer.Report, ks, tbl string) (growthCharts, pageHeatmaps, pageGuardrails) {
	one := *r
	one.SizeHistory = nil
	for _, h := range r.SizeHistory {
		if h.Keyspace == ks && h.Table == tbl {
			one.SizeHistory = append(one.SizeHistory, h)
		}
	}
	if r.Heat != nil {
		heat := *r.Heat
		heat.Maps = nil
		for _, m := range r.Heat.Maps {
			if m.Keyspace == ks && m.Table == tbl {
				heat.Maps = append(heat.Maps, m)
			}
		}
		one.Heat = &heat
	}
	one.KeyHistory = map[string][]history.NamedKeySeries{}
	if k := model.TableKey(ks, tbl); r.KeyHistory[k] != nil {
		one.KeyHistory[k] = r.KeyHistory[k]
	}
	if r.Guardrails != nil {
		gr := *r.Guardrails
		gr.Crossings = nil
		for _, c := range r.Guardrails.Crossings {
			if c.Keyspace == ks && c.Table == tbl {
				gr.Crossings = append(gr.Crossings, c)
			}
		}
		one.Guardrails = &gr
	}
	return newGrowthCharts(&one), newHeatmaps(&one), newPageGuardrails(&one)
}

func tableState(ps []pageProblem) (string, string) {
	if len(ps) == 0 {
		return "No findings on this table", "ok"
	}
	var crit, warn, info int
	for _, p := range ps {
		switch p.Severity {
		case finding.SeverityCritical.String():
			crit++
		case finding.SeverityWarning.String():
			warn++
		default:
			info++
		}
	}
	var parts []string
	for _, c := range []struct {
		n    int
		noun string
	}{{crit, "critical problem"}, {warn, "warning"}, {info, "info finding"}} {
		if c.n > 0 {
			parts = append(parts, plural(c.n, c.noun))
		}
	}
	line := parts[0]
	for _, p := range parts[1:] {
		line += ", " + p
	}
	switch {
	case crit > 0:
		return line, "critical"
	case warn > 0:
		return line, "warning"
	}
	return line, "ok"
}

func tableForecast(seconds float64) string {
	switch {
	case seconds < 0 || math.IsNaN(seconds) || math.IsInf(seconds, 0):
		return "not forecast"
	case seconds == 0:
		return "already past the critical size"
	}
	return "critical size in " + format.SecondsWords(seconds)
}
