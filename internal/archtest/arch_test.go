// Package archtest holds the package graph to the layout README describes:
// data flows collector → model → analyzer → exporter / web / alertmanager,
// and each package keeps to its one job.
package archtest

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/partmon/partmon/tools/testkit"
)

const module = "github.com/partmon/partmon"

type pkg struct {
	ImportPath string
	Imports    []string // direct
	Deps       []string // transitive
	Standard   bool
}

// list runs `go list -deps -json` for the module's packages and returns the
// module's own packages by import path.
func list(t *testing.T) map[string]pkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string]pkg{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs[p.ImportPath] = p
	}
	return pkgs
}

func hasPrefixAny(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if s == p || strings.HasPrefix(s, p+"/") {
			return true
		}
	}
	return false
}

// The rules: what each package may not depend on, directly or through others.
func TestPackageGraph(t *testing.T) {
	pkgs := list(t)
	io := []string{"github.com/gocql/gocql", "go.uber.org/zap", "github.com/robfig/cron", "net/http", "os/exec",
		"github.com/prometheus/client_golang"}
	cases := []struct {
		pkg        string
		noDeps     []string // forbidden anywhere in the dependency closure
		noImports  []string // forbidden as direct imports
		noPkgs     []string // these packages themselves (not the ones under them) forbidden anywhere
		stdlibOnly bool
	}{
		// The data model: the standard library and nothing else.
		{pkg: "model", stdlibOnly: true},
		{pkg: "internal/format", stdlibOnly: true},
		// Tokens of keys, shared by the analyzer and the tests: nothing but the hash.
		{pkg: "internal/murmur3", stdlibOnly: true},
		// The ring's arithmetic is pure too, and below the analyzer: it reads model only.
		{pkg: "ring", noDeps: append(io, module+"/analyzer", module+"/collector", module+"/exporter", module+"/web", module+"/alertmanager")},
		// The analyzer is pure: no driver, logger, scheduler, network, process or metrics library,
		// and it reads the collector's output only through model.
		{pkg: "analyzer", noDeps: append(io, module+"/collector", module+"/exporter", module+"/web", module+"/alertmanager")},
		// Below the analyzer's pipeline, its units: none reads anything above it.
		{pkg: "analyzer/finding", stdlibOnly: true},
		{pkg: "analyzer/internal/set", stdlibOnly: true},
		{pkg: "analyzer/scope", noDeps: append(io, module+"/ring", module+"/analyzer/history", module+"/collector"),
			noPkgs: []string{module + "/analyzer"}},
		{pkg: "analyzer/history", noDeps: append(io, module+"/collector"), noPkgs: []string{module + "/analyzer"}},
		// The page's figures read the index and the history, never the rules.
		{pkg: "analyzer/figures", noDeps: append(io, module+"/collector"), noPkgs: []string{module + "/analyzer"}},
		{pkg: "analyzer/index", noDeps: append(io, module+"/collector", module+"/analyzer/history", module+"/analyzer/figures"),
			noPkgs: []string{module + "/analyzer"}},
		// The exporter builds metrics; it neither serves HTTP nor reads the cluster.
		{pkg: "exporter", noImports: []string{"net/http", "github.com/prometheus/client_golang/prometheus/promhttp"},
			noDeps: []string{module + "/collector", module + "/web", module + "/alertmanager", "github.com/gocql/gocql"}},
		// The web server and the alert pusher never read the cluster; web serves
		// the pusher's self-metrics as a collector, without importing it.
		{pkg: "web", noDeps: []string{module + "/collector", module + "/alertmanager", "github.com/gocql/gocql"}},
		{pkg: "alertmanager", noDeps: []string{module + "/collector", module + "/web", module + "/exporter", "github.com/gocql/gocql"}},
		// Collectors produce snapshots; they know nothing of findings or metrics.
		{pkg: "collector", noDeps: []string{module + "/analyzer", module + "/exporter", module + "/web", module + "/alertmanager",
			"github.com/prometheus/client_golang"}},
	}
	for _, c := range cases {
		path := module + "/" + c.pkg
		p, ok := pkgs[path]
		if !ok {
			t.Errorf("package %s does not exist", c.pkg)
			continue
		}
		for _, d := range p.Deps {
			if c.stdlibOnly && strings.Contains(strings.SplitN(d, "/", 2)[0], ".") {
				t.Errorf("%s must use the standard library only, depends on %s", c.pkg, d)
			}
			if hasPrefixAny(d, c.noDeps) || slices.Contains(c.noPkgs, d) {
				t.Errorf("%s must not depend on %s", c.pkg, d)
			}
		}
		for _, d := range p.Imports {
			if hasPrefixAny(d, c.noImports) {
				t.Errorf("%s must not import %s", c.pkg, d)
			}
		}
	}
}

// Size limits for production code: a file over 500 lines or a function over
// 80 is doing more than one thing (split it where a name explains the part).
func TestFileAndFunctionSize(t *testing.T) {
	const maxFileLines, maxFuncLines = 500, 80
	root := testkit.Root(t)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if n := fset.File(f.Pos()).LineCount(); n > maxFileLines {
			t.Errorf("%s has %d lines (at most %d)", rel, n, maxFileLines)
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > maxFuncLines {
				t.Errorf("%s: %s has %d lines (at most %d)", rel, fd.Name.Name, n, maxFuncLines)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A type with more than 30 methods holds more than one job: give a job a
// type of its own whose name says what it does. Generated code and tests are
// not counted.
func TestMethodsPerType(t *testing.T) {
	const maxMethods = 30
	counts, err := methodsPerType(testkit.Root(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(counts) == 0 {
		t.Fatal("no methods found: the walk read no source")
	}
	for _, typ := range slices.Sorted(maps.Keys(counts)) {
		if n := counts[typ]; n > maxMethods {
			t.Errorf("%s has %d methods (at most %d)", typ, n, maxMethods)
		}
	}
}

// methodsPerType counts the methods declared on each type in the module's
// non-test, non-generated Go files, keyed "folder.Type".
func methodsPerType(root string) (map[string]int, error) {
	counts := map[string]int{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || len(fd.Recv.List) == 0 {
				continue
			}
			if name := receiverName(fd.Recv.List[0].Type); name != "" {
				counts[filepath.ToSlash(rel)+"."+name]++
			}
		}
		return nil
	})
	return counts, err
}

// receiverName is the type's name in a receiver: T, *T, T[K] or *T[K].
func receiverName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return receiverName(x.X)
	case *ast.IndexExpr:
		return receiverName(x.X)
	case *ast.IndexListExpr:
		return receiverName(x.X)
	case *ast.Ident:
		return x.Name
	}
	return ""
}
