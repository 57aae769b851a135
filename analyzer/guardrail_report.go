package analyzer

import (
	"sort"

	"github.com/partmon/partmon/model"
)

// GuardrailReport is what the report says about the cluster's guardrails:
// the thresholds each node runs with, how close each known key is to them
// (Crossings, with a forecast where the key's history gives a trend) and
// suggested values from the cluster's own distributions.
type GuardrailReport struct {
	Settings []GuardrailSetting `json:"settings"`
	// Clients says whether the write-path checks apply to clients:
	// "guarded" (authentication on: ordinary roles are refused, superusers
	// never), "not guarded" (no authentication: every client is a
	// superuser) or "unknown" (docs/sources.md#guardrails).
	Clients   string               `json:"clients"`
	Crossings []GuardrailCrossing  `json:"crossings,omitempty"`
	Suggested []SuggestedGuardrail `json:"suggested,omitempty"`
}

// GuardrailSetting is one level of one guardrail as one node runs it.
// Set false: the node has the setting and it is off (null, empty, -1);
// a setting the node's version lacks is not listed.
type GuardrailSetting struct {
	Node      string              `json:"node"`
	DC        string              `json:"dc"`
	Rack      string              `json:"rack"`
	Guardrail string              `json:"guardrail"`
	Level     string              `json:"level"`
	Setting   string              `json:"setting"`
	Unit      model.GuardrailUnit `json:"unit"`
	Set       bool                `json:"set"`
	Value     float64             `json:"value,omitempty"`
	Raw       string              `json:"raw"`
	// Refuses, on a fail level, says what it refuses; empty when a
	// crossing only logs.
	Refuses string `json:"refuses,omitempty"`
}

// guardrailReport reads every node's guardrail thresholds.
func (a guardrails) guardrailReport() *GuardrailReport {
	gr := &GuardrailReport{Clients: "unknown"}
	hosts := make([]string, 0, len(a.s.PerNode))
	for host := range a.s.PerNode {
		hosts = append(hosts, host)
	}
	sort.Strings(hosts)
	guarded, unguarded := 0, 0
	for _, host := range hosts {
		nd := a.s.PerNode[host]
		if nd == nil || nd.Settings == nil {
			continue
		}
		addr, dc, rack := nd.Address, "", ""
		if n := a.byHost[host]; n != nil {
			addr, dc, rack = n.Address, n.DC, n.Rack
		}
		for _, t := range model.NodeGuardrails(nd.Settings) {
			if !t.Known {
				continue
			}
			f, _ := model.GuardrailFactsOf(t.Guardrail)
			s := GuardrailSetting{Node: addr, DC: dc, Rack: rack, Guardrail: t.Guardrail, Level: t.Level,
				Setting: t.Setting, Unit: f.Unit, Set: t.Set, Value: t.Value, Raw: t.Raw}
			if t.Level == "fail" {
				s.Refuses = f.Refuses
			}
			gr.Settings = append(gr.Settings, s)
		}
		if g, known := model.GuardrailsGuardClients(nd.Settings); known && g {
			guarded++
		} else if known {
			unguarded++
		}
	}
	switch {
	case guarded > 0 && unguarded == 0:
		gr.Clients = "guarded"
	case unguarded > 0 && guarded == 0:
		gr.Clients = "not guarded"
	}
	return gr
}

// threshold is the lowest set value of a guardrail level over the nodes
// (a key is judged by the strictest replica's setting); ok false when no
// node has it set.
func (gr *GuardrailReport) threshold(guardrail, level string) (float64, bool) {
	best, ok := 0.0, false
	for _, s := range gr.Settings {
		if s.Guardrail == guardrail && s.Level == level && s.Set && (!ok || s.Value < best) {
			best, ok = s.Value, true
		}
	}
	return best, ok
}

// guardrailView is the guardrail report of this analysis, built once.
func (a guardrails) guardrailView() *GuardrailReport {
	if a.gr == nil {
		a.gr = a.guardrailReport()
		a.gr.Crossings = append(append(crossings{a.analysis}.guardrailCrossings(a.gr), dataDiskGuardrail{a.analysis}.diskCrossings(a.gr)...), writeGuardrails{a.analysis}.writeCrossings(a.gr)...)
		sort.SliceStable(a.gr.Crossings, func(i, j int) bool { return a.gr.Crossings[i].Fraction > a.gr.Crossings[j].Fraction })
		a.gr.Suggested = a.suggestGuardrails(a.gr)
	}
	return a.gr
}

// guardrails are the guardrail thresholds each node runs with and how close
// each known key is to them, built once and read by the rules and the page.
type guardrails struct{ *analysis }
