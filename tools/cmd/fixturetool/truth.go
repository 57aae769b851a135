package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/gocql/gocql"

	"github.com/partmon/partmon/tools/testcluster"
)

// Analyzer vocabulary (analyzer/report.go); repeated here as plain strings
// so the fixture tool does not depend on the analyzer it is meant to test.
const (
	kindOversized      = "oversized_partition"
	kindWide           = "wide_partition"
	kindHotPartition   = "hot_partition"
	kindHotTokenRange  = "hot_token_range"
	kindTombstoneHeavy = "tombstone_heavy"
	kindOwnershipSkew  = "ownership_skew"
	kindLowCardinality = "low_cardinality_key"
	kindUnbucketedTS   = "unbucketed_time_series"

	oversizedWarnBytes = 50 << 20 // the analyzer's default partition-size warning
	wideRowsThreshold  = 100000   // the analyzer's default rows-per-partition limit
	skewThreshold      = 1.2      // ownership ÷ fair share above which a node is skewed
)

// buildTruth asks the live cluster where each planted problem sits.
func buildTruth(ctx context.Context, s *gocql.Session) (*testcluster.Truth, error) {
	st, err := loadState()
	if err != nil {
		return nil, err
	}
	have, err := existingKeyspaces(s)
	if err != nil {
		return nil, err
	}
	t := &testcluster.Truth{Generated: time.Now().UTC(), Hosts: testcluster.Hosts(), Problems: []testcluster.Problem{}, CleanKeyspaces: []string{}}
	if have["pm_clean"] {
		t.CleanKeyspaces = append(t.CleanKeyspaces, "pm_clean")
	}
	add := func(p testcluster.Problem) { t.Problems = append(t.Problems, p) }

	// A smaller --large-mib plants no problem under the default thresholds.
	if have["pm_big"] && st.LargeRows*st.LargeRowBytes >= oversizedWarnBytes {
		nodes, err := endpoints(ctx, "pm_big", "events", bigKey)
		if err != nil {
			return nil, err
		}
		add(testcluster.Problem{Kind: kindOversized, Keyspace: "pm_big", Table: "events", Key: bigKey, Nodes: nodes,
			ExpectedSizeBytes: st.LargeRows * st.LargeRowBytes, ExpectedRows: st.LargeRows,
			Note: "compacted into one sstable per node; expected_size_bytes is the payload written, a lower bound"})
		if st.LargeRows >= wideRowsThreshold {
			add(testcluster.Problem{Kind: kindWide, Keyspace: "pm_big", Table: "events", Key: bigKey, Nodes: nodes,
				ExpectedRows: st.LargeRows})
		}
	}
	if have["pm_hot"] {
		if err := hotTruth(ctx, st, add); err != nil {
			return nil, err
		}
	}
	if have["pm_tomb"] && st.TombDeleted > 0 {
		nodes, err := endpoints(ctx, "pm_tomb", "queue", tombKey)
		if err != nil {
			return nil, err
		}
		add(testcluster.Problem{Kind: kindTombstoneHeavy, Keyspace: "pm_tomb", Table: "queue", Key: tombKey, Nodes: nodes,
			ExpectedTombstones: st.TombDeleted, ExpectedRows: st.TombLive,
			Note: "row tombstones; each read of the partition scans all of them (gc_grace_seconds default)"})
	}
	if have["pm_lowcard"] && st.LowcardRows > 0 {
		var nodes []string
		for _, status := range orderStatuses {
			n, err := endpoints(ctx, "pm_lowcard", "orders_by_status", status)
			if err != nil {
				return nil, err
			}
			nodes = union(nodes, n)
		}
		add(testcluster.Problem{Kind: kindLowCardinality, Keyspace: "pm_lowcard", Table: "orders_by_status", Nodes: nodes,
			ExpectedPartitions: st.LowcardParts, ExpectedRows: st.LowcardRows})
	}
	if have["pm_ts"] && st.BusySensorRow > 0 {
		nodes, err := endpoints(ctx, "pm_ts", "readings", busySensor)
		if err != nil {
			return nil, err
		}
		add(testcluster.Problem{Kind: kindUnbucketedTS, Keyspace: "pm_ts", Table: "readings", Key: busySensor, Nodes: nodes,
			ExpectedRows: st.BusySensorRow,
			Note:         "ts timestamp clustering column, partition key sensor_id only; `fixtures grow` appends to this key"})
	}
	return t, nil
}

// hotTruth records the hot key and its owner's traffic share, and ownership
// skew of the RF-1 keyspace when the ring was planted unbalanced (--tokens).
func hotTruth(ctx context.Context, st *state, add func(testcluster.Problem)) error {
	owners, err := endpoints(ctx, "pm_hot", "kv", hotKey)
	if err != nil {
		return err
	}
	owns, err := effectiveOwnership(ctx, "pm_hot")
	if err != nil {
		return err
	}
	if st.HotShare > 0 {
		add(testcluster.Problem{Kind: kindHotPartition, Keyspace: "pm_hot", Table: "kv", Key: hotKey, Nodes: owners,
			ExpectedShare: st.HotShare, Note: fmt.Sprintf("%d operations, half reads half writes, CL ONE, RF 1", st.HotOps)})
		ownerShare := 0.0
		for _, o := range owns {
			if contains(owners, o.Node) {
				ownerShare += o.Owns
			}
		}
		add(testcluster.Problem{Kind: kindHotTokenRange, Keyspace: "pm_hot", Table: "kv", Nodes: owners,
			ExpectedShare: st.HotShare + (1-st.HotShare)*ownerShare,
			Note:          fmt.Sprintf("share of the table's local operations on the hot key's replica, which owns %.3f of pm_hot", ownerShare)})
	}
	// pm_hot has RF 1 in the first DC: fair share there is 1 / nodes of that DC.
	dcNodes := map[string]int{}
	for _, o := range owns {
		dcNodes[o.DC]++
	}
	var skewed []string
	maxOwns := 0.0
	for _, o := range owns {
		if o.Owns*float64(dcNodes[o.DC]) > skewThreshold {
			skewed = append(skewed, o.Node)
			maxOwns = max(maxOwns, o.Owns)
		}
	}
	if len(skewed) > 0 {
		sort.Strings(skewed)
		add(testcluster.Problem{Kind: kindOwnershipSkew, Keyspace: "pm_hot", Nodes: skewed, ExpectedShare: maxOwns,
			Note: "effective ownership from the real `nodetool status pm_hot` (RF 1) above 1.2x the fair share"})
	}
	return nil
}

func writeTruth(ctx context.Context, s *gocql.Session) (*testcluster.Truth, error) {
	t, err := buildTruth(ctx, s)
	if err != nil {
		return nil, err
	}
	data, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(testcluster.TruthFile(), append(data, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("writing truth: %w", err)
	}
	logf("truth: %d problems written to %s", len(t.Problems), testcluster.TruthFile())
	return t, nil
}

func truthCommand(ctx context.Context) error {
	s, err := clusterSession()
	if err != nil {
		return err
	}
	defer s.Close()
	t, err := writeTruth(ctx, s)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(t)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func union(a, b []string) []string {
	for _, x := range b {
		if !contains(a, x) {
			a = append(a, x)
		}
	}
	sort.Strings(a)
	return a
}
