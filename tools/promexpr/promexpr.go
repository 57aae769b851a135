// Package promexpr reads the PromQL in partmon's alerting rules and Grafana
// dashboards with Prometheus' own parser, so tests can check every query
// against the metrics the exporter publishes and run it on a real Prometheus.
package promexpr

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

// Selector is one series selector of an expression.
type Selector struct {
	// Metric is the metric name; "" when the selector names none.
	Metric string
	// Matchers are the label matchers, without the metric-name matcher.
	Matchers []*labels.Matcher
	// Range is the window of a range selector ([5m]); 0 for an instant selector.
	Range time.Duration
	// Func is the function a range selector is passed to (rate, increase...).
	Func string
}

// Matcher returns the selector's matcher on label name, or nil.
func (s Selector) Matcher(name string) *labels.Matcher {
	for _, m := range s.Matchers {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// Analysis is what an expression reads and how it groups.
type Analysis struct {
	Selectors []Selector
	// Functions are the names of the functions called, sorted, without duplicates.
	Functions []string
	// GroupingLabels are the labels named in by, without, on, ignoring,
	// group_left and group_right clauses, sorted, without duplicates.
	GroupingLabels []string
}

// Metrics returns the distinct metric names the expression selects, sorted.
func (a Analysis) Metrics() []string {
	var names []string
	for _, s := range a.Selectors {
		if s.Metric != "" {
			names = append(names, s.Metric)
		}
	}
	sort.Strings(names)
	return slices.Compact(names)
}

// Parse parses a PromQL expression as Prometheus does.
func Parse(expr string) (parser.Expr, error) {
	e, err := parser.NewParser(parser.Options{}).ParseExpr(expr)
	if err != nil {
		return nil, fmt.Errorf("parsing PromQL %q: %w", expr, err)
	}
	return e, nil
}

// Analyze parses expr and lists its selectors, functions and grouping labels.
func Analyze(expr string) (Analysis, error) {
	root, err := Parse(expr)
	if err != nil {
		return Analysis{}, err
	}

	// A range selector's function is known at the call, its selector one level down.
	type rangeUse struct {
		fn  string
		rng time.Duration
	}
	ranged := map[*parser.VectorSelector]rangeUse{}
	var a Analysis
	var funcs, groups []string
	parser.Inspect(root, func(node parser.Node, _ []parser.Node) error {
		switch n := node.(type) {
		case *parser.Call:
			funcs = append(funcs, n.Func.Name)
			for _, arg := range n.Args {
				if ms, ok := arg.(*parser.MatrixSelector); ok {
					if vs, ok := ms.VectorSelector.(*parser.VectorSelector); ok {
						ranged[vs] = rangeUse{fn: n.Func.Name, rng: ms.Range}
					}
				}
			}
		case *parser.MatrixSelector:
			// A range selector outside a call (a bare `x[5m]`) still has a range.
			if vs, ok := n.VectorSelector.(*parser.VectorSelector); ok {
				if _, seen := ranged[vs]; !seen {
					ranged[vs] = rangeUse{rng: n.Range}
				}
			}
		case *parser.AggregateExpr:
			groups = append(groups, n.Grouping...)
		case *parser.BinaryExpr:
			if n.VectorMatching != nil {
				groups = append(groups, n.VectorMatching.MatchingLabels...)
				groups = append(groups, n.VectorMatching.Include...)
			}
		}
		return nil
	})
	// Selectors in a second pass: every call above has been seen by now.
	parser.Inspect(root, func(node parser.Node, _ []parser.Node) error {
		vs, ok := node.(*parser.VectorSelector)
		if !ok {
			return nil
		}
		s := Selector{Metric: vs.Name}
		for _, m := range vs.LabelMatchers {
			if m.Name == model.MetricNameLabel {
				if s.Metric == "" && m.Type == labels.MatchEqual {
					s.Metric = m.Value
				}
				continue
			}
			s.Matchers = append(s.Matchers, m)
		}
		if r, ok := ranged[vs]; ok {
			s.Range, s.Func = r.rng, r.fn
		}
		a.Selectors = append(a.Selectors, s)
		return nil
	})
	sort.Strings(funcs)
	sort.Strings(groups)
	a.Functions = slices.Compact(funcs)
	a.GroupingLabels = slices.Compact(groups)
	return a, nil
}

// MetricNames returns the distinct metric names expr selects, sorted.
func MetricNames(expr string) ([]string, error) {
	a, err := Analyze(expr)
	if err != nil {
		return nil, err
	}
	return a.Metrics(), nil
}
