package archtest

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/partmon/partmon/tools/testkit"
)

// tableRow is one package of README's package table.
type tableRow struct {
	layer   int  // product packages: 0 imports no other package of partmon
	tooling bool // tooling: tests, benchmarks, the truth corpus; no product package imports it
	imports []string
}

var backticked = regexp.MustCompile("`([^`]+)`")

// readmeTable reads the package table under README's "### Layout": each
// row names its packages, their layer (a number or "tooling") and, in its
// last cell, the packages of partmon they import.
func readmeTable(t *testing.T, known map[string]bool) map[string]tableRow {
	t.Helper()
	text, err := os.ReadFile(testkit.Path(t, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, layout, ok := strings.Cut(string(text), "### Layout")
	if !ok {
		t.Fatal(`README has no "### Layout" section`)
	}
	rows := map[string]tableRow{}
	for _, line := range strings.Split(layout, "\n") {
		cells := strings.Split(line, " | ")
		if !strings.HasPrefix(line, "| `") || len(cells) != 4 {
			continue
		}
		row := tableRow{tooling: cells[1] == "tooling"}
		if !row.tooling {
			if row.layer, err = strconv.Atoi(cells[1]); err != nil {
				t.Errorf("README table: layer %q of %s is neither a number nor tooling", cells[1], cells[0])
			}
		}
		for _, m := range backticked.FindAllStringSubmatch(cells[3], -1) {
			if known[m[1]] {
				row.imports = append(row.imports, m[1])
			}
		}
		slices.Sort(row.imports)
		for _, m := range backticked.FindAllStringSubmatch(cells[0], -1) {
			if _, dup := rows[m[1]]; dup {
				t.Errorf("README table: %s has two rows", m[1])
			}
			rows[m[1]] = row
		}
	}
	return rows
}

// TestReadmePackageTable: README's package table names every package of
// go list once, and each row's imports of partmon's packages are the ones
// it really has (tests left out).
func TestReadmePackageTable(t *testing.T) {
	pkgs, known, rows := packagesAndTable(t)
	for name := range rows {
		if !known[name] {
			t.Errorf("README table: %s is not a package of go list", name)
		}
	}
	for path, p := range pkgs {
		name := strings.TrimPrefix(path, module+"/")
		row, ok := rows[name]
		if !ok {
			t.Errorf("README table: no row for %s", name)
			continue
		}
		if got := ownImports(p); !slices.Equal(got, row.imports) {
			t.Errorf("README table: %s imports %q, its row says %q", name, got, row.imports)
		}
	}
}

// TestNoArrowBackUp: a product package imports only packages of a lower
// layer, and never tooling: the farm-studio view of the graph has no arrow
// back up and tooling hangs off the product, never inside it.
func TestNoArrowBackUp(t *testing.T) {
	pkgs, _, rows := packagesAndTable(t)
	for path, p := range pkgs {
		name := strings.TrimPrefix(path, module+"/")
		row, ok := rows[name]
		if underTools(name) && !row.tooling {
			t.Errorf("%s is under tools/ but its row gives it a layer: tooling has none", name)
		}
		if !ok || row.tooling {
			continue
		}
		for _, imp := range ownImports(p) {
			switch to := rows[imp]; {
			case to.tooling || underTools(imp):
				t.Errorf("%s (layer %d) imports tooling %s", name, row.layer, imp)
			case to.layer >= row.layer:
				t.Errorf("%s (layer %d) imports %s (layer %d): an arrow back up", name, row.layer, imp, to.layer)
			}
		}
	}
}

// underTools: the commands and packages that build, test, benchmark and
// judge partmon live under tools/, which no product package imports.
func underTools(pkg string) bool { return strings.HasPrefix(pkg, "tools/") }

// packagesAndTable are go list's packages, their names without the module
// and README's table of them.
func packagesAndTable(t *testing.T) (map[string]pkg, map[string]bool, map[string]tableRow) {
	pkgs := list(t)
	known := map[string]bool{}
	for path := range pkgs {
		known[strings.TrimPrefix(path, module+"/")] = true
	}
	return pkgs, known, readmeTable(t, known)
}

// ownImports are p's direct imports of partmon's packages, sorted.
func ownImports(p pkg) []string {
	var out []string
	for _, imp := range p.Imports {
		if strings.HasPrefix(imp, module+"/") {
			out = append(out, strings.TrimPrefix(imp, module+"/"))
		}
	}
	slices.Sort(out)
	return out
}
