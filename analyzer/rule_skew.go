package analyzer

import (
	"fmt"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/analyzer/index"
	"github.com/partmon/partmon/internal/format"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/ring"
)

const topologySource = "system.local,system.peers,system_schema.keyspaces"

// ruleOwnershipSkew: per node per keyspace, effective ownership ÷ its fair
// share (RF_dc ÷ N_dc), as nodetool status <keyspace> computes it: exact
// for the tokens the ring tables give. One finding per keyspace and DC, its
// over-owning nodes inside.
func ruleOwnershipSkew(a *analysis) []finding.Finding {
	var out []finding.Finding
	choices := tokenAdvice{a}.allocatorChoices()
	for _, ks := range a.keyspaces {
		if ks.skew == nil {
			continue
		}
		for i := range a.s.Nodes {
			n := &a.s.Nodes[i]
			skew, ok := ks.skew[n.HostID]
			if !ok {
				continue
			}
			sev := severityFor(skew, a.th.OwnershipSkewWarning, a.th.OwnershipSkewCritical)
			if sev == finding.SeverityNone {
				continue
			}
			f := a.newFinding(KindOwnershipSkew, sev, n, ks.ks.Name, "")
			f.Value, f.Threshold, f.Unit = skew, thresholdFor(sev, a.th.OwnershipSkewWarning, a.th.OwnershipSkewCritical), finding.UnitRatio
			f.Source = topologySource
			where, nodes := ownershipSkew{a}.groupOf(ks, n)
			rf := ks.repl.FactorIn(n.DC)
			if ks.repl.Class == ring.StrategyEverywhere {
				rf = nodes
			}
			f.Summary = fmt.Sprintf("%s owns %s of %s (effective) in %s for a fair %s (RF %d over %d nodes): %.2f×",
				n.Address, format.Percent(ks.owns[n.HostID]), ks.ks.Name, where, format.Percent(ks.owns[n.HostID]/skew), rf, nodes, skew)
			f.Advice = tokenAdvice{a}.ownershipAdvice(ks, n, choices[n.DC])
			out = append(out, f)
		}
	}
	return out
}

// groupOf names a node's placement group and counts its nodes with tokens.
func (a ownershipSkew) groupOf(ks *keyspaceView, n *model.Node) (string, int) {
	g := index.PlacementGroup(ks.repl, n)
	count := 0
	for _, m := range a.s.Nodes {
		if len(m.Tokens) > 0 && index.PlacementGroup(ks.repl, &m) == g {
			count++
		}
	}
	if g == "" {
		return "the ring", count
	}
	return g, count
}

// ruleLoadSkew: per node, load ÷ the mean load of its DC; the advice says
// whether token ownership explains it. Load is gossip's live sstable bytes
// (4.1+) or Σ disk_usage, which also counts obsolete sstables not yet
// deleted after a compaction; both are compressed. One finding per DC.
func ruleLoadSkew(a *analysis) []finding.Finding {
	var out []finding.Finding
	loads, skews := a.ix.LoadSkews()
	for i := range a.s.Nodes {
		n := &a.s.Nodes[i]
		skew, ok := skews[n.HostID]
		if !ok {
			continue
		}
		sev := severityFor(skew, a.th.LoadSkewWarning, a.th.LoadSkewCritical)
		if sev == finding.SeverityNone {
			continue
		}
		f := a.newFinding(KindLoadSkew, sev, n, "", "")
		f.Value, f.Threshold, f.Unit = skew, thresholdFor(sev, a.th.LoadSkewWarning, a.th.LoadSkewCritical), finding.UnitRatio
		f.Source = "node load (gossip_info.load / disk_usage)"
		mean := loads[n.HostID] / skew
		f.Summary = fmt.Sprintf("%s holds %s, %.2f× the %s mean of %s", n.Address, format.Bytes(loads[n.HostID]), skew, n.DC, format.Bytes(mean))
		if mean < float64(a.th.LoadSkewMinMeanBytes) {
			// Too little data for the skew to cost anything, and gossip's load
			// counts sstables only: one node's flush moves it (docs/detection.md).
			f.Severity = finding.SeverityInfo
			f.Summary += fmt.Sprintf(", below the %s mean a skew is judged from (load_skew_min_mean_bytes): rows still in memtables are not in the load", format.Bytes(float64(a.th.LoadSkewMinMeanBytes)))
		}
		own, ownKS := ownershipSkew{a}.maxOwnershipSkew(n)
		switch {
		case ownKS != "" && own >= 1+(skew-1)*0.75:
			f.Advice = fmt.Sprintf("token ownership explains it (%s's ownership skew in %s is %.2f×): even out the tokens (see ownership_skew)", n.Address, ownKS, own)
		case ownKS != "":
			f.Advice = fmt.Sprintf("token ownership does not explain it (ownership skew at most %.2f×, in %s): look for large partitions on %s, compactions behind (disk usage counts obsolete sstables not yet deleted), snapshots, or data not cleaned up after adding nodes (nodetool cleanup)", own, ownKS, n.Address)
		default:
			f.Advice = fmt.Sprintf("ownership unknown; look for large partitions on %s, compactions behind, snapshots, or data left after adding nodes (nodetool cleanup)", n.Address)
		}
		out = append(out, f)
	}
	return out
}

