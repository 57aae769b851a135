package analyzer

import "github.com/partmon/partmon/model"

// rule finds one kind of problem.
type rule func(*analysis) []Finding

// Analyze turns a snapshot and the history of earlier ones into a report.
// It is pure: it reads s and h and changes neither (call h.Record(s) before
// or after; points at s's own time are not counted twice). Generated is the
// snapshot's time; a caller that wants the wall clock sets it. Invalid
// thresholds are replaced by the defaults, with a note.
func Analyze(s *model.Snapshot, h *History, th Thresholds) *Report {
	if s == nil {
		return &Report{Notes: []string{"no snapshot to analyze"}}
	}
	var notes []string
	if err := th.Validate(); err != nil {
		notes = append(notes, "invalid thresholds, defaults used: "+err.Error())
		th = DefaultThresholds()
	}
	if h == nil {
		h = NewHistory(HistoryLimits{})
	}
	a := newAnalysis(s, h, th)
	r := &Report{
		Thresholds:    th,
		Generated:     s.Taken,
		Taken:         s.Taken,
		Cluster:       s.Cluster,
		Engine:        s.Engine,
		Version:       s.Version,
		Nodes:         a.nodeSummaries(),
		Ownership:     a.ownershipFigures(),
		Tables:        a.tableSummaries(),
		TableNodes:    a.tableNodes(),
		TopPartitions: a.topPartitions(),
		Sources:       append([]model.SourceStatus(nil), s.Sources...),
		SizeHistory:   a.sizeHistories(),
		Placements:    a.placements(),
	}
	var all []Finding
	for _, k := range kinds {
		if k.rule != nil {
			all = append(all, k.rule(a)...)
		}
	}
	for _, f := range fold(all) {
		f.ID = findingID(&f)
		if f.remark {
			r.Remarks = append(r.Remarks, f)
		} else {
			r.Findings = append(r.Findings, f)
		}
	}
	sortFindings(r.Findings)
	sortFindings(r.Remarks)
	r.Problems = groupProblems(r.Findings)
	r.Heat = a.heatMaps(r.Findings)
	r.Notes = append(notes, a.notes...)
	return r
}

// tableSummaries fills Report.Tables.
func (a *analysis) tableSummaries() []TableSummary {
	out := make([]TableSummary, 0, len(a.tables))
	crit := float64(a.th.PartitionCriticalBytes)
	for _, t := range a.tables {
		ts := TableSummary{
			Keyspace:           t.keyspace,
			Table:              t.name,
			MaxPartitionBytes:  t.maxBytes,
			MeanPartitionBytes: int64(t.meanBytes),
			PartitionsEstimate: int64(t.partitions),
			ReadRate:           t.readRate,
			WriteRate:          t.writeRate,
			SecondsToCritical:  t.growth.secondsTo(crit),
		}
		if t.growth.ok {
			ts.GrowthBytesPerSecond = t.growth.slope
		}
		out = append(out, ts)
	}
	return out
}

// tableNodes fills Report.TableNodes.
func (a *analysis) tableNodes() []TableNode {
	n := 0
	for _, t := range a.tables {
		n += len(t.nodes)
	}
	out := make([]TableNode, 0, n)
	for _, t := range a.tables {
		for _, tn := range t.nodes {
			out = append(out, TableNode{
				Keyspace:   t.keyspace,
				Table:      t.name,
				HostID:     tn.node.HostID,
				Node:       tn.node.Address,
				DC:         tn.node.DC,
				Rack:       tn.node.Rack,
				TableStats: *tn.stats,
				ReadSkew:   tn.readSkew,
				WriteSkew:  tn.writeSkew,
			})
		}
	}
	return out
}
