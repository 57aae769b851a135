package web

import (
	"bytes"
	"cmp"
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/headline"
	"github.com/partmon/partmon/internal/format"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/publish"
)

//go:embed status.html
var statusHTML string

// pageParts are the templates status.html calls by name, one per picture.
//
//go:embed growth_chart.html replica_ring.html heatmap.html ring.html guardrails.html style.html table.html keydesign.html
var pageParts embed.FS

// pagePartFiles lists pageParts' files; add a part's file here.
var pagePartFiles = []string{"growth_chart.html", "replica_ring.html", "heatmap.html", "ring.html", "guardrails.html", "style.html", "table.html", "keydesign.html"}

// statusPage renders / from the latest report: no external assets, no script.
type statusPage struct {
	latest *publish.Latest
	e      *exporter.Exporter // names the cluster as the metrics do
	tmpl   *template.Template
	now    func() time.Time
	// metricsPath is where /metrics is served (--web.telemetry-path).
	metricsPath string
	// advise: the key advisor is on; advice holds its answers.
	advise bool
	advice *heldAdvice
}

func newStatusPage(latest *publish.Latest, e *exporter.Exporter) (*statusPage, error) {
	t, err := template.New("status").Parse(statusHTML)
	if err != nil {
		return nil, fmt.Errorf("parsing status page template: %w", err)
	}
	if t, err = t.ParseFS(pageParts, pagePartFiles...); err != nil {
		return nil, fmt.Errorf("parsing status page templates: %w", err)
	}
	return &statusPage{latest: latest, e: e, tmpl: t, now: time.Now}, nil
}

type pageData struct {
	Ready     bool
	Up        bool
	Cluster   string
	Engine    string
	Version   string
	Generated string
	Age       string
	Counts    []pageCount
	Nodes     int
	Tables    int
	// StateLine is the cluster's state in one line, StateClass its severity.
	StateLine, StateClass string
	// Urgent are the critical and warning problems' cards, most severe
	// first, Info the info ones (shown apart and small): pagePerKind of
	// each kind, the rest counted in UrgentMore and InfoMore.
	Urgent, Info           []pageProblem
	UrgentMore, InfoMore   []pageMore
	UrgentTotal, InfoTotal int
	TablesWithFindings     []pageTableLink // the worst pageTablesShown
	TablesMore             int             // tables with findings past them
	Remarks                []pageProblem   // schema-only notes, shown apart
	RemarksMore            []pageMore
	RemarksTotal           int
	Findings               []pageFinding // the findings one row each, bounded as the cards
	FindingsMore           []pageMore
	FindingsTotal          int
	Keyspaces              []string // columns of the ownership table after the raw one
	Owners                 []pageOwner
	Ring                   ringPicture
	Growth                 growthCharts    // largest partition over time, per table
	Replicas               replicaPictures // replica sets per replication
	Heatmaps               pageHeatmaps    // the ring's traffic over time
	Guardrails             pageGuardrails  // thresholds, distances, suggestions and the key history
	KeyDesign              pageKeyDesign   // the key advisor's answers, else how to ask
	Sources                []pageSource
	Unsupported            []pageUnsupported // sources this engine or version lacks, one line
	SourcesOK              int               // reads that succeeded, the collapsed table's summary
	SourcesFailed          int               // reads that failed: the table opens
	Down                   *pageDown         // every source failed: one banner instead of a row each
	MetricsPath            string            // the nav's link to the exposition
	Notes                  []string          // what the analysis had to skip
}

type pageCount struct {
	Severity string
	Count    int
}

type pageFinding struct {
	ID, Severity, Kind, Scope, Key, Value, Threshold string
	TableURL                                         string
}

type pageOwner struct {
	Address, DC, Rack, State, Load, LoadSkew, Colour string
	Tokens                                           int
	Cells                                            []pageCell // raw ownership first, then Keyspaces
}

type pageCell struct {
	Text   string
	Skewed bool
}

type pageSource struct {
	Source, Node, State, Duration, Rows, LastSuccess, Error string
}

// pageUnsupported is a source no node has (ScyllaDB's tables on Cassandra,
// a 4.1 table on 4.0): said once, not a row a node as if it failed.
type pageUnsupported struct{ Source, Why string }

