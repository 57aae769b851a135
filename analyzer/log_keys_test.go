package analyzer

import (
	"fmt"
	"testing"

	"github.com/partmon/partmon/model"
)

// Keys the logs measured join the report's top-K lists (and so the
// partmon_partition_* series) with their figure and the node that logged
// them; a table whose log named nothing has no entry; the lists stay
// bounded by top_k per table and metric.
func TestLogKeysJoinTopPartitions(t *testing.T) {
	evs := []model.LogEvidence{ev(model.LogPartitionSize, "big", 117*mib, 2), ev(model.LogTombstoneWarning, "jobs", 5000, 3)}
	for i := 0; i < 15; i++ {
		evs = append(evs, ev(model.LogPartitionTombstones, fmt.Sprintf("k%02d", i), int64(100+i), 1))
	}
	s := logSnap(120*mib, evs...)
	b := &snapBuilder{s: s}
	b.keyspace("quiet", simple("3"), table("t", pk("id", "text", 0)))
	th := DefaultThresholds()
	r := Analyze(s, nil, th)
	byKey := map[string]PartitionEntry{}
	for _, p := range r.TopPartitions {
		if p.Keyspace == "quiet" {
			t.Errorf("quiet.t, whose log named nothing, has top-K entry %+v", p)
		}
		byKey[p.Key] = p
	}
	big, jobs := byKey["big"], byKey["jobs"]
	if big.SizeBytes != 117*mib || len(big.Nodes) != 1 || big.Nodes[0] != "10.0.0.1" || big.Source != "system_views.system_logs" {
		t.Errorf("big: %+v, want 117 MiB logged by 10.0.0.1 in system_views.system_logs", big)
	}
	if jobs.Tombstones != 5000 || jobs.SizeBytes != 0 {
		t.Errorf("jobs: %+v, want 5,000 tombstones and no size", jobs)
	}
	withTombstones := 0
	for _, p := range r.TopPartitions {
		if p.Tombstones > 0 {
			withTombstones++
		}
	}
	if withTombstones != th.TopK {
		t.Errorf("%d keys with tombstones listed, want top_k = %d of the 16 logged", withTombstones, th.TopK)
	}
	if _, ok := byKey["k00"]; ok {
		t.Error("k00, the fewest tombstones of 16 logged, is listed past top_k")
	}
}
