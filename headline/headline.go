// Package headline says what a finding is about in one plain sentence, for
// readers who were paged: the status page's cards and the one-shot text
// report lead with it, and keep the finding's full summary (the measurement
// and how it was made) and advice one step below.
package headline

import (
	"strconv"
	"strings"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/internal/format"
)

// Label is a kind's name as a person reads it (analyzer's table of kinds).
func Label(kind string) string {
	if k, ok := analyzer.KindOf(kind); ok && k.Label != "" {
		return k.Label
	}
	return strings.ReplaceAll(kind, "_", " ")
}

// Sentence is the one plain sentence for a finding: what its kind means,
// or, for a kind this package does not know, the summary's first clause.
func Sentence(f finding.Finding) string {
	if k, ok := analyzer.KindOf(f.Kind); ok && k.Sentence != "" {
		return k.Sentence
	}
	first, _, _ := strings.Cut(f.Summary, "; ")
	return first
}

// Where names a finding's table (or keyspace), or "cluster".
func Where(f finding.Finding) string {
	switch {
	case f.Table != "":
		return f.Keyspace + "." + f.Table
	case f.Keyspace != "":
		return f.Keyspace
	}
	return "cluster"
}

// Nodes lists the nodes that measured a finding, or its one node; nil when
// no node did (schema and cluster-wide findings).
func Nodes(f finding.Finding) []string {
	if len(f.Nodes) > 0 {
		out := make([]string, 0, len(f.Nodes))
		for _, n := range f.Nodes {
			out = append(out, n.Node)
		}
		return out
	}
	if f.Node != "" {
		return []string{f.Node}
	}
	return nil
}

// KindValue writes a finding's value or threshold as Value does, a
// multiple with what it is a multiple of: "2.58× fair share" (a bare
// "2.58" says nothing to a reader).
func KindValue(kind string, v float64, unit string) string {
	if k, _ := analyzer.KindOf(kind); k.MultipleOf != "" && unit == finding.UnitRatio {
		return strconv.FormatFloat(v, 'f', 2, 64) + "× " + k.MultipleOf
	}
	return Value(v, unit)
}

// Value writes a finding's value or threshold in its unit, as the finding
// texts write them.
func Value(v float64, unit string) string {
	switch unit {
	case finding.UnitBytes:
		return format.Bytes(v)
	case finding.UnitRatio:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case finding.UnitSeconds:
		return format.Seconds(v)
	case finding.UnitRows, finding.UnitTombstones, finding.UnitPartitions:
		return format.Count(v) + " " + unit
	case finding.UnitOpsPerSec:
		return format.Rate(v)
	case "":
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64) + " " + unit
}
