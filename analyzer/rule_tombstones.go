package analyzer

import (
	"fmt"
	"sort"
	"strings"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/internal/format"
	"github.com/partmon/partmon/model"
)

// perReadSource names the per-read histograms.
func (a *analysis) perReadSource() string {
	if a.s.Engine == model.EngineScyllaDB {
		return "rest:tombstone_scanned_histogram,rest:live_scanned_histogram"
	}
	return "system_views.tombstones_per_read,system_views.rows_per_read"
}

// tombstoneRatio is p99 tombstones ÷ (p99 tombstones + p99 live rows). The
// histograms are separate, so this is a ratio of two tails, not the p99 of
// a per-read ratio; ok is false below minPerRead tombstones, where the ratio
// says nothing about cost.
func tombstoneRatio(ts *model.TableStats, minPerRead float64) (float64, bool) {
	t, l := ts.TombstonesPerRead.P99, ts.RowsPerRead.P99
	if t <= 0 || t < minPerRead {
		return 0, false
	}
	return t / (t + max(l, 0)), true
}

// ruleTombstoneHeavy: per table per node, tombstones scanned per read
// (p99) and the tombstone ratio; per key, the partitions that
// top_partitions (TOMBSTONES) or large_partitions (dead rows + range
// tombstones) list with at least the per-read warning level. One finding
// per table, its nodes and worst key inside. tombstones_per_read counts,
// per local read command (a page) in the last minutes, non-live cells
// (expired TTL cells included), row deletions and range markers, after
// purgeable ones are dropped; TOMBSTONES counts a full repair's merged
// partition before purging, without expired cells: the two differ by
// design. The ratio divides two independent tails in different units: an
// indicator. ScyllaDB never fills its per-read histograms: there only the
// key lists speak (docs/detection.md "tombstone_heavy").
func ruleTombstoneHeavy(a *analysis) []finding.Finding {
	var out []finding.Finding
	th := a.th
	for _, t := range a.tables {
		from := len(out) // t's findings: the keys of the tables before are not t's
		for _, tn := range t.nodes {
			st := tn.stats
			if st.TombstonesPerRead.Count == 0 {
				continue // no reads: nothing scanned
			}
			p99 := st.TombstonesPerRead.P99
			countSev := severityFor(p99, th.TombstonesPerReadWarning, th.TombstonesPerReadCritical)
			ratio, ratioOK := tombstoneRatio(st, th.TombstoneRatioMinPerRead)
			ratioSev := finding.SeverityNone
			if ratioOK {
				ratioSev = severityFor(ratio, th.TombstoneRatioWarning, th.TombstoneRatioCritical)
			}
			if countSev == finding.SeverityNone && ratioSev == finding.SeverityNone {
				continue
			}
			f := a.newFinding(KindTombstoneHeavy, max(countSev, ratioSev), tn.node, t.keyspace, t.name)
			if countSev >= ratioSev {
				f.Value, f.Threshold, f.Unit = p99, thresholdFor(countSev, th.TombstonesPerReadWarning, th.TombstonesPerReadCritical), finding.UnitTombstones
			} else {
				f.Value, f.Threshold, f.Unit = ratio, thresholdFor(ratioSev, th.TombstoneRatioWarning, th.TombstoneRatioCritical), finding.UnitRatio
			}
			f.Source = a.perReadSource()
			f.Summary = fmt.Sprintf("reads of %s on %s scan %s tombstones at p99 (max %s) for %s live rows at p99",
				t.key, tn.node.Address, format.Count(p99), format.Count(st.TombstonesPerRead.Max), format.Count(st.RowsPerRead.P99))
			if ratioOK {
				f.Summary += fmt.Sprintf(": tombstone ratio %.2f (of the two p99s, not a per-read ratio)", ratio)
			}
			if worst := worstTombstoneKeys(a.keys[t.key], 3); worst != "" {
				f.Summary += "; most tombstones: " + worst
			}
			f.Advice = tombstoneAdvice(t, p99, ratio)
			out = append(out, f)
		}
		for _, e := range a.keys[t.key] {
			v := float64(e.Tombstones)
			sev := severityFor(v, th.TombstonesPerReadWarning, th.TombstonesPerReadCritical)
			if sev == finding.SeverityNone {
				continue
			}
			f := a.newFinding(KindTombstoneHeavy, sev, nil, t.keyspace, t.name)
			f.PartitionKey = e.Key
			f.Value, f.Threshold, f.Unit = v, thresholdFor(sev, th.TombstonesPerReadWarning, th.TombstonesPerReadCritical), finding.UnitTombstones
			f.Source = keyListSources(e.Source)
			f.Summary = fmt.Sprintf("partition %s of %s holds %s tombstones (reported by %s)", e.Key, t.key, format.Count(v), strings.Join(e.Nodes, ", "))
			if e.Rows > 0 {
				f.Summary += fmt.Sprintf(" among %s rows", format.Count(float64(e.Rows)))
			}
			f.Advice = "a full read of this partition scans every one of them until compaction purges them; " + tombstoneAdvice(t, v, 0)
			logEvidence{a}.withLogTombstones(&f, t)
			out = append(out, f)
		}
		out = append(out, logEvidence{a}.logTombstoneFindings(t, findingKeys(out[from:], t))...)
	}
	return out
}

