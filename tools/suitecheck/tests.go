package suitecheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Test is one top-level test function of an integration test file.
type Test struct {
	Package string // directory relative to the module root, "." for the root
	Name    string
	Where   string // file:line
	// NeedsEnv are the variables the test skips without: it (or a function
	// it reaches, in this module) calls t.Skip* under an `if` on os.Getenv.
	NeedsEnv []string
}

// Module is the parsed Go source of the module.
type Module struct {
	Root  string
	Path  string               // module path from go.mod
	funcs map[string]*funcInfo // "dir.Name" and "dir.(method).Name"
	files []*goFile
	fset  *token.FileSet
}

type goFile struct {
	dir, path   string
	ast         *ast.File
	integration bool              // //go:build integration
	test        bool              // _test.go
	imports     map[string]string // local name → module-relative dir
}

type funcInfo struct {
	decl  *ast.FuncDecl
	file  *goFile
	gates []string // env variables it skips without, directly
	refs  []string // keys of the functions and methods it mentions
}

// LoadModule parses every Go file under root except testdata, hidden and
// underscore directories.
func LoadModule(root string) (*Module, error) {
	modData, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	m := &Module{Root: root, funcs: map[string]*funcInfo{}, fset: token.NewFileSet()}
	for _, line := range strings.Split(string(modData), "\n") {
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			m.Path = strings.TrimSpace(p)
		}
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(m.fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		m.addFile(f, filepath.ToSlash(rel), path)
		return nil
	})
	if err != nil {
		return nil, err
	}
	m.resolveGates()
	return m, nil
}

func (m *Module) addFile(f *ast.File, dir, path string) {
	gf := &goFile{dir: dir, path: path, ast: f, test: strings.HasSuffix(path, "_test.go"), imports: map[string]string{}}
	for _, cg := range f.Comments {
		if cg.Pos() > f.Package {
			break
		}
		for _, c := range cg.List {
			if expr, ok := strings.CutPrefix(c.Text, "//go:build "); ok && buildTagsInclude(expr, "integration") {
				gf.integration = true
			}
		}
	}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		rel, ok := strings.CutPrefix(p, m.Path+"/")
		if !ok {
			continue
		}
		name := filepath.Base(rel)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		gf.imports[name] = rel
	}
	m.files = append(m.files, gf)
	consts := stringConsts(f)
	for _, decl := range f.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		info := &funcInfo{decl: fd, file: gf}
		info.gates = envGates(fd.Body, consts, gf, m)
		m.funcs[funcKey(dir, fd)] = info
	}
}

// buildTagsInclude reads a build constraint loosely: it names tag and does
// not negate it. Good enough for "integration" and "integration && linux".
func buildTagsInclude(expr, tag string) bool {
	for _, f := range strings.FieldsFunc(expr, func(r rune) bool { return strings.ContainsRune(" ()&|", r) }) {
		if f == tag {
			return true
		}
	}
	return false
}

func funcKey(dir string, fd *ast.FuncDecl) string {
	if fd.Recv != nil {
		return dir + ".(method)." + fd.Name.Name
	}
	return dir + "." + fd.Name.Name
}

// stringConsts are the file's package-level string constants.
func stringConsts(f *ast.File) map[string]string {
	out := map[string]string{}
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if i < len(vs.Values) {
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						out[name.Name], _ = strconv.Unquote(lit.Value)
					}
				}
			}
		}
	}
	return out
}

// envGates finds `if <condition on os.Getenv(X)> { ... t.Skip...() ... }` in
// body, where the condition reads os.Getenv directly or a variable assigned
// from it, and returns the variables X.
func envGates(body *ast.BlockStmt, consts map[string]string, gf *goFile, m *Module) []string {
	fromEnv := map[string]string{} // local variable → env variable
	var gates []string
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, rhs := range n.Rhs {
				if env := getenvArg(rhs, consts, gf, m); env != "" && i < len(n.Lhs) {
					if id, ok := n.Lhs[i].(*ast.Ident); ok {
						fromEnv[id.Name] = env
					}
				}
			}
		case *ast.IfStmt:
			if n.Init != nil {
				ast.Inspect(n.Init, func(x ast.Node) bool {
					if as, ok := x.(*ast.AssignStmt); ok {
						for i, rhs := range as.Rhs {
							if env := getenvArg(rhs, consts, gf, m); env != "" && i < len(as.Lhs) {
								if id, ok := as.Lhs[i].(*ast.Ident); ok {
									fromEnv[id.Name] = env
								}
							}
						}
					}
					return true
				})
			}
			var envs []string
			ast.Inspect(n.Cond, func(x ast.Node) bool {
				if env := getenvArg(x, consts, gf, m); env != "" {
					envs = append(envs, env)
				}
				if id, ok := x.(*ast.Ident); ok && fromEnv[id.Name] != "" {
					envs = append(envs, fromEnv[id.Name])
				}
				return true
			})
			if len(envs) > 0 && callsSkip(n.Body) {
				gates = append(gates, envs...)
			}
		}
		return true
	})
	return gates
}

