package truth

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"
)

// grower appends rows to one partition while the daemon runs and, every
// FlushEvery, flushes and compacts the table on the partition's replicas so
// the growth reaches the sstables (max_partition_size is a per-sstable
// figure: rows still in memtables, or spread over sstables that were not
// compacted together, do not count).
type grower struct {
	l     *loaded
	g     Grow
	c     *Cluster
	s     *gocql.Session
	logf  func(string, ...any)
	added atomic.Int64
	err   atomic.Value
}

func (gr *grower) run(ctx context.Context) {
	key := gr.l.gen.KeyString(gr.g.Partition)
	replicas, err := gr.c.Endpoints(ctx, gr.l.sc.Keyspace, gr.l.t.Name, key)
	if err != nil {
		gr.err.Store(err.Error())
		return
	}
	// Flushes and compactions run beside the writes: a nodetool JVM can
	// take minutes on a busy box, and the writes must keep their rate.
	go gr.flushEvery(ctx, replicas)
	insert := gr.l.gen.InsertCQL()
	per := max(1, int(gr.g.RowsPerSecond))
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			gr.logf("grew %s partition %s by %d rows", gr.l.key(), key, gr.added.Load())
			return
		case <-tick.C:
		}
		p := gr.g.Partition
		from := int(gr.l.next[p].Add(int64(per))) - per
		if err := writeRows(ctx, gr.s, gr.l.gen, insert, p, from, from+per); err != nil {
			if ctx.Err() == nil {
				gr.err.Store(err.Error())
			}
			continue
		}
		gr.added.Add(int64(per))
	}
}

func (gr *grower) flushEvery(ctx context.Context, replicas []string) {
	for sleep(ctx, gr.g.FlushEvery) == nil {
		for _, h := range replicas {
			for _, cmd := range [][]string{{"flush", gr.l.sc.Keyspace, gr.l.t.Name}, {"compact", gr.l.sc.Keyspace, gr.l.t.Name}} {
				if _, err := gr.c.Nodetool(ctx, h, cmd...); err != nil && ctx.Err() == nil {
					gr.err.Store(err.Error())
				}
			}
		}
	}
}

// Endpoints asks the real `nodetool getendpoints` which nodes hold key.
func (c *Cluster) Endpoints(ctx context.Context, keyspace, table, key string) ([]string, error) {
	out, err := c.Nodetool(ctx, c.Hosts[0], "getendpoints", keyspace, table, key)
	if err != nil {
		return nil, err
	}
	var nodes []string
	for _, line := range strings.Split(out, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			nodes = append(nodes, line)
		}
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("nodetool getendpoints %s %s %s printed no node", keyspace, table, key)
	}
	return nodes, nil
}
