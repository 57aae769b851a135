package analyzer

import (
	"fmt"
	"sort"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/model"
)

// diskGuardrail is the guardrail a node's data disk is measured against
// (docs/sources.md#data-disk): the one that refuses every write.
const diskGuardrail = "data_disk_usage_percentage"

// diskCrossings measures each node whose data directories were read (the
// data_disk source) against its own data_disk_usage_percentage levels, as
// its DiskUsageMonitor does: used ÷ (used + usable, capped by
// data_disk_usage_max_disk_size), rounded up to a whole percent, crossed
// when above the level. The forecast fits the used bytes over time and
// aims at the bytes where the level is passed; a rise under 1 % of the
// disk (the guardrail's own step) is no growth.
func (a dataDiskGuardrail) diskCrossings(gr *GuardrailReport) []GuardrailCrossing {
	facts, _ := model.GuardrailFactsOf(diskGuardrail)
	hosts := make([]string, 0, len(a.s.PerNode))
	for host, nd := range a.s.PerNode {
		if nd != nil && nd.DataDisk != nil {
			hosts = append(hosts, host)
		}
	}
	sort.Strings(hosts)
	minSpan := int64(a.th.ForecastMinSpan.Seconds())
	var out []GuardrailCrossing
	for _, host := range hosts {
		nd := a.s.PerNode[host]
		maxSize, _ := model.DataDiskMaxSize(nd.Settings)
		total := nd.DataDisk.TotalBytes(maxSize)
		if total <= 0 {
			continue
		}
		addr := nd.Address
		if n := a.byHost[host]; n != nil {
			addr = n.Address
		}
		ts, vs := tableSeries(a.diskPointsNow(host, nd))
		used := float64(nd.DataDisk.UsedBytes)
		for _, lv := range [][2]string{{"warn", facts.Warn}, {"fail", facts.Fail}} {
			pct, set := model.ParseGuardrailValue(nd.Settings[lv[1]], model.UnitPercent)
			if !set {
				continue
			}
			c := GuardrailCrossing{Node: addr, Guardrail: diskGuardrail, Level: lv[0], Threshold: pct,
				Current: model.DiskUsagePercent(used, total)}
			if lv[0] == "fail" && gr.Clients != "not guarded" {
				c.Refuses = facts.Refuses
			}
			c.Fraction, c.Crossed = c.Current/pct, c.Current > pct
			if !c.Crossed {
				c.At, c.Earliest, c.Latest, c.Why = forecastCrossing(ts, vs, pct/100*total, a.now, a.th.ForecastMinPoints, minSpan,
					total/100, "no growth of the data directories in their history (a fitted rise must exceed 1 % of the disk)")
			}
			out = append(out, c)
		}
	}
	return out
}

// diskCrossingFindings grades each node's most urgent disk crossing as
// ruleGuardrailCrossing grades a partition's: critical when a fail level
// that refuses writes (authentication on) is crossed or forecast within
// GuardrailFailLead. The findings of all nodes fold into one problem.
func (a dataDiskGuardrail) diskCrossingFindings(gr *GuardrailReport) []finding.Finding {
	var out []finding.Finding
	best := map[string]int{}
	for i := range gr.Crossings {
		c := &gr.Crossings[i]
		if c.Node == "" {
			continue
		}
		s, left := guardrails{a.analysis}.crossingSeverity(c)
		if s == finding.SeverityNone {
			continue
		}
		if j, seen := best[c.Node]; seen && (out[j].Severity > s || (out[j].Severity == s && out[j].Value <= left)) {
			continue
		}
		f := a.newFinding(KindGuardrailCrossing, s, a.nodeByAddress(c.Node), "", "")
		f.Value, f.Unit = left, finding.UnitSeconds
		f.Threshold = a.th.GuardrailWarnLead.Seconds()
		if s == finding.SeverityCritical {
			f.Threshold = a.th.GuardrailFailLead.Seconds()
		}
		f.Source = joinSources(history.DataDiskSource, "system_views.settings", "disk history")
		f.Summary = diskCrossingSummary(c, a.now)
		f.Advice = "free space on the data disk (nodetool clearsnapshot: snapshots count; nodetool cleanup after a topology change), " +
			"add disk or nodes, expire data with a TTL, or raise the threshold or data_disk_usage_max_disk_size if the disk has room " +
			"(docs/runbooks/PartmonAnalyzerFinding.md, guardrail_crossing)"
		if j, seen := best[c.Node]; seen {
			out[j] = f
		} else {
			best[c.Node] = len(out)
			out = append(out, f)
		}
	}
	return out
}

// nodeByAddress is the ring's node at address; a bare node when the ring
// does not have it.
func (a dataDiskGuardrail) nodeByAddress(addr string) *model.Node {
	for _, n := range a.byHost {
		if n.Address == addr {
			return n
		}
	}
	return &model.Node{Address: addr}
}

func diskCrossingSummary(c *GuardrailCrossing, now int64) string {
	consequence := "Cassandra marks the node STUFFED and warns the clients that write to it"
	if c.Level == "fail" {
		consequence = "Cassandra marks the node FULL, and refuses no write: without authentication every client is a superuser, never guarded"
	}
	if c.Refuses != "" {
		consequence = "it will refuse " + c.Refuses + ", for every role that is not a superuser"
	}
	head := fmt.Sprintf("the data disk of %s is %.0f %% used as Cassandra counts it (without memtables), guardrail %s's %s threshold is %.0f %%",
		c.Node, c.Current, c.Guardrail, c.Level, c.Threshold)
	if c.Crossed {
		return head + ": crossed; " + consequence
	}
	when, in, rng := crossingForecast(c, now)
	return fmt.Sprintf("%s: forecast to cross on %s, in %s (%s; up to the memtables' size sooner); then %s", head, when,
		in, rng, consequence)
}

// dataDiskGuardrail is the data-disk guardrail's crossings and rule over the index.
type dataDiskGuardrail struct{ *analysis }