// getenvArg is X of os.Getenv(X) or os.LookupEnv(X), X a string literal or
// a string constant of this package or an imported one of the module.
func getenvArg(n ast.Node, consts map[string]string, gf *goFile, m *Module) string {
	call, ok := n.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return ""
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || (sel.Sel.Name != "Getenv" && sel.Sel.Name != "LookupEnv") {
		return ""
	}
	if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "os" {
		return ""
	}
	switch a := call.Args[0].(type) {
	case *ast.BasicLit:
		v, _ := strconv.Unquote(a.Value)
		return v
	case *ast.Ident:
		if v, ok := consts[a.Name]; ok {
			return v
		}
		return m.constIn(gf.dir, a.Name)
	case *ast.SelectorExpr:
		if pkg, ok := a.X.(*ast.Ident); ok {
			if dir, ok := gf.imports[pkg.Name]; ok {
				return m.constIn(dir, a.Sel.Name)
			}
		}
	}
	return ""
}

// constIn reads a string constant of the package in dir from the files
// parsed so far, or from its sources when not parsed yet.
func (m *Module) constIn(dir, name string) string {
	entries, err := os.ReadDir(filepath.Join(m.Root, dir))
	if err != nil {
		return ""
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(m.Root, dir, e.Name()), nil, 0)
		if err != nil {
			continue
		}
		if v, ok := stringConsts(f)[name]; ok {
			return v
		}
	}
	return ""
}

func callsSkip(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && strings.HasPrefix(sel.Sel.Name, "Skip") {
				found = true
			}
		}
		return !found
	})
	return found
}

// resolveGates records what each function mentions: functions of its
// package by name, functions of imported module packages, and methods by
// name in its package and in the module packages its file imports.
func (m *Module) resolveGates() {
	for _, info := range m.funcs {
		gf := info.file
		ast.Inspect(info.decl.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if pkg, ok := n.X.(*ast.Ident); ok {
					if dir, ok := gf.imports[pkg.Name]; ok {
						info.refs = append(info.refs, dir+"."+n.Sel.Name)
						return false
					}
				}
				info.refs = append(info.refs, gf.dir+".(method)."+n.Sel.Name)
				for _, dir := range gf.imports {
					info.refs = append(info.refs, dir+".(method)."+n.Sel.Name)
				}
			case *ast.Ident:
				info.refs = append(info.refs, gf.dir+"."+n.Name)
			}
			return true
		})
	}
}

// needs is every env gate of the functions reachable from key.
func (m *Module) needs(key string) []string {
	seen := map[string]bool{}
	set := map[string]bool{}
	var walk func(string)
	walk = func(k string) {
		if seen[k] {
			return
		}
		seen[k] = true
		info, ok := m.funcs[k]
		if !ok {
			return
		}
		for _, g := range info.gates {
			set[g] = true
		}
		for _, r := range info.refs {
			walk(r)
		}
	}
	walk(key)
	out := make([]string, 0, len(set))
	for g := range set {
		out = append(out, g)
	}
	sort.Strings(out)
	return out
}

// IntegrationTests lists every func TestXxx(t *testing.T) of the files
// built only with the integration tag, by package and name.
func (m *Module) IntegrationTests() []Test {
	var out []Test
	for key, info := range m.funcs {
		fd, gf := info.decl, info.file
		if !gf.integration || !gf.test || fd.Recv != nil || !isTestName(fd.Name.Name) {
			continue
		}
		rel, _ := filepath.Rel(m.Root, gf.path)
		line := m.fset.Position(fd.Pos()).Line
		out = append(out, Test{Package: gf.dir, Name: fd.Name.Name, Where: filepath.ToSlash(rel) + ":" + strconv.Itoa(line), NeedsEnv: m.needs(key)})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Package != out[j].Package {
			return out[i].Package < out[j].Package
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// isTestName is go test's rule: Test, then nothing or a non-lower-case rune.
func isTestName(name string) bool {
	rest, ok := strings.CutPrefix(name, "Test")
	return ok && name != "TestMain" && (rest == "" || !(rest[0] >= 'a' && rest[0] <= 'z'))
}
