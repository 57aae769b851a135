package web

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/partmon/partmon/analyzer"
)

// TestPageJudgesByConfiguredThresholds: no comparison in the page's code is
// with a number that is one of partmon's severity thresholds (the heatmap's
// 1.2 once was): the page reads the report's thresholds. Durations are left
// out: the time axes compare spans with an hour and a day.
func TestPageJudgesByConfiguredThresholds(t *testing.T) {
	bounds := analyzer.DefaultThresholds().BoundsByValue()
	for v, b := range bounds {
		if strings.HasSuffix(b.Name, "_seconds") {
			delete(bounds, v)
		}
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			b, ok := n.(*ast.BinaryExpr)
			if !ok || !isComparison(b.Op) || isLen(b.X) || isLen(b.Y) {
				return true
			}
			for _, side := range []ast.Expr{b.X, b.Y} {
				if v, ok := number(side); ok {
					if bound, hit := bounds[v]; hit {
						t.Errorf("%s: compares with %g, the %s threshold: read the report's thresholds", fset.Position(b.Pos()), v, bound.Key)
					}
				}
			}
			return true
		})
	}
}

func isComparison(op token.Token) bool {
	switch op {
	case token.LSS, token.LEQ, token.GTR, token.GEQ, token.EQL, token.NEQ:
		return true
	}
	return false
}

func isLen(e ast.Expr) bool {
	c, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	id, ok := c.Fun.(*ast.Ident)
	return ok && id.Name == "len"
}

func number(e ast.Expr) (float64, bool) {
	l, ok := e.(*ast.BasicLit)
	if !ok || (l.Kind != token.INT && l.Kind != token.FLOAT) {
		return 0, false
	}
	v, err := strconv.ParseFloat(l.Value, 64)
	return v, err == nil
}
