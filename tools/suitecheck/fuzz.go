package suitecheck

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// FuzzTarget is one func FuzzXxx(f *testing.F) of a test file.
type FuzzTarget struct {
	Package, Name, Where string
}

// FuzzTargets lists every fuzz target of the module.
func (m *Module) FuzzTargets() []FuzzTarget {
	var out []FuzzTarget
	for _, info := range m.funcs {
		fd, gf := info.decl, info.file
		if !gf.test || fd.Recv != nil || !strings.HasPrefix(fd.Name.Name, "Fuzz") {
			continue
		}
		rel, _ := filepath.Rel(m.Root, gf.path)
		out = append(out, FuzzTarget{Package: gf.dir, Name: fd.Name.Name,
			Where: filepath.ToSlash(rel) + ":" + strconv.Itoa(m.fset.Position(fd.Pos()).Line)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Package+out[i].Name < out[j].Package+out[j].Name })
	return out
}

// SeedCorpus lists the committed seed files of a target: testdata/fuzz/NAME/
// beside its package, which go test runs as part of the unit tests.
func (m *Module) SeedCorpus(f FuzzTarget) ([]string, error) {
	dir := filepath.Join(m.Root, f.Package, "testdata", "fuzz", f.Name)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out, nil
}
