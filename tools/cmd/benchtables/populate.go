package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"
)

// The benchmark tables: keyspaces bench_00, bench_01, ... of tablesPerKeyspace
// tables each (RF 3 in every DC, or the DC's node count if smaller, so every
// node of a 3-node cluster holds every table), named t000, t001, ... Table i lives in keyspace i / tablesPerKeyspace.
const (
	keyspacePrefix    = "bench_"
	tablesPerKeyspace = 50
	// 50 partitions: each node's primary range (a third of the ring) holds
	// some of every table's keys, so every (node, table) gets an estimate.
	partitionsPerTbl = 50
	rowsPerPartition = 2
	readsPerTable    = 5
)

func keyspaceOf(i int) string { return fmt.Sprintf("%s%02d", keyspacePrefix, i/tablesPerKeyspace) }
func tableOf(i int) string    { return fmt.Sprintf("t%03d", i%tablesPerKeyspace) }

// createTables grows the benchmark schema from `from` to `to` tables:
// keyspaces first, then the tables, `workers` at a time (gocql waits for
// schema agreement after every change).
func createTables(ctx context.Context, s *gocql.Session, from, to, workers int, replication string) error {
	if err := createKeyspaces(ctx, s, from, to, replication); err != nil {
		return err
	}
	start := time.Now()
	var created atomic.Int64
	err := parallel(ctx, from, to, workers, func(i int) error {
		if done := created.Add(1); done%500 == 0 {
			logf("created %d of tables %d..%d: %.2f tables/s", done, from, to-1, float64(done)/time.Since(start).Seconds())
		}
		stmt := fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s.%s (id int, ck int, v text, PRIMARY KEY (id, ck))", keyspaceOf(i), tableOf(i))
		if err := s.Query(stmt).WithContext(ctx).Exec(); err != nil {
			return fmt.Errorf("creating %s.%s: %w", keyspaceOf(i), tableOf(i), err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := s.AwaitSchemaAgreement(ctx); err != nil {
		return fmt.Errorf("waiting for schema agreement: %w", err)
	}
	took := time.Since(start).Seconds()
	logf("created tables %d..%d in %.1f s (%.2f tables/s)", from, to-1, took, float64(to-from)/took)
	return nil
}

// createKeyspaces creates the keyspaces of tables [from, to).
func createKeyspaces(ctx context.Context, s *gocql.Session, from, to int, replication string) error {
	for k := from / tablesPerKeyspace; k*tablesPerKeyspace < to; k++ {
		ks := keyspaceOf(k * tablesPerKeyspace)
		stmt := "CREATE KEYSPACE IF NOT EXISTS " + ks + " WITH replication = " + replication
		if err := s.Query(stmt).WithContext(ctx).Exec(); err != nil {
			return fmt.Errorf("creating keyspace %s: %w", ks, err)
		}
	}
	return nil
}

// loadTables writes a little data to tables [from, to) and reads some of it
// back, so that every per-table source has something to say.
func loadTables(ctx context.Context, s *gocql.Session, from, to, workers int) error {
	start := time.Now()
	payload := strings.Repeat("x", 200)
	err := parallel(ctx, from, to, workers, func(i int) error {
		ks, tbl := keyspaceOf(i), tableOf(i)
		insert := fmt.Sprintf("INSERT INTO %s.%s (id, ck, v) VALUES (?, ?, ?)", ks, tbl)
		for p := 0; p < partitionsPerTbl; p++ {
			b := s.NewBatch(gocql.UnloggedBatch).WithContext(ctx) // one partition: one mutation
			for r := 0; r < rowsPerPartition; r++ {
				b.Query(insert, p, r, payload)
			}
			if err := s.ExecuteBatch(b); err != nil {
				return fmt.Errorf("writing %s.%s: %w", ks, tbl, err)
			}
		}
		sel := fmt.Sprintf("SELECT v FROM %s.%s WHERE id = ?", ks, tbl)
		for r := 0; r < readsPerTable; r++ {
			iter := s.Query(sel, r).WithContext(ctx).Iter()
			var v string
			for iter.Scan(&v) {
			}
			if err := iter.Close(); err != nil {
				return fmt.Errorf("reading %s.%s: %w", ks, tbl, err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	logf("tables %d..%d: wrote %d rows and read %d partitions each in %.1f s", from, to-1, partitionsPerTbl*rowsPerPartition, readsPerTable, time.Since(start).Seconds())
	return nil
}

// waitEstimates waits until system.table_estimates of every node has a
// partition count for each of the first n benchmark tables that hold data
// (loadLimit > 0: only that many do; a table never written has no sstable
// and was never listed: 9,400 of 9,400 idle tables after 5 minutes at
// 10,000). Cassandra refreshes it every size_recorder_interval from the
// sstables, so a table flushed moments ago may still be listed with the
// zero count of its empty sstable set.
func waitEstimates(ctx context.Context, c *benchCluster, n, loadLimit int, bound time.Duration) error {
	if loadLimit > 0 {
		n = min(n, loadLimit)
	}
	start := time.Now()
	deadline := start.Add(bound)
	for {
		missing := 0
		for _, h := range c.hosts {
			got, err := estimatedTables(ctx, h, n)
			if err != nil {
				return err
			}
			missing += n - got
		}
		if missing == 0 {
			logf("every node estimates all %d tables (waited %.0f s)", n, time.Since(start).Seconds())
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("after %s, %d (node, table) pairs still have no partition estimate", bound, missing)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Second):
		}
	}
}

// pinnedCluster is the config of a session that talks to host only.
func pinnedCluster(host string) *gocql.ClusterConfig {
	cc := gocql.NewCluster(host)
	cc.ProtoVersion = 4
	cc.HostFilter = gocql.WhiteListHostFilter(host)
	cc.DisableInitialHostLookup = true
	cc.Timeout = 30 * time.Second
	cc.Consistency = gocql.One
	return cc
}

// estimatedTables counts the benchmark tables among the first n that have a
// non-zero partition count over host's primary ranges.
func estimatedTables(ctx context.Context, host string, n int) (int, error) {
	s, err := pinnedCluster(host).CreateSession()
	if err != nil {
		return 0, fmt.Errorf("connecting to %s: %w", host, err)
	}
	defer s.Close()
	seen := map[string]bool{}
	for k := 0; k*tablesPerKeyspace < n; k++ {
		ks := keyspaceOf(k * tablesPerKeyspace)
		iter := s.Query("SELECT table_name, range_type, partitions_count FROM system.table_estimates WHERE keyspace_name = ?", ks).WithContext(ctx).Iter()
		var (
			tbl, rt string
			count   int64
		)
		for iter.Scan(&tbl, &rt, &count) {
			if rt == "primary" && count > 0 {
				seen[ks+"."+tbl] = true
			}
		}
		if err := iter.Close(); err != nil {
			return 0, fmt.Errorf("reading system.table_estimates on %s: %w", host, err)
		}
	}
	got := 0
	for i := 0; i < n; i++ {
		if seen[keyspaceOf(i)+"."+tableOf(i)] {
			got++
		}
	}
	return got, nil
}

// parallel runs do(i) for i in [from, to) on `workers` goroutines and
// returns the first error (the others stop taking work).
func parallel(outer context.Context, from, to, workers int, do func(int) error) error {
	ctx, cancel := context.WithCancel(outer)
	defer cancel()
	next := make(chan int)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			for i := range next {
				if err := do(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
						cancel()
					}
					mu.Unlock()
				}
			}
		})
	}
	for i := from; i < to; i++ {
		select {
		case next <- i:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(next)
	wg.Wait()
	if first == nil {
		return outer.Err()
	}
	return first
}

// existingTables counts the benchmark tables already created: the prefix of
// 0, 1, 2, ... found in system_schema (a run stopped midway leaves a prefix,
// as tables are handed out in order).
func existingTables(ctx context.Context, c *benchCluster) (int, error) {
	s, err := c.session()
	if err != nil {
		return 0, err
	}
	defer s.Close()
	have := map[string]bool{}
	iter := s.Query("SELECT keyspace_name, table_name FROM system_schema.tables").WithContext(ctx).Iter()
	var ks, tbl string
	for iter.Scan(&ks, &tbl) {
		have[ks+"."+tbl] = true
	}
	if err := iter.Close(); err != nil {
		return 0, fmt.Errorf("reading system_schema.tables: %w", err)
	}
	n := 0
	for have[keyspaceOf(n)+"."+tableOf(n)] {
		n++
	}
	return n, nil
}