func (p *statusPage) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	data := p.data()
	var buf bytes.Buffer
	if err := p.tmpl.Execute(&buf, data); err != nil {
		writeText(w, http.StatusInternalServerError, "rendering status page: "+err.Error()+"\n")
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(buf.Bytes())
}

func (p *statusPage) data() pageData {
	c := p.latest.Cycle()
	d := pageData{Up: c.Up, MetricsPath: cmp.Or(p.metricsPath, "/metrics")}
	d.Sources, d.Unsupported = pageSources(c.Sources)
	for _, s := range d.Sources {
		if s.State == string(model.StateOK) {
			d.SourcesOK++
		} else if s.State == string(model.StateError) {
			d.SourcesFailed++
		}
	}
	if d.Down = pageUnreachable(c); d.Down != nil {
		d.Sources = nil
	}
	r := c.Report
	if r == nil {
		return d
	}
	d.Ready = true
	d.Cluster = p.e.ClusterName(r)
	d.Engine, d.Version = string(r.Engine), r.Version
	d.Generated = pageTime(r.Generated)
	if !r.Generated.IsZero() {
		d.Age = format.SecondsWords(p.now().Sub(r.Generated).Seconds())
	}
	d.Nodes, d.Tables = len(r.Nodes), len(r.Tables)
	d.Notes = r.Notes

	counts := map[finding.Severity]int{}
	for _, f := range r.Findings {
		counts[f.Severity]++
	}
	for _, s := range []finding.Severity{finding.SeverityCritical, finding.SeverityWarning, finding.SeverityInfo} {
		d.Counts = append(d.Counts, pageCount{s.String(), counts[s]})
	}

	th := pageThresholds(r)
	findings := append([]finding.Finding(nil), r.Findings...)
	sort.SliceStable(findings, func(i, j int) bool { return findings[i].Severity > findings[j].Severity })
	d.FindingsTotal = len(findings)
	findings, d.FindingsMore = boundFindings(findings, finding.SeverityInfo)
	d.Findings = make([]pageFinding, 0, len(findings))
	for _, f := range findings {
		v, against := pageNumber(f, th, r.Taken)
		d.Findings = append(d.Findings, pageFinding{
			ID: f.ID, Severity: f.Severity.String(), Kind: f.Kind, Scope: findingScope(f), Key: f.PartitionKey,
			Value: v, Threshold: against, TableURL: tableURL(f.Keyspace, f.Table),
		})
	}

	d.StateLine, d.StateClass = stateLine(r, c.Up)
	problems := analyzer.ProblemsIn(r)
	var urgent, info []analyzer.Problem
	for _, p := range problems {
		if p.Severity == finding.SeverityInfo {
			info = append(info, p)
		} else {
			urgent = append(urgent, p)
		}
	}
	sort.SliceStable(urgent, func(i, j int) bool { return urgent[i].Severity > urgent[j].Severity })
	d.UrgentTotal, d.InfoTotal, d.RemarksTotal = len(urgent), len(info), len(r.Remarks)
	urgent, d.UrgentMore = boundProblems(urgent, finding.SeverityWarning)
	info, d.InfoMore = boundProblems(info, finding.SeverityInfo)
	remarks, remarksMore := boundFindings(r.Remarks, finding.SeverityInfo)
	d.Urgent, d.Info = pageProblems(urgent, th, r.Taken), pageProblems(info, th, r.Taken)
	d.Remarks, d.RemarksMore = pageRemarks(remarks, th), remarksMore
	d.TablesWithFindings = tablesWithFindings(r)
	if n := len(d.TablesWithFindings); n > pageTablesShown {
		d.TablesWithFindings, d.TablesMore = d.TablesWithFindings[:pageTablesShown], n-pageTablesShown
	}
	d.Ring = newRingPicture(r)
	d.Growth, d.Replicas = newGrowthCharts(r), newReplicaPictures(r, d.Ring.Hot)
	linkHotSets(d.Ring.Hot, d.Replicas)
	d.Heatmaps = newHeatmaps(r)
	d.Guardrails = newPageGuardrails(r)
	p.keyDesign(&d)
	d.Keyspaces, d.Owners = pageOwnership(r)
	return d
}

// findingScope names where a finding lives: its nodes and keyspace.table.
func findingScope(f finding.Finding) string {
	var parts []string
	if nodes := headline.Nodes(f); len(nodes) > 0 {
		parts = append(parts, strings.Join(nodes, ", "))
	}
	switch {
	case f.Table != "":
		parts = append(parts, f.Keyspace+"."+f.Table)
	case f.Keyspace != "":
		parts = append(parts, f.Keyspace)
	}
	if len(parts) == 0 {
		return "cluster"
	}
	return strings.Join(parts, " ")
}

