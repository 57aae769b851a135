package analyzer

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/analyzer/internal/set"
	"github.com/partmon/partmon/internal/format"
	"github.com/partmon/partmon/model"
)

// The partitions Cassandra names in its own warnings (the logs source,
// docs/logs.md): sizes and tombstones written to sstables, tombstones read,
// aborted and slow reads. They name keys without repair (top_partitions)
// or a JMX sampler.

// minSlowReads: fewer slow reports of one key are not "repeated": one slow
// read can be a GC pause or a cold cache.
const minSlowReads = 3

// logSeen is one key's evidence of one kind on one node.
type logSeen struct {
	node string // address
	ev   model.LogEvidence
}

// logsOf is every node's log evidence naming one of t's keys, in the
// nodes' host ID order. The index is built once per analysis: looking
// through every node's evidence per table node cost nodes² × entries.
func (a logEvidence) logsOf(t *tableView) []logSeen {
	if a.logIdx == nil {
		a.logIdx = map[string][]logSeen{}
		for _, at := range a.perNode() {
			for _, e := range at.nd.LogEvidence {
				if e.Key != "" {
					tk := model.TableKey(e.Keyspace, e.Table)
					a.logIdx[tk] = append(a.logIdx[tk], logSeen{node: at.addr, ev: e})
				}
			}
		}
	}
	return a.logIdx[t.key]
}

// logKeys lists the evidence of t's keys of the given kinds, key first, then
// node; evidence naming only a token (a range read) is left out: it names
// no key to act on.
func (a logEvidence) logKeys(t *tableView, kinds ...model.LogEvidenceKind) map[string][]logSeen {
	out := map[string][]logSeen{}
	for _, s := range a.logsOf(t) {
		for _, k := range kinds {
			if s.ev.Kind == k {
				out[s.ev.Key] = append(out[s.ev.Key], s)
				break
			}
		}
	}
	return out
}

// seenWhereWhen says where and when the logs named a key: "Cassandra's log
// on 127.0.0.1 (system_views.system_logs) 3 times, 12:01:02 to 12:31:00 UTC,
// 5 min before this report".
func (a logEvidence) seenWhereWhen(seen []logSeen) string {
	var nodes, wheres []string
	var count int64
	first, last := seen[0].ev.First, seen[0].ev.Last
	for _, s := range seen {
		nodes = set.AddSorted(nodes, s.node)
		wheres = set.AddSorted(wheres, s.ev.Where)
		count += s.ev.Count
		if s.ev.First.Before(first) {
			first = s.ev.First
		}
		if s.ev.Last.After(last) {
			last = s.ev.Last
		}
	}
	times := "once"
	if count > 1 {
		times = fmt.Sprintf("%s times", format.Count(float64(count)))
	}
	when := last.UTC().Format("2006-01-02 15:04:05 UTC")
	if from := first.UTC().Format("2006-01-02 15:04:05"); count > 1 && from+" UTC" != when {
		when = from + " to " + when
	}
	ago := ""
	if d := a.s.Taken.Sub(last); d > 0 {
		ago = ", last " + format.SecondsWords(d.Round(time.Second).Seconds()) + " before this report"
	}
	return fmt.Sprintf("logged by %s (%s) %s, %s%s", strings.Join(nodes, ", "), strings.Join(wheres, ", "), times, when, ago)
}

// logSource is the finding source for evidence read from where.
func logSource(seen []logSeen) string {
	var out []string
	for _, s := range seen {
		w := s.ev.Where
		if w != "system_views.system_logs" {
			w = "log:" + filepath.Base(w)
		}
		out = append(out, w)
	}
	return joinSources(out...)
}

// noteLogSizes makes the largest key the logs measured on tn the node's
// largest key when it is larger than what the key lists said.
func (a logEvidence) noteLogSizes(t *tableView, tn *tableNode) []logSeen {
	var best []logSeen
	for _, s := range a.logsOf(t) {
		if s.ev.Kind != model.LogPartitionSize || s.node != tn.node.Address {
			continue
		}
		key := s.ev.Key
		if s.ev.Value >= a.th.PartitionWarningBytes && key != tn.largestKey {
			tn.largeKeys++
		}
		if s.ev.Value > tn.largestKeyBytes || (s.ev.Value == tn.largestKeyBytes && key < tn.largestKey) {
			tn.largestKey, tn.largestKeyBytes, tn.largestSource = key, s.ev.Value, logSource([]logSeen{s})
			best = []logSeen{s}
		}
	}
	return best
}

