package analyzer

import (
	"fmt"
	"math"
	"strings"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/analyzer/index"
	"github.com/partmon/partmon/internal/format"
	"github.com/partmon/partmon/model"
)

// trafficSource names the counters the rates come from.
func (a *analysis) trafficSource() string {
	if a.s.Engine == model.EngineScyllaDB {
		return "rest:column_family/metrics/read,rest:column_family/metrics/write"
	}
	return "system_views.local_read_latency,system_views.local_write_latency"
}

// maxSkew is the largest skew a node can show: all of its group's reads
// (one replica answers each read at CL ONE), or every write of the group
// (each write lands on Σowns replicas).
func maxSkew(tn *tableNode, write bool) float64 {
	if tn.owns <= 0 {
		return 0
	}
	if write {
		return 1 / tn.owns
	}
	return tn.groupOwns / tn.owns
}

// effectiveWarning lowers the warning level to halfway between a fair
// share (1) and maxSkew when the configured level is out of reach: with
// RF 2 on 3 nodes a hot key's replicas reach 1.5× at most on writes.
func effectiveWarning(th Thresholds, tn *tableNode, write bool) float64 {
	return min(th.HotRangeRatioWarning, 1+(maxSkew(tn, write)-1)/2)
}

// ruleHotTokenRange: a node whose share of a table's local reads or writes
// in its group (DC) is far above its share by effective ownership, over the
// traffic window. The counts are local read commands (pages, digest reads,
// read repair) and partition updates per replica, since the node started:
// a window across a restart is unknown (the counter went back), and which
// replica serves a read is also the driver's and the snitch's choice. One
// finding per table and DC, the hot nodes inside. Groups under the traffic floor, with a replica that did
// not report, or where a node holds all data (routing, not placement, then
// decides its share) have no skew and no finding.
func ruleHotTokenRange(a *analysis) []finding.Finding {
	var out []finding.Finding
	for _, t := range a.tables {
		for _, tn := range t.nodes {
			type side struct {
				write            bool
				skew, share, thr float64
				rate, group      float64
				sev              finding.Severity
			}
			sides := []side{
				{false, tn.readSkew, tn.readShare, effectiveWarning(a.th, tn, false), tn.readRate, tn.groupRead, finding.SeverityNone},
				{true, tn.writeSkew, tn.writeShare, effectiveWarning(a.th, tn, true), tn.writeRate, tn.groupWrite, finding.SeverityNone},
			}
			worst := -1
			for i := range sides {
				s := &sides[i]
				if s.skew <= 0 || s.thr <= 1 {
					continue
				}
				s.sev = severityFor(s.skew, s.thr, a.th.HotRangeRatioCritical)
				if s.sev == finding.SeverityNone {
					continue
				}
				if worst < 0 || s.sev > sides[worst].sev || (s.sev == sides[worst].sev && s.skew/s.thr > sides[worst].skew/sides[worst].thr) {
					worst = i
				}
			}
			if worst < 0 {
				continue
			}
			s := sides[worst]
			op := "reads"
			if s.write {
				op = "writes"
			}
			f := a.newFinding(KindHotTokenRange, s.sev, tn.node, t.keyspace, t.name)
			f.Value, f.Threshold, f.Unit = s.skew, thresholdFor(s.sev, s.thr, a.th.HotRangeRatioCritical), finding.UnitRatio
			f.Figures = &finding.Figures{Share: s.share, FairShare: tn.owns / tn.groupOwns}
			f.Source = joinSources(a.trafficSource(), "system.local,system.peers")
			where := tn.node.DC
			if index.PlacementGroup(t.ks.repl, tn.node) == "" {
				where = "the ring"
			}
			f.Summary = fmt.Sprintf("%s serves %s of %s's local %s in %s (%s of %s) for a %s share by effective ownership: %.1f× its fair share",
				tn.node.Address, format.Percent(s.share), t.key, op, where, format.Rate(s.rate), format.Rate(s.group),
				format.Percent(tn.owns/tn.groupOwns), s.skew)
			if peers := hotPeers(t, tn, s.write, s.thr); len(peers) > 0 {
				f.Summary += "; its replica set " + strings.Join(peers, ", ") + " is hot too"
			}
			f.Advice = hotRanges{a}.hotRangeAdvice(t, tn, op)
			out = append(out, f)
		}
	}
	return out
}