// keyListSources keeps the sources that count tombstones.
func keyListSources(src string) string {
	var keep []string
	for _, s := range strings.Split(src, ",") {
		if s == srcTopPartitions || s == srcLargePartitions {
			keep = append(keep, s)
		}
	}
	return strings.Join(keep, ",")
}

func worstTombstoneKeys(es []*PartitionEntry, n int) string {
	var with []*PartitionEntry
	for _, e := range es {
		if e.Tombstones > 0 {
			with = append(with, e)
		}
	}
	sort.Slice(with, func(i, j int) bool {
		if with[i].Tombstones != with[j].Tombstones {
			return with[i].Tombstones > with[j].Tombstones
		}
		return with[i].Key < with[j].Key
	})
	var parts []string
	for i := 0; i < len(with) && i < n; i++ {
		parts = append(parts, fmt.Sprintf("%s (%s)", with[i].Key, format.Count(float64(with[i].Tombstones))))
	}
	return strings.Join(parts, ", ")
}

// tombstoneAdvice turns the table's gc_grace, TTL and compaction settings
// into the steps that purge tombstones sooner and scan fewer of them.
func tombstoneAdvice(t *tableView, perRead, ratio float64) string {
	var steps []string
	if ratio >= 0.9 {
		steps = append(steps, "reads scan mostly deleted rows (a queue pattern): read from the last consumed clustering key (WHERE id > last) instead of from the start, or delete whole partitions or time buckets instead of single rows")
	}
	if t.schema == nil {
		return strings.Join(append(steps, "tombstones are purged after gc_grace_seconds by a compaction that includes every sstable of the partition"), "; ")
	}
	s := t.schema
	gc := float64(s.GCGraceSeconds)
	steps = append(steps, fmt.Sprintf("tombstones become purgeable after gc_grace_seconds = %s (%s); if repairs finish more often, lower it to the repair interval (e.g. 3 d = 259200)",
		format.Count(gc), format.Seconds(gc)))
	class := s.Compaction["class"]
	short := class[strings.LastIndexByte(class, '.')+1:]
	if ttl := float64(s.DefaultTTLSeconds); ttl > 0 {
		if !strings.Contains(short, "TimeWindow") {
			window := max(3600, ttl/20)
			steps = append(steps, fmt.Sprintf("rows expire after default_time_to_live = %s: TimeWindowCompactionStrategy with %s windows (~TTL/20) drops whole expired sstables", format.Seconds(ttl), format.Seconds(window)))
		}
	} else if short != "" {
		steps = append(steps, fmt.Sprintf("with %s, set unchecked_tombstone_compaction: true and tombstone_threshold: 0.2 so single-sstable compactions purge them", short))
	}
	if perRead > 0 {
		steps = append(steps, fmt.Sprintf("each such read scans %s tombstones; tombstone_warn_threshold is 1,000 and reads fail at tombstone_failure_threshold 100,000", format.Count(perRead)))
	}
	return strings.Join(steps, "; ")
}

// KindTombstoneHeavy names the tombstone_heavy findings.
const KindTombstoneHeavy = "tombstone_heavy"

func init() {
	registerKind(5, KindFacts{Name: KindTombstoneHeavy, Label: "tombstone-heavy reads",
		Sentence:         "Reads scan many deleted rows (tombstones) to return few live ones.",
		PushedWithoutKey: true, RuleAlert: AlertAnalyzerFinding,
		scope: scopeTable, problemOrder: 4, rule: ruleTombstoneHeavy})
}

// The thresholds the rule reads, each declared once, here, with why
// (thresholds.go: their check, unit and series).
func init() {
	registerThresholds([]thresholdSpec{
		// tombstone_warn_threshold is 1,000; tombstone_failure_threshold
		// (100,000) aborts reads, so critical stays ten times below it.
		{key: "tombstones_per_read_warning", unit: thresholdCount, check: mustBePositive, def: 1_000, bound: true, notAbove: []string{"tombstones_per_read_critical"},
			tableNodeFigure: tombstonesP99Figure, readBy: []string{KindTombstoneHeavy, KindGuardrailCrossing, "PartmonTombstoneHeavy"}},
		{key: "tombstones_per_read_critical", unit: thresholdCount, check: mustBePositive, def: 10_000, bound: true,
			tableNodeFigure: tombstonesP99Figure, readBy: []string{KindTombstoneHeavy, "PartmonTombstoneHeavy"}},
		// Guidance: tombstone ratio above 20 %; above half, reads scan more
		// dead than live data.
		{key: "tombstone_ratio_warning", unit: thresholdRatio, check: mustBeFraction, def: 0.2, bound: true, notAbove: []string{"tombstone_ratio_critical"},
			readBy: []string{KindTombstoneHeavy}},
		{key: "tombstone_ratio_critical", unit: thresholdRatio, check: mustBeFraction, def: 0.5, bound: true,
			readBy: []string{KindTombstoneHeavy}},
		{key: "tombstone_ratio_min_per_read", unit: thresholdCount, check: mustNotBeNegative, def: 100, readBy: []string{KindTombstoneHeavy}},
	})
}

// tombstonesP99Figure is what PartmonTombstoneHeavy compares with the
// tombstones-per-read thresholds: partmon_table_tombstones_per_read_p99.
func tombstonesP99Figure(_ Thresholds, tn *TableNode) float64 { return tn.TombstonesPerRead.P99 }