// logSizeNote says how the logs measured the key (the oversized summary).
func (a logEvidence) logSizeNote(seen []logSeen) string {
	if len(seen) == 0 {
		return ""
	}
	e := seen[0].ev
	// Only 5.0's guardrail message states its threshold; 4.x's compaction
	// warning does not.
	by := "Cassandra's \"Writing large partition\" warning (compaction_large_partition_warning_threshold)"
	if e.Threshold > 0 {
		by = fmt.Sprintf("the partition_size guardrail (threshold %s)", format.Bytes(float64(e.Threshold)))
	}
	return fmt.Sprintf(" (as written to one sstable, reported by %s, %s)", by, a.seenWhereWhen(seen))
}

// logTombstones is what the logs say about one key's tombstones.
type logTombstones struct {
	most     int64 // most tombstones one read scanned or one sstable held
	live     int64 // live rows of the read that scanned most
	aborted  bool
	readSeen []logSeen
	allSeen  []logSeen
}

func (a logEvidence) tombstoneKeys(t *tableView) map[string]*logTombstones {
	out := map[string]*logTombstones{}
	for key, seen := range a.logKeys(t, model.LogTombstoneWarning, model.LogTombstoneAbort, model.LogPartitionTombstones) {
		lt := &logTombstones{allSeen: seen}
		for _, s := range seen {
			if s.ev.Value > lt.most {
				lt.most, lt.live = s.ev.Value, s.ev.LiveRows
			}
			if s.ev.Kind != model.LogPartitionTombstones {
				lt.readSeen = append(lt.readSeen, s)
			}
			lt.aborted = lt.aborted || s.ev.Kind == model.LogTombstoneAbort
		}
		out[key] = lt
	}
	return out
}

// logTombstoneFinding is the per-key tombstone_heavy finding the logs give;
// ok is false below the thresholds. An aborted read is critical whatever
// the count.
func (a logEvidence) logTombstoneFinding(t *tableView, key string, lt *logTombstones) (finding.Finding, bool) {
	th := a.th
	v := float64(lt.most)
	sev := severityFor(v, th.TombstonesPerReadWarning, th.TombstonesPerReadCritical)
	if lt.aborted {
		sev = finding.SeverityCritical
	}
	if sev == finding.SeverityNone {
		return finding.Finding{}, false
	}
	f := a.newFinding(KindTombstoneHeavy, sev, nil, t.keyspace, t.name)
	f.PartitionKey = key
	f.Value, f.Threshold, f.Unit = v, thresholdFor(sev, th.TombstonesPerReadWarning, th.TombstonesPerReadCritical), finding.UnitTombstones
	f.Source = logSource(lt.allSeen)
	f.Summary = fmt.Sprintf("partition %s of %s: %s", key, t.key, a.logTombstoneNote(lt))
	f.Advice = "every read of this partition scans its tombstones until compaction purges them; " + tombstoneAdvice(t, v, 0)
	if lt.aborted {
		f.Advice = "reads of this partition fail now (tombstone_failure_threshold): " + f.Advice
	}
	return f, true
}

// logTombstoneNote describes the key's tombstone evidence in words.
func (a logEvidence) logTombstoneNote(lt *logTombstones) string {
	var parts []string
	if lt.aborted {
		parts = append(parts, "a read was aborted at tombstone_failure_threshold")
	}
	if len(lt.readSeen) > 0 {
		parts = append(parts, fmt.Sprintf("reads scanned up to %s tombstones (with %s live rows), %s",
			format.Count(float64(maxValue(lt.readSeen))), format.Count(float64(lt.live)), a.seenWhereWhen(lt.readSeen)))
	}
	if w := written(lt.allSeen); len(w) > 0 {
		parts = append(parts, fmt.Sprintf("an sstable write held %s tombstones in it, %s",
			format.Count(float64(maxValue(w))), a.seenWhereWhen(w)))
	}
	return strings.Join(parts, "; ")
}

func written(seen []logSeen) []logSeen {
	var out []logSeen
	for _, s := range seen {
		if s.ev.Kind == model.LogPartitionTombstones {
			out = append(out, s)
		}
	}
	return out
}

func maxValue(seen []logSeen) int64 {
	var m int64
	for _, s := range seen {
		m = max(m, s.ev.Value)
	}
	return m
}

