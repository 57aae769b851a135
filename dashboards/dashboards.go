// Package dashboards holds partmon's Grafana dashboards (the JSON files in
// this directory) and reads the queries in them, so that tests here and the
// end-to-end test against a real Prometheus can check every one.
package dashboards

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/partmon/partmon/tools/promexpr"
)

// Dashboard is the part of a Grafana dashboard model partmon's tests read.
type Dashboard struct {
	File        string   `json:"-"`
	UID         string   `json:"uid"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Editable    bool     `json:"editable"`
	Tags        []string `json:"tags"`
	Panels      []Panel  `json:"panels"`
	Templating  struct {
		List []Variable `json:"list"`
	} `json:"templating"`
}

// Panel is one panel; a row panel holds its panels when collapsed.
type Panel struct {
	ID          int            `json:"id"`
	Type        string         `json:"type"`
	Title       string         `json:"title"`
	Description string         `json:"description"`
	Datasource  *DatasourceRef `json:"datasource"`
	Targets     []Target       `json:"targets"`
	FieldConfig struct {
		Defaults struct {
			Unit string `json:"unit"`
		} `json:"defaults"`
	} `json:"fieldConfig"`
	Panels []Panel `json:"panels"`
}

// Target is one query of a panel.
type Target struct {
	RefID      string         `json:"refId"`
	Expr       string         `json:"expr"`
	Instant    bool           `json:"instant"`
	Hide       bool           `json:"hide"`
	Datasource *DatasourceRef `json:"datasource"`
}

// DatasourceRef points at a data source, usually the ${datasource} variable.
type DatasourceRef struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

// Variable is a template variable.
type Variable struct {
	Type       string          `json:"type"`
	Name       string          `json:"name"`
	Query      json.RawMessage `json:"query"`
	Datasource *DatasourceRef  `json:"datasource"`
	Multi      bool            `json:"multi"`
	IncludeAll bool            `json:"includeAll"`
	AllValue   string          `json:"allValue"`
}

// QueryText is the variable's query: Grafana stores it as a string or as an
// object with a "query" field, depending on version and editor.
func (v Variable) QueryText() string {
	var s string
	if json.Unmarshal(v.Query, &s) == nil {
		return s
	}
	var o struct {
		Query string `json:"query"`
	}
	if json.Unmarshal(v.Query, &o) == nil {
		return o.Query
	}
	return ""
}

// AllPanels returns every panel, those inside rows included, in file order.
func (d Dashboard) AllPanels() []Panel {
	var out []Panel
	var walk func([]Panel)
	walk = func(ps []Panel) {
		for _, p := range ps {
			out = append(out, p)
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	return out
}

// Load reads every *.json dashboard in dir, sorted by file name.
func Load(dir string) ([]Dashboard, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("listing dashboards in %s: %w", dir, err)
	}
	sort.Strings(files)
	var out []Dashboard
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("reading dashboard: %w", err)
		}
		var d Dashboard
		if err := json.Unmarshal(data, &d); err != nil {
			return nil, fmt.Errorf("parsing dashboard %s: %w", f, err)
		}
		d.File = filepath.Base(f)
		out = append(out, d)
	}
	return out, nil
}

// Query is one PromQL query of a dashboard panel.
type Query struct {
	File      string // dashboard file name
	Dashboard string // dashboard title
	UID       string // dashboard uid
	Panel     string // panel title
	PanelID   int
	RefID     string
	Expr      string // as written, with Grafana variables
	Instant   bool
}

func (q Query) String() string {
	return fmt.Sprintf("%s panel %q (id %d) query %s", q.File, q.Panel, q.PanelID, q.RefID)
}

// Expand returns the query with its Grafana variables replaced: vars first,
// then promexpr.GrafanaBuiltins ($__rate_interval and friends). Multi-value
// variables are matched with =~, so ".*" stands for "All"; $cluster, and on
// the table dashboard $keyspace and $table, need real values.
func (q Query) Expand(vars map[string]string) (string, error) {
	return promexpr.ExpandGrafana(q.Expr, vars)
}

// Queries returns every non-hidden PromQL query of every dashboard in dir,
// in file and panel order.
func Queries(dir string) ([]Query, error) {
	ds, err := Load(dir)
	if err != nil {
		return nil, err
	}
	var out []Query
	for _, d := range ds {
		for _, p := range d.AllPanels() {
			for _, t := range p.Targets {
				if t.Hide || strings.TrimSpace(t.Expr) == "" {
					continue
				}
				out = append(out, Query{
					File: d.File, Dashboard: d.Title, UID: d.UID,
					Panel: p.Title, PanelID: p.ID, RefID: t.RefID, Expr: t.Expr, Instant: t.Instant,
				})
			}
		}
	}
	return out, nil
}

// RuleExpressions returns the rules of a Prometheus rule file such as
// deploy/prometheus/partmon-alerts.yml, each with its expression.
func RuleExpressions(path string) ([]promexpr.Rule, error) {
	return promexpr.LoadRules(path)
}
