package analyzer

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Each threshold is declared once, in its row of thresholdSpecs (which its
// rule's file registers): its key in exactly one row, no default or key
// typed again elsewhere in Go, and
// docs/configuration.md's default for it the row's.

// TestThresholdsDeclaredOnce fails on a second declaration of a threshold.
func TestThresholdsDeclaredOnce(t *testing.T) {
	rows := map[string]int{}
	for _, s := range thresholdSpecs {
		rows[s.key]++
		for _, hi := range s.notAbove {
			if _, ok := fields[hi]; !ok {
				t.Errorf("%s: notAbove names %q, no threshold", s.key, hi)
			}
		}
	}
	for key, n := range rows {
		if n != 1 {
			t.Errorf("threshold %s has %d rows in thresholdSpecs, want 1", key, n)
		}
	}
	for _, problem := range secondDeclarations(t, "..", rows) {
		t.Error(problem)
	}
}

// TestSecondDeclarationsAreFound: the search finds a default typed into a
// Thresholds literal and a threshold's key as a string outside thresholds.go.
func TestSecondDeclarationsAreFound(t *testing.T) {
	dir := t.TempDir()
	src := "package x\n\nvar a = analyzer.Thresholds{PartitionWarningBytes: 1}\nvar b = \"thresholds.top_k\"\n"
	if err := os.WriteFile(filepath.Join(dir, "x.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	// A setting of its own that shares the name is not a threshold typed again.
	own := "package y\n\ntype C struct {\n\tTopK int `yaml:\"top_k\"`\n}\n\nvar path = \"top_k\"\n"
	if err := os.WriteFile(filepath.Join(dir, "y.go"), []byte(own), 0o644); err != nil {
		t.Fatal(err)
	}
	got := secondDeclarations(t, dir, map[string]int{"top_k": 1})
	if len(got) != 2 {
		t.Fatalf("found %q, want the literal and the key", got)
	}
}

// secondDeclarations walks the Go files under root but tests and
// thresholds.go: a Thresholds literal with fields, or a string that is a
// threshold's key (bare or as thresholds.key), declares one again.
func secondDeclarations(t *testing.T, root string, keys map[string]int) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || path == "thresholds.go" || path == filepath.Join("..", "analyzer", "thresholds.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil //nolint:nilerr // not ours to judge (a file in progress)
		}
		own := ownSettings(f)
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				// A rule file's rows of the table: the one declaration.
				if fn, ok := n.Fun.(*ast.Ident); ok && fn.Name == "registerThresholds" {
					return false
				}
			case *ast.CompositeLit:
				if isThresholdsType(n.Type) && len(n.Elts) > 0 {
					out = append(out, path+": a Thresholds literal declares values again: start from DefaultThresholds()")
				}
			case *ast.BasicLit:
				// A bare key that is also a yaml key of the file's own structs is
				// that file's setting (the nodetool sampler's top_k), not a threshold.
				if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && keys[strings.TrimPrefix(s, "thresholds.")] > 0 && !own[s] {
					out = append(out, path+": the threshold key "+strconv.Quote(s)+" typed again: read it from the thresholds table")
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// ownSettings are the yaml keys the file's own struct fields are tagged with.
func ownSettings(f *ast.File) map[string]bool {
	own := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if field, ok := n.(*ast.Field); ok && field.Tag != nil {
			if tag, err := strconv.Unquote(field.Tag.Value); err == nil {
				name, _, _ := strings.Cut(reflect.StructTag(tag).Get("yaml"), ",")
				if name != "" {
					own[name] = true
				}
			}
		}
		return true
	})
	return own
}

func isThresholdsType(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name == "Thresholds"
	case *ast.SelectorExpr:
		return e.Sel.Name == "Thresholds"
	}
	return false
}

var configDocRow = regexp.MustCompile("(?m)^\\| `thresholds\\.([a-z_]+)` \\| `([^`]+)`")

// TestConfigurationDocDefaultsAreTheRows: the defaults docs/configuration.md
// lists are the rows' (the doc may add words, not another number).
func TestConfigurationDocDefaultsAreTheRows(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, m := range configDocRow.FindAllStringSubmatch(string(doc), -1) {
		key, text := m[1], m[2]
		i := slices.IndexFunc(thresholdSpecs, func(s thresholdSpec) bool { return s.key == key })
		if i < 0 {
			t.Errorf("docs/configuration.md lists thresholds.%s, which is no threshold", key)
			continue
		}
		s := thresholdSpecs[i]
		seen[key] = true
		var got float64
		if s.unit == thresholdSeconds {
			d, err := time.ParseDuration(text)
			if err != nil {
				t.Errorf("thresholds.%s: default %q: %v", key, text, err)
				continue
			}
			got = d.Seconds()
		} else if got, err = strconv.ParseFloat(text, 64); err != nil {
			t.Errorf("thresholds.%s: default %q: %v", key, text, err)
			continue
		}
		if got != s.def {
			t.Errorf("docs/configuration.md: thresholds.%s defaults to %s, the row says %s", key, text, s.show(s.def))
		}
	}
	for _, s := range thresholdSpecs {
		if !seen[s.key] {
			t.Errorf("docs/configuration.md lists no default for thresholds.%s", s.key)
		}
	}
}

// TestThresholdsReadByKnownKinds: a row's readBy names kinds of the table
// or shipped alerts (Partmon*, checked against the rules in deploy/prometheus).
func TestThresholdsReadByKnownKinds(t *testing.T) {
	for _, s := range thresholdSpecs {
		for _, r := range s.readBy {
			if _, ok := KindOf(r); !ok && !strings.HasPrefix(r, "Partmon") {
				t.Errorf("threshold %s is read by %q, neither a kind nor a shipped alert", s.key, r)
			}
		}
	}
}