// logTombstoneFindings: the keys the logs name with many tombstones that
// the key lists did not already report (done).
func (a logEvidence) logTombstoneFindings(t *tableView, done map[string]bool) []finding.Finding {
	keys := a.tombstoneKeys(t)
	var out []finding.Finding
	for _, key := range set.Keys(keys) {
		if done[key] {
			continue
		}
		if f, ok := a.logTombstoneFinding(t, key, keys[key]); ok {
			out = append(out, f)
		}
	}
	return out
}

// withLogTombstones adds the logs' word on a key the key lists reported to
// its finding, raising it to critical when a read of it was aborted.
func (a logEvidence) withLogTombstones(f *finding.Finding, t *tableView) {
	lt := a.tombstoneKeys(t)[f.PartitionKey]
	if lt == nil {
		return
	}
	f.Summary += "; Cassandra's log: " + a.logTombstoneNote(lt)
	f.Source = joinSources(f.Source, logSource(lt.allSeen))
	if lt.aborted && f.Severity < finding.SeverityCritical {
		f.Severity, f.Threshold = finding.SeverityCritical, a.th.TombstonesPerReadCritical
	}
}

// logHotFindings: keys whose reads Cassandra repeatedly logged as slow,
// taking at least the hot-key share of the table's slow reads on a node.
// The share is of slow reads, not of all operations: it says which key the
// slow statements hit, not how much traffic it gets. Keys a sampler already
// reported (done) get no second finding.
func (a logEvidence) logHotFindings(t *tableView, done map[string]bool) []finding.Finding {
	slow := a.logKeys(t, model.LogSlowRead)
	total := map[string]int64{} // per node
	for _, seen := range slow {
		for _, s := range seen {
			total[s.node] += s.ev.Count
		}
	}
	tomb, sizes := a.tombstoneKeys(t), a.logKeys(t, model.LogPartitionSize)
	var out []finding.Finding
	for _, key := range set.Keys(slow) {
		if done[key] {
			continue
		}
		best, share := logSeen{}, 0.0
		for _, s := range slow[key] {
			if sh := float64(s.ev.Count) / float64(total[s.node]); s.ev.Count >= minSlowReads && sh > share {
				best, share = s, sh
			}
		}
		if share < a.th.HotKeyShareWarning {
			continue
		}
		f := a.newFinding(KindHotPartition, finding.SeverityWarning, nil, t.keyspace, t.name)
		f.PartitionKey = key
		f.Value, f.Threshold, f.Unit = share, a.th.HotKeyShareWarning, finding.UnitRatio
		f.Source = logSource(slow[key])
		e := best.ev
		f.Summary = fmt.Sprintf("key %s takes %s of the reads of %s that Cassandra logged as slow on %s (%s of %s, longest %s, over slow_query_log_timeout %s); %s",
			key, format.Percent(share), t.key, best.node, format.Count(float64(e.Count)), format.Count(float64(total[best.node])),
			format.Latency(time.Duration(e.MaxMillis)*time.Millisecond), format.Latency(time.Duration(e.Threshold)*time.Millisecond), a.seenWhereWhen(slow[key]))
		if e.TimedOut > 0 {
			f.Summary += fmt.Sprintf("; %s of them timed out", format.Count(float64(e.TimedOut)))
		}
		f.Summary += "; this is a share of slow reads, not of all operations"
		f.Advice = "find why reads of this key are slow before splitting it: "
		if lt := tomb[key]; lt != nil {
			f.Advice += fmt.Sprintf("it holds tombstones (%s scanned by one read, see tombstone_heavy), ", format.Count(float64(lt.most)))
		}
		if sz := sizes[key]; len(sz) > 0 {
			f.Advice += fmt.Sprintf("it is large (%s written to one sstable, see oversized_partition), ", format.Bytes(float64(maxValue(sz))))
		}
		f.Advice += "a large partition (oversized_partition) or heavy traffic; a sampler (collector.nodetool_sampler) measures its share of all operations, and with it partmon sizes suffix buckets"
		out = append(out, f)
	}
	return out
}

// findingKeys are the keys t's findings in fs name.
func findingKeys(fs []finding.Finding, t *tableView) map[string]bool {
	out := map[string]bool{}
	for _, f := range fs {
		if f.PartitionKey != "" && f.Keyspace == t.keyspace && f.Table == t.name {
			out[f.PartitionKey] = true
		}
	}
	return out
}

// logEvidence is what Cassandra's log warnings say about a table's keys, joined with the index.
type logEvidence struct{ *analysis }
