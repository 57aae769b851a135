package prometheus

import (
	"testing"

	"github.com/prometheus/prometheus/promql/parser"

	"github.com/partmon/partmon/analyzer"
)

// TestRulesWriteNoThreshold: no rule compares with a number that is one of
// partmon's severity thresholds (50 MiB, 1.2, 15 minutes as 900 or 15 * 60):
// it compares with the partmon_threshold_* series, so a threshold changed in
// partmon.yml changes the alert.
func TestRulesWriteNoThreshold(t *testing.T) {
	bounds := map[float64]string{}
	for _, b := range analyzer.DefaultThresholds().Bounds() {
		bounds[b.Value] = b.Key
	}
	for _, r := range loadAlerts(t) {
		expr, err := parser.NewParser(parser.Options{}).ParseExpr(r.Expr)
		if err != nil {
			t.Fatalf("%s: %v", r.Alert, err)
		}
		for _, v := range comparedNumbers(expr) {
			if key, ok := bounds[v]; ok && v != 0 && v != 1 {
				t.Errorf("%s (%s) compares with %g, the %s threshold: compare with its partmon_threshold_* series",
					r.Alert, r.Labels["severity"], v, key)
			}
		}
	}
}

// comparedNumbers are the constant sides of expr's comparisons, evaluated.
func comparedNumbers(expr parser.Expr) []float64 {
	var out []float64
	parser.Inspect(expr, func(n parser.Node, _ []parser.Node) error {
		b, ok := n.(*parser.BinaryExpr)
		if !ok || !b.Op.IsComparisonOperator() {
			return nil
		}
		for _, side := range []parser.Expr{b.LHS, b.RHS} {
			if v, ok := constant(side); ok {
				out = append(out, v)
			}
		}
		return nil
	})
	return out
}

// constant evaluates a number, or products and sums of numbers.
func constant(e parser.Expr) (float64, bool) {
	switch e := e.(type) {
	case *parser.NumberLiteral:
		return e.Val, true
	case *parser.ParenExpr:
		return constant(e.Expr)
	case *parser.BinaryExpr:
		l, okL := constant(e.LHS)
		r, okR := constant(e.RHS)
		if !okL || !okR {
			return 0, false
		}
		switch e.Op {
		case parser.MUL:
			return l * r, true
		case parser.ADD:
			return l + r, true
		case parser.SUB:
			return l - r, true
		case parser.DIV:
			return l / r, true
		}
	}
	return 0, false
}
