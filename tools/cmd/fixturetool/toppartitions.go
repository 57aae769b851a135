package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/partmon/partmon/tools/testcluster"
)

// topPartitionTargets are the rows `fixtures top-partitions` must leave in
// system.top_partitions on every replica of the key.
var topPartitionTargets = []struct{ keyspace, table, topType, key string }{
	{"pm_big", "events", "SIZES", bigKey},
	{"pm_tomb", "queue", "TOMBSTONES", tombKey},
}

// topEntry is one element of system.top_partitions.top, a tuple<text, bigint>.
type topEntry struct {
	Key   string
	Value int64
}

// readTopPartitions reads one row of the node-local system.top_partitions.
func readTopPartitions(s *gocql.Session, keyspace, table, topType string) ([]topEntry, time.Time, error) {
	var (
		top        []topEntry
		lastUpdate time.Time
	)
	err := s.Query("SELECT top, last_update FROM system.top_partitions WHERE keyspace_name = ? AND table_name = ? AND top_type = ?",
		keyspace, table, topType).Consistency(gocql.One).Scan(&top, &lastUpdate)
	if errors.Is(err, gocql.ErrNotFound) {
		return nil, time.Time{}, nil
	}
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("reading system.top_partitions %s.%s %s: %w", keyspace, table, topType, err)
	}
	return top, lastUpdate, nil
}

// topPartitionsCommand fills TopPartitionTracker with a full repair of the
// fixture keyspaces (only validation compactions feed it), persists it with
// `cluster save-top-partitions` (Cassandra itself saves hourly) and checks on
// every replica that system.top_partitions names the planted keys.
func topPartitionsCommand(ctx context.Context, repair, persist bool) error {
	start := time.Now()
	version, err := testcluster.Version()
	if err != nil {
		return err
	}
	if testcluster.Series(version) == "4.0" {
		return fmt.Errorf("Cassandra %s has no system.top_partitions (it came with 4.1, CASSANDRA-16310): nothing to fill", version)
	}
	s, err := clusterSession()
	if err != nil {
		return err
	}
	defer s.Close()
	have, err := existingKeyspaces(s)
	if err != nil {
		return err
	}
	for _, tg := range topPartitionTargets {
		if !have[tg.keyspace] {
			return fmt.Errorf("keyspace %s is missing (run fixtures load first)", tg.keyspace)
		}
	}
	hosts := testcluster.Hosts()
	if repair {
		if err := repairFixtures(ctx, have, len(hosts)); err != nil {
			return err
		}
	}
	if persist {
		t := time.Now()
		report, err := testcluster.SaveTopPartitions(ctx)
		if err != nil {
			return err
		}
		fmt.Fprint(os.Stderr, report)
		logf("save-top-partitions done in %.1f s", time.Since(t).Seconds())
	}
	missing, err := missingTopPartitions(ctx, hosts)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		return fmt.Errorf("system.top_partitions lacks, on a replica of the key: %s (without --repair the tracker may be empty; without --persist the node saves hourly)",
			strings.Join(missing, "; "))
	}
	logf("top-partitions done in %.1f s", time.Since(start).Seconds())
	return nil
}

// repairFixtures runs a full primary-range repair of every fixture keyspace,
// which fills each node's top-partitions tracker.
func repairFixtures(ctx context.Context, have map[string]bool, nodes int) error {
	t := time.Now()
	// -pr on every node covers each range once; one node at a time, since
	// overlapping repairs of the same ranges fail. pm_hot has RF 1: a repair
	// runs no validation there, so its keys never reach the tracker.
	var repaired []string
	for _, ks := range fixtureKeyspaces {
		if !have[ks] || ks == "pm_hot" {
			continue
		}
		for n := 0; n < nodes; n++ {
			if _, err := testcluster.Nodetool(ctx, n+1, "repair", "--full", "-pr", ks); err != nil {
				return err
			}
		}
		repaired = append(repaired, ks)
	}
	logf("repair --full -pr of %s on %d nodes done in %.1f s", strings.Join(repaired, ", "), nodes, time.Since(t).Seconds())
	return nil
}

// missingTopPartitions reads system.top_partitions on every node and lists
// each target key a replica of it does not show.
func missingTopPartitions(ctx context.Context, hosts []string) ([]string, error) {
	var missing []string
	for _, tg := range topPartitionTargets {
		replicas, err := endpoints(ctx, tg.keyspace, tg.table, tg.key)
		if err != nil {
			return nil, err
		}
		for _, host := range hosts {
			hs, err := testcluster.NewSession(host)
			if err != nil {
				return nil, err
			}
			top, lastUpdate, err := readTopPartitions(hs, tg.keyspace, tg.table, tg.topType)
			hs.Close()
			if err != nil {
				return nil, fmt.Errorf("on %s: %w", host, err)
			}
			var found *topEntry
			for i := range top {
				if top[i].Key == tg.key {
					found = &top[i]
				}
			}
			switch {
			case found != nil:
				logf("%s: system.top_partitions %s.%s %s: %q = %d of %d entries (last_update %s)",
					host, tg.keyspace, tg.table, tg.topType, found.Key, found.Value, len(top), lastUpdate.UTC().Format(time.RFC3339))
			case slices.Contains(replicas, host):
				missing = append(missing, fmt.Sprintf("%s %s.%s %s %q (%d entries)", host, tg.keyspace, tg.table, tg.topType, tg.key, len(top)))
			}
		}
	}
	return missing, nil
}