// maxOwnershipSkew is the node's largest ownership skew over the keyspaces.
func (a ownershipSkew) maxOwnershipSkew(n *model.Node) (float64, string) {
	best, name := 0.0, ""
	for _, ks := range a.keyspaces {
		if s, ok := ks.skew[n.HostID]; ok && s > best {
			best, name = s, ks.ks.Name
		}
	}
	return best, name
}

// ownershipSkew is the ownership_skew rule's own reasoning over the index.
type ownershipSkew struct{ *analysis }

// KindOwnershipSkew names the ownership_skew findings.
const KindOwnershipSkew = "ownership_skew"

func init() {
	registerKind(6, KindFacts{Name: KindOwnershipSkew, Label: "ownership skew",
		Sentence:   "A node owns more of the keyspace's data than its fair share.",
		MultipleOf: "fair share",
		scope:      scopeGroup, rule: ruleOwnershipSkew})
}

// KindLoadSkew names the load_skew findings.
const KindLoadSkew = "load_skew"

func init() {
	registerKind(7, KindFacts{Name: KindLoadSkew, Label: "load skew",
		Sentence:   "A node holds more data than the mean of its datacenter.",
		MultipleOf: "its DC's mean load",
		scope:      scopeGroup, rule: ruleLoadSkew})
}

// The thresholds the rule reads, each declared once, here, with why
// (thresholds.go: their check, unit and series).
func init() {
	registerThresholds([]thresholdSpec{
		// Uneven node load above 20 % is the guidance; 50 % means one node
		// fills (and serves) half again as much as its peers.
		{key: "ownership_skew_warning", unit: thresholdRatio, check: mustBeAboveOne, def: 1.2, bound: true, notAbove: []string{"ownership_skew_critical"},
			readBy: []string{KindOwnershipSkew, "PartmonOwnershipSkew"}},
		{key: "ownership_skew_critical", unit: thresholdRatio, check: mustBeAboveOne, def: 1.5, bound: true,
			readBy: []string{KindOwnershipSkew, "PartmonOwnershipSkew"}},
		{key: "load_skew_warning", unit: thresholdRatio, check: mustBeAboveOne, def: 1.2, bound: true, notAbove: []string{"load_skew_critical"},
			readBy: []string{KindLoadSkew, "PartmonLoadSkew"}},
		{key: "load_skew_critical", unit: thresholdRatio, check: mustBeAboveOne, def: 1.5, bound: true,
			readBy: []string{KindLoadSkew, "PartmonLoadSkew"}},
		// A GiB a node: below it a skew's extra bytes fill no disk an operator
		// sizes, and the figure moves with single events gossip load half sees
		// (it counts sstables only: rows still in memtables, up to a third of
		// the memtable space, a quarter of the heap, before a flush, are not in it).
		{key: "load_skew_min_mean_bytes", unit: thresholdBytes, check: mustBePositive, def: gib,
			readBy: []string{KindLoadSkew, "PartmonLoadSkew"}},
	})
}
