package truth

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"
)

// loaded is a table after loading: its generator and, per partition, the
// next row index to append and the first live row (after deletes).
type loaded struct {
	sc   *Scenario
	t    *Table
	gen  *generator
	next []atomic.Int64
	head []atomic.Int64
}

func (l *loaded) key() string { return l.sc.Keyspace + "." + l.t.Name }

// createScenario drops and creates the scenario's keyspace and tables and
// reads their columns back from system_schema.
func createScenario(ctx context.Context, s *gocql.Session, sc *Scenario) ([]*loaded, error) {
	stmts := []string{
		"DROP KEYSPACE IF EXISTS " + sc.Keyspace,
		fmt.Sprintf("CREATE KEYSPACE %s WITH replication = %s", sc.Keyspace, sc.ReplicationCQL()),
	}
	for _, t := range sc.Tables {
		stmts = append(stmts, strings.ReplaceAll(t.CQL, "{ks}", sc.Keyspace))
	}
	for _, stmt := range stmts {
		if err := retry(ctx, 5, func() error { return s.Query(stmt).WithContext(ctx).Exec() }); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", sc.File, firstLine(stmt), err)
		}
		if err := s.AwaitSchemaAgreement(ctx); err != nil {
			return nil, fmt.Errorf("schema agreement after %s: %w", firstLine(stmt), err)
		}
	}
	var out []*loaded
	for i := range sc.Tables {
		t := &sc.Tables[i]
		schema, err := readSchema(ctx, s, sc.Keyspace, t.Name)
		if err != nil {
			return nil, err
		}
		gen, err := newGenerator(t, schema)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sc.File, err)
		}
		l := &loaded{sc: sc, t: t, gen: gen, next: make([]atomic.Int64, t.Partitions), head: make([]atomic.Int64, t.Partitions)}
		for p := 0; p < t.Partitions; p++ {
			l.next[p].Store(int64(t.RowsOf(p)))
			l.head[p].Store(int64(t.DeleteFirst))
		}
		out = append(out, l)
	}
	return out, nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}

func readSchema(ctx context.Context, s *gocql.Session, ks, table string) (*tableSchema, error) {
	iter := s.Query("SELECT column_name, kind, position, type FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?", ks, table).
		WithContext(ctx).Iter()
	var cols []column
	var c column
	for iter.Scan(&c.Name, &c.Kind, &c.Position, &c.Type) {
		cols = append(cols, c)
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("reading the columns of %s.%s: %w", ks, table, err)
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("%s.%s has no columns in system_schema.columns (was it created?)", ks, table)
	}
	schema := sortColumns(cols)
	schema.Keyspace, schema.Name = ks, table
	return schema, nil
}

// batchRows bounds a single-partition unlogged batch: Cassandra exempts
// single-partition batches from its batch size guard, and ~64 KiB keeps
// each mutation small.
func batchRows(rowBytes int) int { return max(1, min(200, 64<<10/max(rowBytes, 64))) }

// loadTable writes every row of every partition at CL ALL (so each replica
// holds exactly what the truth says), then deletes each partition's first
// DeleteFirst rows one by one.
func loadTable(ctx context.Context, s *gocql.Session, l *loaded, workers int) error {
	insert, del := l.gen.InsertCQL(), l.gen.DeleteCQL()
	per := batchRows(l.gen.MinRowBytes() + 32)
	type job struct{ p, from, to int }
	jobs := make(chan job)
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				err := writeRows(ctx, s, l.gen, insert, j.p, j.from, j.to)
				if err == nil && j.to == l.t.RowsOf(j.p) && l.t.DeleteFirst > 0 {
					err = deleteRows(ctx, s, l.gen, del, j.p, l.t.DeleteFirst, per)
				}
				if err != nil {
					once.Do(func() { firstErr = err; cancel() })
				}
			}
		}()
	}
	// Deletes follow the last batch of a partition; a queue's deletes need
	// every row written first, so a partition's batches go to one job list
	// only when there are no deletes.
	chunk := per
	if l.t.DeleteFirst > 0 {
		chunk = 1 << 30
	}
feed:
	for p := 0; p < l.t.Partitions; p++ {
		rows := l.t.RowsOf(p)
		for from := 0; from < rows; from += chunk {
			select {
			case jobs <- job{p, from, min(rows, from+chunk)}:
			case <-ctx.Done():
				break feed
			}
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return fmt.Errorf("loading %s: %w", l.key(), firstErr)
	}
	return ctx.Err()
}

func writeRows(ctx context.Context, s *gocql.Session, g *generator, insert string, p, from, to int) error {
	per := batchRows(g.MinRowBytes() + 32)
	for start := from; start < to; start += per {
		b := s.NewBatch(gocql.UnloggedBatch).WithContext(ctx)
		b.SetConsistency(gocql.All)
		for r := start; r < min(to, start+per); r++ {
			_, vals := g.Row(p, r)
			b.Query(insert, vals...)
		}
		if err := retry(ctx, 6, func() error { return s.ExecuteBatch(b) }); err != nil {
			return fmt.Errorf("partition %d rows %d..%d: %w", p, start, min(to, start+per)-1, err)
		}
	}
	return nil
}

func deleteRows(ctx context.Context, s *gocql.Session, g *generator, del string, p, n, per int) error {
	for start := 0; start < n; start += per {
		b := s.NewBatch(gocql.UnloggedBatch).WithContext(ctx)
		b.SetConsistency(gocql.All)
		for r := start; r < min(n, start+per); r++ {
			b.Query(del, append(g.PartitionKey(p), g.Clustering(p, r)...)...)
		}
		if err := retry(ctx, 6, func() error { return s.ExecuteBatch(b) }); err != nil {
			return fmt.Errorf("deleting partition %d rows %d..: %w", p, start, err)
		}
	}
	return nil
}

// retry runs an idempotent statement again after a timeout: a 2-core box
// shared by several clusters times out now and then.
func retry(ctx context.Context, attempts int, run func() error) error {
	var err error
	for a := 1; a <= attempts; a++ {
		if err = run(); err == nil || ctx.Err() != nil {
			return err
		}
		select {
		case <-time.After(time.Duration(a) * 700 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return err
}
