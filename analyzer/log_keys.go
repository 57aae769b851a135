package analyzer

import (
	"github.com/partmon/partmon/analyzer/internal/set"
	"github.com/partmon/partmon/model"
)

// withLogKeys is t's known keys (copies) with the keys Cassandra's logs
// measured merged in: a partition written over the size warning (its
// bytes), or with many tombstones written or scanned by a read (its
// tombstones, at least). They join the report's top-K lists, and so the
// partmon_partition_* series, on a cluster that never ran the repair that
// fills system.top_partitions; the rules read the logs themselves.
func (a *analysis) withLogKeys(t *tableView) []*PartitionEntry {
	byKey := map[string]*PartitionEntry{}
	var out []*PartitionEntry
	for _, e := range a.keys[t.key] {
		c := *e
		c.Nodes = append([]string(nil), e.Nodes...)
		byKey[e.Key] = &c
		out = append(out, &c)
	}
	if a.sc.System[t.keyspace] {
		return out
	}
	kinds := []model.LogEvidenceKind{model.LogPartitionSize, model.LogPartitionTombstones, model.LogTombstoneWarning, model.LogTombstoneAbort}
	for key, seen := range (logEvidence{a}).logKeys(t, kinds...) {
		e := byKey[key]
		if e == nil {
			e = &PartitionEntry{Keyspace: t.keyspace, Table: t.name, Key: key}
			byKey[key] = e
			out = append(out, e)
		}
		for _, s := range seen {
			if s.ev.Kind == model.LogPartitionSize {
				e.SizeBytes = max(e.SizeBytes, s.ev.Value)
			} else {
				e.Tombstones = max(e.Tombstones, s.ev.Value)
			}
			e.Nodes = set.AddSorted(e.Nodes, s.node)
			e.Source = joinSources(e.Source, logSource([]logSeen{s}))
		}
	}
	return out
}
