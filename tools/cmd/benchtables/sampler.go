package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/gocql/gocql"
	"go.uber.org/zap"

	"github.com/partmon/partmon/collector"
	"github.com/partmon/partmon/model"
)

// The sampler pass: partmon's nodetool_sampler source (one `nodetool
// profileload` run over every table of the node) while light traffic
// touches every benchmark table and one key is hot.
const (
	hotKeyID    = 7                    // id of the hot partition of the first benchmark table
	trafficRate = 5 * time.Millisecond // at most 200 writes per second, from one client
)

// samplerSample is one pass on the measured node.
type samplerSample struct {
	wall      time.Duration
	entries   int  // hot partitions kept in the snapshot
	tables    int  // distinct tables among them
	hotFound  bool // the hot key is the first table's top written key
	hotTotal  int64
	hotCount  int64
	ops       int64 // operations of the traffic during the pass
	sourceErr string
}

// samplerBench is a sidecar collector with only the sampler configured.
type samplerBench struct {
	coll *collector.Collector
	node string
}

func newSamplerBench(c *benchCluster, n int, window time.Duration) (*samplerBench, error) {
	cfg := collector.Config{Hosts: []string{c.hosts[n-1]}, Mode: "sidecar",
		NodetoolSampler: collector.NodetoolSamplerConfig{
			Command:  []string{c.script, "nodetool", "--dir", c.dir, strconv.Itoa(n)},
			Duration: window,
		}}
	coll, err := collector.New(cfg, zap.NewNop())
	if err != nil {
		return nil, fmt.Errorf("creating the sampler's collector: %w", err)
	}
	return &samplerBench{coll: coll, node: c.hosts[n-1]}, nil
}

func (b *samplerBench) close() { b.coll.Close() }

// run samples once, with traffic running during the whole pass.
func (b *samplerBench) run(ctx context.Context, s *gocql.Session, tables int) (samplerSample, error) {
	if err := b.coll.CollectSource(ctx, "schema"); err != nil {
		return samplerSample{}, fmt.Errorf("schema for the sampler: %w", err)
	}
	trafficCtx, stop := context.WithCancel(ctx)
	var ops int64
	var wg sync.WaitGroup
	wg.Go(func() { ops = traffic(trafficCtx, s, tables) })
	start := time.Now()
	err := b.coll.CollectSource(ctx, "nodetool_sampler")
	wall := time.Since(start)
	stop()
	wg.Wait()
	out := samplerSample{wall: wall, ops: ops}
	if err != nil {
		out.sourceErr = err.Error()
	}
	snap := b.coll.Snapshot()
	seen := map[string]bool{}
	for _, nd := range snap.PerNode {
		for _, h := range nd.HotPartitions {
			out.entries++
			seen[model.TableKey(h.Keyspace, h.Table)] = true
			if h.Keyspace == keyspaceOf(0) && h.Table == tableOf(0) && h.Op == "write" && h.Count > out.hotCount {
				out.hotCount, out.hotTotal = h.Count, h.Total
				out.hotFound = h.Key == strconv.Itoa(hotKeyID)
			}
		}
	}
	out.tables = len(seen)
	return out, nil
}

// traffic writes until ctx ends, one write per trafficRate: half to the hot
// key of the first table, half to a random key of a random benchmark table.
// Writes reach every replica (RF 3 on 3 nodes), so the node sees them all.
func traffic(ctx context.Context, s *gocql.Session, tables int) int64 {
	tick := time.NewTicker(trafficRate)
	defer tick.Stop()
	r := rand.New(rand.NewPCG(1, uint64(tables)))
	var n int64
	for {
		select {
		case <-ctx.Done():
			return n
		case <-tick.C:
		}
		i, id := 0, hotKeyID
		if r.IntN(2) == 0 {
			i, id = r.IntN(tables), r.IntN(partitionsPerTbl)
		}
		q := fmt.Sprintf("INSERT INTO %s.%s (id, ck, v) VALUES (?, 0, 'x')", keyspaceOf(i), tableOf(i))
		if s.Query(q, id).WithContext(ctx).Consistency(gocql.One).Exec() == nil {
			n++
		}
	}
}