// pageThresholds are the thresholds the page judges by: the report's own,
// or the defaults for a report built without valid ones (the analyzer
// always sets them; a hand-built report may not).
func pageThresholds(r *analyzer.Report) analyzer.Thresholds {
	if r.Thresholds.Validate() != nil {
		return analyzer.DefaultThresholds()
	}
	return r.Thresholds
}

// skewed flags an ownership skew at or past the ownership_skew warning,
// either way.
func skewed(v float64, th analyzer.Thresholds) bool {
	warn := th.OwnershipSkewWarning
	return v >= warn || (v > 0 && v <= 1/warn)
}

func pageOwnership(r *analyzer.Report) ([]string, []pageOwner) {
	byNode := make(map[string]map[string]analyzer.Ownership)
	ksSet := make(map[string]bool)
	for _, o := range r.Ownership {
		if byNode[o.Node] == nil {
			byNode[o.Node] = make(map[string]analyzer.Ownership)
		}
		byNode[o.Node][o.Keyspace] = o
		if o.Keyspace != "" {
			ksSet[o.Keyspace] = true
		}
	}
	keyspaces := make([]string, 0, len(ksSet))
	for ks := range ksSet {
		keyspaces = append(keyspaces, ks)
	}
	sort.Strings(keyspaces)

	th := pageThresholds(r)
	owners := make([]pageOwner, 0, len(r.Nodes))
	for i, n := range r.Nodes {
		po := pageOwner{Address: n.Address, DC: n.DC, Rack: n.Rack, Tokens: n.Tokens,
			Load: "—", LoadSkew: "—", State: "ok", Colour: ringPalette[i%len(ringPalette)]}
		if n.LoadBytes > 0 {
			po.Load = format.BytesCell(n.LoadBytes)
		}
		if n.LoadSkew > 0 {
			po.LoadSkew = "×" + format.RatioCell(n.LoadSkew)
		}
		if n.Stale {
			po.State = "stale (" + format.SecondsWords(n.DataAgeSeconds) + " old)"
		}
		for _, ks := range append([]string{""}, keyspaces...) {
			o, ok := byNode[n.Address][ks]
			if !ok {
				po.Cells = append(po.Cells, pageCell{Text: "—"})
				continue
			}
			po.Cells = append(po.Cells, pageCell{
				Text:   format.PercentCell(o.Owns) + " (×" + format.RatioCell(o.Skew) + ")",
				Skewed: skewed(o.Skew, th),
			})
		}
		owners = append(owners, po)
	}
	return keyspaces, owners
}

func pageSources(sources []model.SourceStatus) ([]pageSource, []pageUnsupported) {
	out := make([]pageSource, 0, len(sources))
	supported := map[string]bool{}
	for _, s := range sources {
		if s.State != model.StateUnsupported {
			supported[s.Source] = true
		}
	}
	var unsupported []pageUnsupported
	seen := map[string]bool{}
	for _, s := range sources {
		if s.State == model.StateUnsupported && !supported[s.Source] {
			if !seen[s.Source] {
				seen[s.Source] = true
				unsupported = append(unsupported, pageUnsupported{s.Source, strings.TrimPrefix(s.Error, "unsupported: ")})
			}
			continue
		}
		node := s.Node
		if node == "" {
			node = "cluster"
		}
		out = append(out, pageSource{
			Source: s.Source, Node: node, State: string(s.State),
			Duration: format.Latency(s.Duration), Rows: format.Count(float64(s.Rows)),
			LastSuccess: pageTime(s.LastSuccess), Error: s.Error,
		})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Source != out[j].Source {
			return out[i].Source < out[j].Source
		}
		return out[i].Node < out[j].Node
	})
	sort.Slice(unsupported, func(i, j int) bool { return unsupported[i].Source < unsupported[j].Source })
	return out, unsupported
}

func pageTime(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format(time.RFC3339)
}

// pageValue writes a finding's value or threshold in its unit, as the
// finding texts write them, a multiple of a fair share as one.
func pageValue(kind string, v float64, unit string) string { return headline.KindValue(kind, v, unit) }
