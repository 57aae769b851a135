package analyzer

import (
	"fmt"
	"math"
	"strings"

	"github.com/partmon/partmon/internal/format"
	"github.com/partmon/partmon/model"
)

// SuggestedGuardrail is a value for one guardrail derived from the
// cluster's own distribution, with the evidence it rests on. Warn and Fail
// are 0 (and Why says why) when no source measures what it guards.
type SuggestedGuardrail struct {
	Guardrail string              `json:"guardrail"`
	Unit      model.GuardrailUnit `json:"unit"`
	Warn      float64             `json:"warn,omitempty"`
	Fail      float64             `json:"fail,omitempty"`
	Evidence  string              `json:"evidence,omitempty"`
	Why       string              `json:"why,omitempty"`
	// YAML is the cassandra.yaml lines that set it.
	YAML string `json:"yaml,omitempty"`
}

// Margins of the suggestions: warn half again above the largest healthy
// figure (so today's healthy partitions never log), fail twice the largest
// figure of any key (so no current partition crosses it).
const (
	suggestWarnMargin = 1.5
	suggestFailMargin = 2.0
)

// suggestGuardrails derives partition_size and partition_tombstones values
// from every table's largest partition and every recorded key.
func (a guardrails) suggestGuardrails(gr *GuardrailReport) []SuggestedGuardrail {
	var sizes, tombs []float64
	floored := 0 // tables whose largest partition reads max_partition_size's smallest figure
	for _, t := range a.tables {
		switch {
		case t.maxBytes > 0 && t.maxBytes <= sizeFloor:
			floored++
		case t.maxBytes > 0:
			sizes = append(sizes, float64(t.maxBytes))
		}
		for _, ks := range a.h.KeysOf(t.keyspace, t.name) {
			if len(ks.Points) == 0 || ks.Last != a.now {
				continue
			}
			p := ks.Points[len(ks.Points)-1]
			if p[1] > 0 {
				sizes = append(sizes, float64(p[1]))
			}
			if p[2] > 0 {
				tombs = append(tombs, float64(p[2]))
			}
		}
	}
	// 4.x has no partition guardrails: suggest its compaction warnings.
	sizeName, tombName := "partition_size", "partition_tombstones"
	if !gr.has("partition_size") && gr.has("compaction_large_partition") {
		sizeName = "compaction_large_partition"
	}
	if !gr.has("partition_tombstones") && gr.has("compaction_tombstone") {
		tombName = "compaction_tombstone"
	}
	out := []SuggestedGuardrail{
		withFloor(suggest(sizeName, model.UnitBytes, sizes, float64(a.th.PartitionWarningBytes),
			"the largest partition of each table (max_partition_size) and of each named key"),
			floored, float64(a.th.PartitionWarningBytes)),
		suggest(tombName, model.UnitCount, tombs, a.th.TombstonesPerReadWarning*10,
			"the tombstones of each named key (top_partitions, the guardrail's own log lines)"),
	}
	for _, name := range []string{"collection_size", "items_per_collection", "column_value_size"} {
		out = append(out, writeGuardrails{a.analysis}.suggestWrite(gr, name))
	}
	return out
}

// sizeFloor is max_partition_size's smallest figure: it counts in whole MiB
// rounded up (TableMetricTables.java), so 1 MiB is any partition from one
// byte to 1 MiB, a bound and not a size; 1.5 × it would rest a suggestion
// on the rounding of tiny tables.
const sizeFloor = mib

// withFloor: the tables whose largest partition is only known to be at
// most sizeFloor are said, never put a margin on; when they are all there
// is, warn where partmon itself warns.
func withFloor(s SuggestedGuardrail, floored int, healthy float64) SuggestedGuardrail {
	if floored == 0 {
		return s
	}
	tables := fmt.Sprintf("%d tables whose largest partition is", floored)
	if floored == 1 {
		tables = "1 table whose largest partition is"
	}
	bound := fmt.Sprintf("%s ≤ %s (max_partition_size's smallest figure, a bound, not a size)", tables, format.Bytes(sizeFloor))
	if s.Warn > 0 {
		s.Evidence += "; not counted: " + bound
		return s
	}
	s.Why = ""
	s.Warn = niceCeil(healthy, model.UnitBytes)
	s.Fail = niceCeil(s.Warn*suggestFailMargin, model.UnitBytes)
	s.Evidence = fmt.Sprintf("%s and no named key: no measured size to put a margin on, so warn = partmon's own warning level %s, "+
		"fail = %.0f × that", bound, format.Bytes(s.Warn), suggestFailMargin)
	g, _ := model.GuardrailFactsOf(s.Guardrail)
	s.YAML = fmt.Sprintf("%s: %s\n", g.Warn, yamlValue(s.Warn, model.UnitBytes))
	if g.Fail == "" {
		s.Fail = 0
		return s
	}
	s.YAML += fmt.Sprintf("%s: %s\n", g.Fail, yamlValue(s.Fail, model.UnitBytes))
	return s
}

