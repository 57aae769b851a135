package render

import (
	"fmt"
	"strings"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/internal/format"
)

// guardrailFigure writes a guardrail value in its unit (model.GuardrailUnit).
func guardrailFigure[U ~string](v float64, unit U) string {
	switch unit {
	case "bytes":
		return format.Bytes(v)
	case "percent":
		return fmt.Sprintf("%.0f %%", v)
	}
	return fmt.Sprintf("%.0f", v)
}

// guardrailLines: the thresholds set (per guardrail and level, the strictest
// node's), how many levels are off, and the suggested values.
func guardrailLines(gr *analyzer.GuardrailReport) (set []string, off int, suggested []string) {
	seen := map[string]bool{}
	for _, s := range gr.Settings {
		k := s.Guardrail + " " + s.Level
		if !s.Set {
			off++
			continue
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		refuses := "logged only"
		switch {
		case s.Refuses != "" && gr.Clients == "not guarded":
			refuses = "would refuse " + s.Refuses + " for ordinary roles; without authentication no client is guarded"
		case s.Refuses != "":
			refuses = "refuses " + s.Refuses + " (roles that are not superusers)"
		}
		set = append(set, fmt.Sprintf("%s %s %s (%s)", s.Guardrail, s.Level, guardrailFigure(s.Value, s.Unit), refuses))
	}
	for _, s := range gr.Suggested {
		if s.Warn == 0 {
			suggested = append(suggested, s.Guardrail+": "+s.Why)
			continue
		}
		fail := "none (no fail level)"
		if s.Fail > 0 {
			fail = guardrailFigure(s.Fail, s.Unit)
		}
		suggested = append(suggested, fmt.Sprintf("%s: warn %s, fail %s — %s", s.Guardrail,
			guardrailFigure(s.Warn, s.Unit), fail, s.Evidence))
	}
	return set, off, suggested
}

func renderTextGuardrails(p *printer, r *analyzer.Report) {
	gr := r.Guardrails
	if gr == nil || len(gr.Settings)+len(gr.Suggested) == 0 {
		return
	}
	set, off, suggested := guardrailLines(gr)
	p.f("\nGuardrails (clients %s)\n", gr.Clients)
	for _, s := range set {
		p.wrap("  ", s)
	}
	if off > 0 {
		p.f("  %d more levels are off (unset)\n", off)
	}
	p.f("  Suggested from this cluster's partitions:\n")
	for _, s := range suggested {
		p.wrap("    ", s)
	}
	if y := gr.GuardrailYAML(); y != "" {
		p.f("  cassandra.yaml:\n")
		for _, line := range strings.Split(strings.TrimSuffix(y, "\n"), "\n") {
			p.f("    %s\n", line)
		}
	}
}

func renderMarkdownGuardrails(p *printer, r *analyzer.Report) {
	gr := r.Guardrails
	if gr == nil || len(gr.Settings)+len(gr.Suggested) == 0 {
		return
	}
	set, off, suggested := guardrailLines(gr)
	p.f("\n## Guardrails\n\nClients: %s.\n\n", gr.Clients)
	for _, s := range set {
		p.f("- %s\n", mdEscape(s))
	}
	if off > 0 {
		p.f("- %d more levels are off (unset)\n", off)
	}
	p.f("\n### Suggested values\n\n")
	for _, s := range suggested {
		p.f("- %s\n", mdEscape(s))
	}
	if y := gr.GuardrailYAML(); y != "" {
		p.f("\n```yaml\n%s```\n", y)
	}
}
