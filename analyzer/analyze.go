package analyzer

import (
	"github.com/partmon/partmon/analyzer/figures"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/analyzer/index"
	"github.com/partmon/partmon/analyzer/scope"
	"github.com/partmon/partmon/model"
)

// rule finds one kind of problem.
type rule func(*analysis) []finding.Finding

// Analyze records s into h, then turns s and the history of earlier
// snapshots into a report: recording and analyzing are one call, so the
// history a report is judged by always holds its own snapshot (recording
// the same snapshot again changes nothing). It changes nothing but h, and
// h not at all when it is nil. Generated is the snapshot's time; a caller
// that wants the wall clock sets it. Invalid
// thresholds are replaced by the defaults, with a note. It does not panic:
// each rule and each step runs behind a recover (rule_failures.go), and one that
// fails is a RuleFailure and a note, the rest of the report standing.
func Analyze(s *model.Snapshot, h *history.History, th Thresholds) *Report {
	if s == nil {
		return &Report{Notes: []string{"no snapshot to analyze"}}
	}
	var notes []string
	if err := th.Validate(); err != nil {
		notes = append(notes, "invalid thresholds, defaults used: "+err.Error())
		th = DefaultThresholds()
	}
	if h == nil {
		h = history.New(history.Limits{})
	}
	r := &Report{
		Thresholds: th,
		Generated:  s.Taken,
		Taken:      s.Taken,
		Cluster:    s.Cluster,
		Engine:     s.Engine,
		Version:    s.Version,
		Sources:    append([]model.SourceStatus(nil), s.Sources...),
	}
	var fs failures
	var ix *index.Index
	indexed := fs.step(StepIndex, "no figure and no finding", func() { ix = index.Of(s, scope.Of(s)) })
	if indexed {
		h.RecordIndexed(ix) // the rules' own index: the snapshot is walked once
	}
	var a *analysis
	if indexed && fs.step(StepIndex, "no figure and no finding", func() { a = indexedAnalysis(ix, h, th); a.noteWithoutSchema() }) {
		fs.step(StepSummaries, "some node, table or key figures are missing", func() { viewFigures{a}.summarize(r) })
		all := pipeline{a}.runRules(&fs)
		fs.step(StepFold, "no finding", func() { pipeline{a}.fold(r, all) })
		fs.step(StepHeatMap, "no heat map", func() { r.Heat = figures.HeatMapsOf(a.ix, a.h, viewFigures{a}.heatInput(r.Findings)) })
		notes = append(notes, a.notes...)
	}
	r.Notes = append(notes, fs.notes...)
	r.RuleFailures = fs.list
	return r
}

// summarize fills the report's figures (everything but findings).
func (a viewFigures) summarize(r *Report) {
	r.Nodes = figures.Nodes(a.ix)
	r.Ownership = figures.Owners(a.ix)
	r.Tables = a.tableSummaries()
	r.TableNodes = a.tableNodes()
	r.TopPartitions = a.topPartitions()
	r.SizeHistory = a.sizeHistories()
	r.Placements = figures.Placements(a.ix)
	r.Guardrails = guardrails{a.analysis}.guardrailView()
	r.KeyHistory = figures.KeyHistories(a.ix, a.h)
}

// fold folds the rules' findings into the report's findings, remarks and
// problems; nothing of it when a step fails.
func (a pipeline) fold(r *Report, all []finding.Finding) {
	a.nameViewBases(all)
	var findings, remarks []finding.Finding
	for _, f := range fold(all) {
		nameID(&f)
		if f.Remark {
			remarks = append(remarks, f)
		} else {
			findings = append(findings, f)
		}
	}
	sortFindings(findings)
	sortFindings(remarks)
	problems := groupProblems(findings)
	r.Findings, r.Remarks, r.Problems = findings, remarks, problems
}

// tableSummaries fills Report.Tables.
func (a viewFigures) tableSummaries() []TableSummary {
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
func (a viewFigures) tableNodes() []TableNode {
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
				ReadRate:   tn.readRate,
				WriteRate:  tn.writeRate,
				ReadSkew:   tn.readSkew,
				WriteSkew:  tn.writeSkew,
			})
		}
	}
	return out
}
