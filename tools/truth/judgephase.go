package truth

import (
	"fmt"
	"slices"
)

// judge sorts one partmon run's findings: each scenario's against its
// truth, the rest (cluster-wide kinds, other keyspaces) against nodetool;
// then checks every finding's figures.
func (r *runner) judge(phase string, rep *Report, obs *Observations) PhaseResult {
	res := PhaseResult{Cluster: r.c.Name, Phase: phase}
	byKS := map[string]*Scenario{}
	for _, sc := range r.scs {
		byKS[sc.Keyspace] = sc
	}
	groups := map[string][]Finding{}
	var outside []Finding
	for _, f := range rep.Findings {
		if byKS[f.Keyspace] != nil {
			groups[f.Keyspace] = append(groups[f.Keyspace], f)
		} else {
			outside = append(outside, f)
		}
	}
	for _, sc := range r.scs {
		exp, judged := r.truth.judgeScenario(sc, phase, groups[sc.Keyspace], rep.Notes)
		res.Expected = append(res.Expected, exp...)
		res.Findings = append(res.Findings, judged...)
	}
	res.Unknowns = unknownNotes(r.scs, phase, rep.Notes)
	for i := range res.Expected {
		if !res.Expected[i].Found {
			res.Expected[i].Evidence = r.evidence(&res.Expected[i], obs)
		}
	}
	for i := range res.Findings {
		j := &res.Findings[i]
		fc, minRow := r.figureContext(byKS[j.Keyspace], &j.Finding, obs)
		j.Contradictions = contradictions(&j.Finding, fc.truthRows, minRow, partmonMaxBytes(rep, &j.Finding))
		res.Figures = append(res.Figures, checkFigures(&j.Finding, fc)...)
	}
	for _, f := range outside {
		fc := figureContext{obs: obs, hosts: r.c.Hosts, dc: r.c.DC}
		checks := checkFigures(&f, fc)
		res.Figures = append(res.Figures, checks...)
		j := Judged{Finding: f}
		j.Verdict, j.Why = judgeOutside(&f, checks)
		j.Contradictions = contradictions(&f, 0, 0, 0)
		res.Findings = append(res.Findings, j)
	}
	sortJudged(res.Findings)
	res.Ownership = checkOwnership(r.scs, rep.Ownership, obs.Status, rep.Findings)
	for _, s := range rep.Sources {
		if s.State == "error" {
			res.SourceErrors = append(res.SourceErrors, fmt.Sprintf("%s on %s: %s", s.Source, orCluster(s.Node), s.Error))
		}
	}
	return res
}

func orCluster(node string) string {
	if node == "" {
		return "(cluster)"
	}
	return node
}

// judgeOutside judges a finding on no corpus keyspace. Skews are true when
// nodetool measures the same skew at the finding's threshold (5 % slack for
// nodetool's rounding); stale data is false on a run where every node
// stayed up; anything else is outside the truth.
func judgeOutside(f *Finding, checks []FigureCheck) (string, string) {
	switch f.Kind {
	case "ownership_skew", "load_skew":
		if len(checks) == 0 {
			return VerdictOutside, "nodetool has no figure for it"
		}
		for _, c := range checks {
			if f.Threshold > 0 && c.Reference < 0.95*f.Threshold {
				return VerdictFalse, fmt.Sprintf("nodetool measures %.2f on %s, below the threshold %.2f", c.Reference, c.Node, f.Threshold)
			}
		}
		return VerdictAllowed, "nodetool measures the same skew"
	case "stale_data":
		if rank(f.Severity) > rank("info") {
			return VerdictFalse, "every node stayed up and answered during the run"
		}
	}
	return VerdictOutside, ""
}

// figureContext gathers what the truth knows of the finding's table.
func (r *runner) figureContext(sc *Scenario, f *Finding, obs *Observations) (figureContext, int64) {
	fc := figureContext{obs: obs, hosts: r.c.Hosts, dc: r.c.DC}
	if sc == nil {
		return fc, 0
	}
	fc.replicas = replicaCount(sc.Replication)
	l := r.tables[sc.Keyspace+"."+f.Table]
	if l == nil {
		return fc, 0
	}
	fc.truthParts = int64(l.t.Partitions)
	fc.cellsOfRow = len(l.gen.schema.Regular)
	for p := range l.next {
		fc.truthRows = max(fc.truthRows, l.next[p].Load()-l.head[p].Load())
	}
	return fc, int64(l.gen.MinRowBytes())
}

// partmonMaxBytes is partmon's own largest-partition figure for the
// finding's table on its nodes (on every node when it names none).
func partmonMaxBytes(rep *Report, f *Finding) int64 {
	nodes := f.AllNodes()
	var best int64
	for _, tn := range rep.TableNodes {
		if tn.Keyspace == f.Keyspace && tn.Table == f.Table && (len(nodes) == 0 || slices.Contains(nodes, tn.Node)) {
			best = max(best, tn.MaxPartitionBytes)
		}
	}
	return best
}

// evidence says what nodetool measured of a planted problem partmon
// missed, on the truth's nodes (every node when the truth names none).
func (r *runner) evidence(e *ExpectResult, obs *Observations) []string {
	nodes := e.Nodes
	if len(nodes) == 0 {
		nodes = r.c.Hosts
	}
	tk := e.Keyspace + "." + e.Table
	var out []string
	for _, n := range nodes {
		st, ok := obs.Stats[n][tk]
		if !ok && e.Table != "" {
			continue
		}
		switch e.Kind {
		case "oversized_partition", "unbucketed_time_series", "partition_growth_forecast":
			out = append(out, fmt.Sprintf("%s: tablestats compacted partition maximum %d bytes", n, st.MaxPartitionBytes))
		case "wide_partition":
			h := obs.Histograms[n][tk]
			out = append(out, fmt.Sprintf("%s: tablestats compacted partition maximum %d bytes, maximum live rows per slice %.0f; tablehistograms max cell count %.0f",
				n, st.MaxPartitionBytes, st.MaxLiveRowsPerSlice, h.Cells.Max))
		case "tombstone_heavy":
			out = append(out, fmt.Sprintf("%s: tablestats maximum tombstones per slice %.0f, maximum live rows per slice %.0f", n, st.MaxTombstonesPerSlice, st.MaxLiveRowsPerSlice))
		case "hot_partition":
			if p, ok := obs.Profiles[n][tk]; ok {
				share, total := p.Share(e.Key, true, true)
				out = append(out, fmt.Sprintf("%s: nodetool profileload: key %q has %.0f %% of %d sampled operations", n, e.Key, 100*share, total))
			}
		case "hot_token_range":
			f := Finding{Kind: e.Kind, Keyspace: e.Keyspace, Table: e.Table}
			if ratio, src, ok := trafficRatio(&f, n, figureContext{obs: obs, hosts: r.c.Hosts, dc: r.c.DC}); ok {
				out = append(out, fmt.Sprintf("%s: %.2f× its fair share: %s", n, ratio, src))
			}
		case "ownership_skew":
			if skew, ok := ownershipSkew(obs.Status[e.Keyspace], n); ok {
				out = append(out, fmt.Sprintf("%s: nodetool status %s: %.2f× its fair share", n, e.Keyspace, skew))
			}
		}
	}
	return out
}
