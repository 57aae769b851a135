//go:build integration

package e2e

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/tools/testcluster"
)

// pm_e2e is this test's own keyspace: RF 3, one partition of e2ePartitionBytes,
// dropped at the end of the resolution step (and in cleanup). The fixture
// keyspaces pm_* are only read, never changed.
const (
	e2eKeyspace       = "pm_e2e"
	e2eTable          = "blobs"
	e2eKey            = "e2e-big"
	e2eRowBytes       = 256 << 10
	e2ePartitionBytes = 6 << 20 // above partitionCriticalBytes
)

// plantE2EPartition (re)creates pm_e2e with one partition of a few MiB and
// flushes and compacts it on every node, so that
// system_views.max_partition_size (read from sstables) shows it.
func plantE2EPartition(ctx context.Context, s *gocql.Session, hosts []string) error {
	stmts := []string{
		"DROP KEYSPACE IF EXISTS " + e2eKeyspace,
		"CREATE KEYSPACE " + e2eKeyspace + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}",
		"CREATE TABLE " + e2eKeyspace + "." + e2eTable + " (id text, seq int, payload blob, PRIMARY KEY ((id), seq))",
	}
	for _, q := range stmts {
		if err := s.Query(q).WithContext(ctx).Exec(); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	payload := make([]byte, e2eRowBytes)
	for seq := 0; seq < e2ePartitionBytes/e2eRowBytes; seq++ {
		_, _ = rand.Read(payload) // incompressible, like real blobs
		q := s.Query("INSERT INTO "+e2eKeyspace+"."+e2eTable+" (id, seq, payload) VALUES (?, ?, ?)", e2eKey, seq, payload).
			WithContext(ctx).Consistency(gocql.All)
		if err := q.Exec(); err != nil {
			return fmt.Errorf("writing row %d of %s.%s: %w", seq, e2eKeyspace, e2eTable, err)
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, len(hosts))
	for i := range hosts {
		wg.Go(func() {
			for _, cmd := range []string{"flush", "compact"} {
				if _, err := testcluster.Nodetool(ctx, i+1, cmd, e2eKeyspace); err != nil {
					errs[i] = err
					return
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// dropE2EKeyspace is the cleanup: pm_e2e must not outlive the test.
func dropE2EKeyspace(t *testing.T, s *gocql.Session) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := s.Query("DROP KEYSPACE IF EXISTS " + e2eKeyspace).WithContext(ctx).Exec(); err != nil {
		t.Errorf("dropping %s: %v", e2eKeyspace, err)
	}
}

// readFixtures reads, at CL ALL so that every replica counts the read:
//   - the tombstone-heavy partition of truth.json, as `fixtures hotkey` does:
//     system_views.tombstones_per_read covers only the last five minutes;
//   - a key that does not exist in the oversized-partition table, so that its
//     local read counters and per-read histograms exist (the table dashboard
//     is checked on that table).
//
// Reads change no data; pm_hot is not read, its traffic figures stay the fixtures'.
func readFixtures(ctx context.Context, s *gocql.Session, truth *testcluster.Truth) error {
	tomb := truth.Find(analyzer.KindTombstoneHeavy)
	big := truth.Find(analyzer.KindOversizedPartition)
	if len(tomb) == 0 || len(big) == 0 {
		return fmt.Errorf("truth.json has no %s or no %s problem (reload the fixtures)", analyzer.KindTombstoneHeavy, analyzer.KindOversizedPartition)
	}
	reads := []struct {
		keyspace, table, key string
		times                int
	}{
		{tomb[0].Keyspace, tomb[0].Table, tomb[0].Key, 20},
		{big[0].Keyspace, big[0].Table, "partmon-e2e-no-such-key", 5},
	}
	for _, r := range reads {
		col, err := partitionKeyColumn(ctx, s, r.keyspace, r.table)
		if err != nil {
			return err
		}
		q := fmt.Sprintf("SELECT %s FROM %s.%s WHERE %s = ?", col, r.keyspace, r.table, col)
		for range r.times {
			iter := s.Query(q, r.key).WithContext(ctx).Consistency(gocql.All).Iter()
			var v string
			for iter.Scan(&v) {
			}
			if err := iter.Close(); err != nil {
				return fmt.Errorf("reading %s.%s key %s: %w", r.keyspace, r.table, r.key, err)
			}
		}
	}
	return nil
}

// partitionKeyColumn is the single partition key column of a table.
func partitionKeyColumn(ctx context.Context, s *gocql.Session, keyspace, table string) (string, error) {
	iter := s.Query("SELECT column_name, kind FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?",
		keyspace, table).WithContext(ctx).Iter()
	var name, kind string
	var keys []string
	for iter.Scan(&name, &kind) {
		if kind == "partition_key" {
			keys = append(keys, name)
		}
	}
	if err := iter.Close(); err != nil {
		return "", fmt.Errorf("reading the columns of %s.%s: %w", keyspace, table, err)
	}
	if len(keys) != 1 {
		return "", fmt.Errorf("%s.%s has partition key columns %v, want exactly one", keyspace, table, keys)
	}
	return keys[0], nil
}