// hotPeers are the other nodes of the group over the same threshold.
func hotPeers(t *tableView, self *tableNode, write bool, thr float64) []string {
	var out []string
	for _, tn := range t.nodes {
		if tn == self || tn.node.DC != self.node.DC {
			continue
		}
		skew := tn.readSkew
		if write {
			skew = tn.writeSkew
		}
		if skew >= thr {
			out = append(out, fmt.Sprintf("%s (%.1f×)", tn.node.Address, skew))
		}
	}
	return out
}

func (a hotRanges) hotRangeAdvice(t *tableView, tn *tableNode, op string) string {
	var sampled []string
	for _, hk := range a.hot[t.key] {
		if len(sampled) == 3 {
			break
		}
		sampled = append(sampled, fmt.Sprintf("%s %s", hk.key, format.Percent(hk.share)))
	}
	advice := ""
	if len(sampled) > 0 {
		advice = "sampled hottest keys: " + strings.Join(sampled, ", ") + "; "
	} else if a.s.Engine == model.EngineScyllaDB {
		advice = fmt.Sprintf("find the key: GET /storage_service/toppartitions/?table_filters=%s:%s&duration=10000 on %s; ", t.keyspace, t.name, tn.node.Address)
	} else {
		advice = fmt.Sprintf("find the key: nodetool -h %s toppartitions %s %s 10000 (or profileload); ", tn.node.Address, t.keyspace, t.name)
	}
	advice += fmt.Sprintf("one hot key: give it suffix buckets (see hot_partition); many keys in one range: even out the range's tokens (%s owns %s of %s)",
		tn.node.Address, format.Percent(tn.owns), t.keyspace)
	if op == "reads" && tn.groupOwns > 1.0001 {
		advice += "; reads concentrated on one replica of a key: make sure drivers use token-aware routing with replica shuffling"
	}
	return advice
}

// hotRanges is the hot_token_range rule's own reasoning over the index.
type hotRanges struct{ *analysis }

// KindHotTokenRange names the hot_token_range findings.
const KindHotTokenRange = "hot_token_range"

func init() {
	registerKind(4, KindFacts{Name: KindHotTokenRange, Label: "hot token range",
		Sentence:   "One node serves more of the table's local operations than its share of the data warrants.",
		MultipleOf: "fair share",
		scope:      scopeGroup, rule: ruleHotTokenRange})
}

// The thresholds the rule reads, each declared once, here, with why
// (thresholds.go: their check, unit and series).
func init() {
	registerThresholds([]thresholdSpec{
		// Twice the fair share by ownership (the design's traffic skew
		// default); four times is a replica set doing the work of four.
		{key: "hot_range_ratio_warning", unit: thresholdRatio, check: mustBeAboveOne, def: 2, bound: true, notAbove: []string{"hot_range_ratio_critical"},
			tableNodeFigure: trafficSkewFigure, readBy: []string{KindHotTokenRange, KindHotPartition, "PartmonHotTokenRange"}},
		{key: "hot_range_ratio_critical", unit: thresholdRatio, check: mustBeAboveOne, def: 4, bound: true,
			tableNodeFigure: trafficSkewFigure, readBy: []string{KindHotTokenRange, "PartmonHotTokenRange"}},
	})
}

// trafficSkewFigure is what PartmonHotTokenRange compares with the hot
// range thresholds: partmon_table_traffic_skew_ratio.
func trafficSkewFigure(t Thresholds, tn *TableNode) float64 { return t.TrafficSkewFigure(tn) }

// TrafficSkewFigure is the partmon_table_traffic_skew_ratio a table node
// publishes: the larger of its read and write skews, each counted only
// where the node itself serves at least the traffic floor of that
// operation over the window the skew is measured on. A near-idle
// replica's skew is noise to an alert; with this floor in the series,
// PartmonHotTokenRange needs no rate over every table's counters in the
// store (make scale, docs/scale.md).
func (t Thresholds) TrafficSkewFigure(tn *TableNode) float64 {
	var skew float64
	if tn.ReadRate >= t.TrafficFloorOpsPerSecond {
		skew = tn.ReadSkew
	}
	if tn.WriteRate >= t.TrafficFloorOpsPerSecond {
		skew = math.Max(skew, tn.WriteSkew)
	}
	return skew
}
