package promexpr

import "github.com/prometheus/prometheus/promql/parser"

// ComparedNumbers are the constant sides of expr's comparisons, evaluated:
// what a test reads to catch a threshold written as a number.
func ComparedNumbers(expr string) ([]float64, error) {
	e, err := Parse(expr)
	if err != nil {
		return nil, err
	}
	var out []float64
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
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
	return out, nil
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
