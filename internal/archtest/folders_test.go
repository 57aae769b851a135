package archtest

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"
)

// folderOf is the box a package sits in on the drawing of folders: a
// top-level package is its own folder, a nested one sits in its parent
// directory (internal/format in internal, collector/internal/cql in
// collector/internal).
func folderOf(pkg string) string {
	if dir := path.Dir(pkg); dir != "." {
		return dir
	}
	return pkg
}

// folderLayers gives each folder the highest layer of the product packages
// at or under it: a folder is drawn as high as its highest package. Folders
// holding tooling only have no layer and are left out.
func folderLayers(rows map[string]tableRow) map[string]int {
	layers := map[string]int{}
	for pkg, row := range rows {
		if row.tooling {
			continue
		}
		for dir := pkg; dir != "."; dir = path.Dir(dir) {
			if l, ok := layers[dir]; !ok || row.layer > l {
				layers[dir] = row.layer
			}
		}
	}
	return layers
}

// folderArrowsBackUp lists each import by a product package of a package in
// another folder whose layer is not below the importer's: on the drawing of
// folders that import is an arrow running back up, even when the imported
// package itself sits lower (analyzer, layer 1, importing internal/format,
// layer 0, while internal/ also held layer-2 headline). Imports within one
// folder are the package rule's business.
func folderArrowsBackUp(imports map[string][]string, rows map[string]tableRow) []string {
	layers := folderLayers(rows)
	var back []string
	for pkg, imps := range imports {
		row, ok := rows[pkg]
		if !ok || row.tooling {
			continue
		}
		for _, imp := range imps {
			to := folderOf(imp)
			l, ok := layers[to]
			if !ok || to == folderOf(pkg) || l < row.layer {
				continue
			}
			back = append(back, fmt.Sprintf("%s (layer %d) imports %s, whose folder %s/ sits at layer %d: an arrow back up",
				pkg, row.layer, imp, to, l))
		}
	}
	slices.Sort(back)
	return back
}

// TestFolderArrowsBackUp holds folderArrowsBackUp to layouts whose answer is
// known, so the check on the real graph below can fail.
func TestFolderArrowsBackUp(t *testing.T) {
	layer := func(l int) tableRow { return tableRow{layer: l} }
	cases := []struct {
		name    string
		rows    map[string]tableRow
		imports map[string][]string
		want    []string
	}{
		{
			name: "internal/ holding a layer-2 package is above the analyzer that uses it",
			rows: map[string]tableRow{"internal/format": layer(0), "internal/headline": layer(2), "analyzer": layer(1)},
			imports: map[string][]string{
				"analyzer":          {"internal/format"},
				"internal/headline": {"analyzer", "internal/format"},
			},
			want: []string{"analyzer (layer 1) imports internal/format, whose folder internal/ sits at layer 2: an arrow back up"},
		},
		{
			name: "the same packages with the layer-2 one at the top",
			rows: map[string]tableRow{"internal/format": layer(0), "headline": layer(2), "analyzer": layer(1)},
			imports: map[string][]string{
				"analyzer": {"internal/format"},
				"headline": {"analyzer", "internal/format"},
			},
		},
		{
			name: "a folder is as high as what is nested under it",
			rows: map[string]tableRow{"collector": layer(2), "collector/internal/cql": layer(0), "statefile": layer(3), "analyzer": layer(1)},
			imports: map[string][]string{
				"collector": {"collector/internal/cql"},
				"statefile": {"collector", "analyzer"},
				"analyzer":  {"collector"},
			},
			want: []string{"analyzer (layer 1) imports collector, whose folder collector/ sits at layer 2: an arrow back up"},
		},
		{
			name: "imports within one folder are left to the package rule",
			rows: map[string]tableRow{"collector/internal/scyllarest": layer(1), "collector/internal/cqlname": layer(0)},
			imports: map[string][]string{
				"collector/internal/scyllarest": {"collector/internal/cqlname"},
			},
		},
		{
			name: "a folder of tooling has no layer and tooling imports are not drawn",
			rows: map[string]tableRow{"tools/testkit": {tooling: true}, "tools/truth": {tooling: true}, "analyzer": layer(1)},
			imports: map[string][]string{
				"tools/truth": {"analyzer", "tools/testkit"},
				"analyzer":    {"tools/testkit"},
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := folderArrowsBackUp(c.imports, c.rows); !slices.Equal(got, c.want) {
				t.Errorf("got %q\nwant %q", got, c.want)
			}
		})
	}
}

// TestNoFolderArrowBackUp: on the drawing of folders, with README's layers,
// every import between two folders runs down.
func TestNoFolderArrowBackUp(t *testing.T) {
	pkgs, _, rows := packagesAndTable(t)
	imports := map[string][]string{}
	for path, p := range pkgs {
		imports[strings.TrimPrefix(path, module+"/")] = ownImports(p)
	}
	for _, back := range folderArrowsBackUp(imports, rows) {
		t.Error(back)
	}
}