// suggest: warn above the largest healthy figure (at most healthy), or at
// healthy when every figure is past it; fail above the largest figure of all.
func suggest(name string, unit model.GuardrailUnit, figures []float64, healthy float64, from string) SuggestedGuardrail {
	s := SuggestedGuardrail{Guardrail: name, Unit: unit}
	if len(figures) == 0 {
		s.Why = "unknown: nothing measured yet (" + from + ")"
		return s
	}
	largest, largestHealthy, over := 0.0, 0.0, 0
	for _, f := range figures {
		largest = math.Max(largest, f)
		if f <= healthy {
			largestHealthy = math.Max(largestHealthy, f)
		} else {
			over++
		}
	}
	show := func(v float64) string {
		if unit == model.UnitBytes {
			return format.Bytes(v)
		}
		return fmt.Sprintf("%.0f", v)
	}
	if largestHealthy > 0 {
		s.Warn = niceCeil(largestHealthy*suggestWarnMargin, unit)
		s.Evidence = fmt.Sprintf("%d figures from %s: largest %s, largest healthy (at most %s) %s, %d above it; "+
			"warn = %.1f × the largest healthy, fail = %.0f × the largest, each rounded up",
			len(figures), from, show(largest), show(healthy), show(largestHealthy), over, suggestWarnMargin, suggestFailMargin)
	} else {
		// Every figure is a problem (named keys are the worst ones): there
		// is no healthy figure to put a margin on, so warn where partmon
		// itself warns.
		s.Warn = niceCeil(healthy, unit)
		s.Evidence = fmt.Sprintf("%d figures from %s, all above partmon's own warning level %s (largest %s): "+
			"no healthy figure to put a margin on, so warn = that level, fail = %.0f × the largest, each rounded up",
			len(figures), from, show(healthy), show(largest), suggestFailMargin)
	}
	s.Fail = niceCeil(math.Max(largest, s.Warn)*suggestFailMargin, unit)
	g, _ := model.GuardrailFactsOf(name)
	s.YAML = fmt.Sprintf("%s: %s\n", g.Warn, yamlValue(s.Warn, unit))
	if g.Fail == "" { // a 4.x compaction warning: no fail level
		s.Fail = 0
		return s
	}
	s.YAML += fmt.Sprintf("%s: %s\n", g.Fail, yamlValue(s.Fail, unit))
	return s
}

// niceCeil rounds up to 1, 2 or 5 times a power of ten (for sizes of a
// MiB from 1 MiB, of a KiB from 64 KiB; counts stay counts): values a
// person writes in a yaml file.
func niceCeil(v float64, u model.GuardrailUnit) float64 {
	unit := 1.0
	switch {
	case u != model.UnitBytes:
	case v >= mib:
		unit = mib
	case v >= 64*kib:
		unit = kib
	}
	x := v / unit
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x {
			return m * p * unit
		}
	}
	return 10 * p * unit
}

func yamlValue(v float64, unit model.GuardrailUnit) string {
	if unit != model.UnitBytes {
		return fmt.Sprintf("%.0f", v)
	}
	switch {
	case v >= mib && math.Mod(v, mib) == 0:
		return fmt.Sprintf("%.0fMiB", v/mib)
	case v >= kib && math.Mod(v, kib) == 0:
		return fmt.Sprintf("%.0fKiB", v/kib)
	}
	return fmt.Sprintf("%.0fB", v)
}

// has: some node has the guardrail's settings (set or off).
func (gr *GuardrailReport) has(guardrail string) bool {
	for _, s := range gr.Settings {
		if s.Guardrail == guardrail {
			return true
		}
	}
	return false
}

// GuardrailYAML is every suggestion's cassandra.yaml lines, one block.
func (gr *GuardrailReport) GuardrailYAML() string {
	var b strings.Builder
	for _, s := range gr.Suggested {
		b.WriteString(s.YAML)
	}
	return b.String()
}
