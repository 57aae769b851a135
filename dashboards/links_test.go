package dashboards

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var (
	fieldLabelRef = regexp.MustCompile(`\$\{__field\.labels\.([A-Za-z_][A-Za-z0-9_]*)`)
	dataFieldRef  = regexp.MustCompile(`\$\{__data\.fields\.([^}:]+)`)
	byClause      = regexp.MustCompile(`\bby\s*\(([^)]*)\)`)
)

// panelLink is one data or panel link of a panel, with what decides which of
// Grafana's link variables it can use.
type panelLink struct {
	where string // dashboard file, panel title and place
	text  string // title and url
	table bool   // a table panel: fields, not series
	// toColumns: a transformation made the series' labels into columns
	// (merge, labelsToFields, joinByField, seriesToColumns, or format: table).
	toColumns bool
	columns   []string // the columns the panel's queries give (their by() labels, renamed ones)
}

// columnTransforms turn labels into columns: ${__field.labels.x} is then empty
// (Grafana passes "" for it), ${__data.fields.x} is the row's value.
var columnTransforms = []string{"merge", "labelsToFields", "joinByField", "seriesToColumns"}

func collectLinks(file string, panels []any, out *[]panelLink) {
	for _, raw := range panels {
		p, _ := raw.(map[string]any)
		if p == nil {
			continue
		}
		sub, _ := p["panels"].([]any)
		collectLinks(file, sub, out)
		base := panelLink{where: fmt.Sprintf("%s panel %q", file, p["title"]), table: p["type"] == "table"}
		transforms, _ := p["transformations"].([]any)
		for _, t := range transforms {
			if m, _ := t.(map[string]any); m != nil && slices.Contains(columnTransforms, fmt.Sprint(m["id"])) {
				base.toColumns = true
			}
			if m, _ := t.(map[string]any); m != nil && m["id"] == "organize" {
				opts, _ := m["options"].(map[string]any)
				names, _ := opts["renameByName"].(map[string]any)
				for _, v := range names {
					base.columns = append(base.columns, fmt.Sprint(v))
				}
			}
		}
		targets, _ := p["targets"].([]any)
		for _, t := range targets {
			m, _ := t.(map[string]any)
			if m["format"] == "table" {
				base.toColumns = true
			}
			for _, by := range byClause.FindAllStringSubmatch(fmt.Sprint(m["expr"]), -1) {
				for _, l := range strings.Split(by[1], ",") {
					base.columns = append(base.columns, strings.TrimSpace(l))
				}
			}
		}
		var links []any
		if l, ok := p["links"].([]any); ok {
			links = append(links, l...)
		}
		fc, _ := p["fieldConfig"].(map[string]any)
		defaults, _ := fc["defaults"].(map[string]any)
		if l, ok := defaults["links"].([]any); ok {
			links = append(links, l...)
		}
		overrides, _ := fc["overrides"].([]any)
		for _, o := range overrides {
			om, _ := o.(map[string]any)
			props, _ := om["properties"].([]any)
			for _, pr := range props {
				if pm, _ := pr.(map[string]any); pm != nil && pm["id"] == "links" {
					l, _ := pm["value"].([]any)
					links = append(links, l...)
				}
			}
		}
		for i, l := range links {
			lm, _ := l.(map[string]any)
			pl := base
			pl.where = fmt.Sprintf("%s link %d", base.where, i)
			pl.text = fmt.Sprint(lm["title"]) + " " + fmt.Sprint(lm["url"])
			*out = append(*out, pl)
		}
	}
}

func allLinks(t *testing.T) []panelLink {
	t.Helper()
	files, err := filepath.Glob("*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no dashboards here: %v", err)
	}
	var links []panelLink
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var d map[string]any
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		panels, _ := d["panels"].([]any)
		collectLinks(f, panels, &links)
	}
	return links
}

// linkProblems says what is wrong with one link's variables.
func linkProblems(l panelLink) []string {
	var out []string
	if l.table && l.toColumns {
		for _, m := range fieldLabelRef.FindAllStringSubmatch(l.text, -1) {
			out = append(out, fmt.Sprintf("${__field.labels.%s} on a table whose labels a transformation made columns: Grafana passes it empty; use ${__data.fields.%s}", m[1], m[1]))
		}
	}
	for _, m := range dataFieldRef.FindAllStringSubmatch(l.text, -1) {
		if !slices.Contains(l.columns, m[1]) {
			out = append(out, fmt.Sprintf("${__data.fields.%s}: the panel's queries give no column %q (columns %v)", m[1], m[1], l.columns))
		}
	}
	return out
}

// TestLinksUseTheTablePanelForm: every link of every panel of every dashboard
// names values its panel really has when Grafana fills it in.
func TestLinksUseTheTablePanelForm(t *testing.T) {
	links := allLinks(t)
	tableLinks := 0
	for _, l := range links {
		for _, p := range linkProblems(l) {
			t.Errorf("%s: %s", l.where, p)
		}
		if l.table && dataFieldRef.MatchString(l.text) {
			tableLinks++
		}
	}
	if tableLinks == 0 {
		t.Error("no table panel links to a table with ${__data.fields...}: the overview's table links are gone")
	}
}

// The check above must catch the form the overview once used.
func TestLinkProblemsCatchFieldLabelsOnMergedTables(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    panelLink
		want int
	}{
		{"field labels after merge", panelLink{table: true, toColumns: true, text: "var-ks=${__field.labels.keyspace}", columns: []string{"keyspace"}}, 1},
		{"data fields after merge", panelLink{table: true, toColumns: true, text: "var-ks=${__data.fields.keyspace}", columns: []string{"keyspace"}}, 0},
		{"data field not a column", panelLink{table: true, toColumns: true, text: "var-ks=${__data.fields.keyspcae}", columns: []string{"keyspace"}}, 1},
		{"field labels on a time series", panelLink{text: "var-ks=${__field.labels.keyspace}"}, 0},
	} {
		if got := len(linkProblems(tc.l)); got != tc.want {
			t.Errorf("%s: %d problems, want %d: %v", tc.name, got, tc.want, linkProblems(tc.l))
		}
	}
}
