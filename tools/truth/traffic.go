package truth

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"
)

// TrafficStats is what one traffic stream did: the truth behind hot keys.
type TrafficStats struct {
	Keyspace string  `json:"keyspace"`
	Table    string  `json:"table"`
	Seconds  float64 `json:"seconds"`
	Reads    int64   `json:"reads"`
	Writes   int64   `json:"writes"`
	Deletes  int64   `json:"deletes"`
	Failed   int64   `json:"failed"`
	Skipped  int64   `json:"skipped"` // slots dropped because every worker was busy
	// Top are the most used partitions and their measured share of the
	// stream's operations.
	Top []KeyShare `json:"top"`
}

// KeyShare is one partition's share of a stream's operations.
type KeyShare struct {
	Partition int     `json:"partition"`
	Key       string  `json:"key"`
	Share     float64 `json:"share"`
}

// stream drives one Traffic entry.
type stream struct {
	l           *loaded
	tr          Traffic
	sessions    []*gocql.Session // one per coordinating DC, or one
	pop         *popularity
	reads       []string
	insert      string
	del         string
	cl          gocql.Consistency
	ops         []atomic.Int64 // per partition
	stats       TrafficStats
	readCount   atomic.Int64
	writeCount  atomic.Int64
	deleteCount atomic.Int64
	failCount   atomic.Int64
	skipCount   atomic.Int64
	firstErr    atomic.Value
}

func newStream(l *loaded, tr Traffic, sessions []*gocql.Session) *stream {
	st := &stream{l: l, tr: tr, sessions: sessions,
		pop:    newPopularity(tr.Popularity, tr.ZipfS, l.t.Partitions),
		insert: l.gen.InsertCQL(), del: l.gen.DeleteCQL(),
		cl:  gocql.One,
		ops: make([]atomic.Int64, l.t.Partitions)}
	if tr.Consistency == "LOCAL_ONE" {
		st.cl = gocql.LocalOne
	}
	for _, r := range tr.Reads {
		st.reads = append(st.reads, strings.ReplaceAll(r, "{table}", l.key()))
	}
	return st
}

// run issues operations at tr.Rate until ctx ends. A slot that finds every
// worker busy is skipped (and counted) rather than queued, so a slow
// cluster lowers the rate instead of building a backlog.
func (st *stream) run(ctx context.Context, seed uint64) {
	start := time.Now()
	workers := max(4, min(32, int(st.tr.Rate/5)))
	slots := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w uint64) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, w))
			for range slots {
				st.one(ctx, rng)
			}
		}(uint64(w))
	}
	tick := time.NewTicker(time.Duration(float64(time.Second) / st.tr.Rate))
	defer tick.Stop()
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-tick.C:
			select {
			case slots <- struct{}{}:
			default:
				st.skipCount.Add(1)
			}
		}
	}
	close(slots)
	wg.Wait()
	st.stats.Seconds += time.Since(start).Seconds()
}

func (st *stream) pick(rng *rand.Rand) int {
	if h := st.tr.Hot; h != nil && rng.Float64() < h.Share {
		return h.Partition
	}
	return st.pop.pick(rng)
}

func (st *stream) one(ctx context.Context, rng *rand.Rand) {
	p := st.pick(rng)
	s := st.sessions[rng.IntN(len(st.sessions))]
	u := rng.Float64()
	var err error
	switch {
	case u < st.tr.ReadRatio:
		err = st.read(ctx, s, rng, p)
		st.readCount.Add(1)
	case u < st.tr.ReadRatio+st.tr.DeleteRatio && st.canDelete(p):
		r := st.l.head[p].Add(1) - 1
		err = s.Query(st.del, append(st.l.gen.PartitionKey(p), st.l.gen.Clustering(p, int(r))...)...).
			Consistency(st.cl).WithContext(ctx).Exec()
		st.deleteCount.Add(1)
	default:
		r := int(st.l.next[p].Add(1) - 1)
		if st.tr.Writes == "overwrite" {
			r = rng.IntN(st.l.t.RowsOf(p))
		}
		_, vals := st.l.gen.Row(p, r)
		err = s.Query(st.insert, vals...).Consistency(st.cl).WithContext(ctx).Exec()
		st.writeCount.Add(1)
	}
	st.ops[p].Add(1)
	if err != nil && ctx.Err() == nil {
		st.failCount.Add(1)
		st.firstErr.CompareAndSwap(nil, err.Error())
	}
}

// canDelete keeps at least one live row in every partition.
func (st *stream) canDelete(p int) bool {
	return st.l.head[p].Load() < st.l.next[p].Load()-1
}

func (st *stream) read(ctx context.Context, s *gocql.Session, rng *rand.Rand, p int) error {
	stmt := st.reads[rng.IntN(len(st.reads))]
	iter := s.Query(stmt, st.l.gen.PartitionKey(p)...).Consistency(st.cl).WithContext(ctx).Iter()
	row := map[string]any{}
	for iter.MapScan(row) {
		clear(row)
	}
	return iter.Close()
}

// snapshot fills the stream's stats with its counts and top partitions.
func (st *stream) snapshot() TrafficStats {
	out := st.stats
	out.Keyspace, out.Table = st.l.sc.Keyspace, st.l.t.Name
	out.Reads, out.Writes, out.Deletes = st.readCount.Load(), st.writeCount.Load(), st.deleteCount.Load()
	out.Failed, out.Skipped = st.failCount.Load(), st.skipCount.Load()
	total := float64(out.Reads + out.Writes + out.Deletes)
	if total == 0 {
		return out
	}
	idx := make([]int, len(st.ops))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return st.ops[idx[a]].Load() > st.ops[idx[b]].Load() })
	for _, p := range idx[:min(3, len(idx))] {
		out.Top = append(out.Top, KeyShare{Partition: p, Key: st.l.gen.KeyString(p), Share: float64(st.ops[p].Load()) / total})
	}
	return out
}

// Workload is every stream of a phase, run together, as production runs
// many tables at once.
type Workload struct {
	streams []*stream
	growers []*grower
	cancel  context.CancelFunc
	done    sync.WaitGroup
}

// startWorkload starts the traffic of every scenario.
// Stream i draws from seed+i.
func startWorkload(ctx context.Context, c *Cluster, tables map[string]*loaded, scs []*Scenario, sessions map[string]*gocql.Session, seed uint64) (*Workload, error) {
	ctx, cancel := context.WithCancel(ctx)
	w := &Workload{cancel: cancel}
	for _, sc := range scs {
		for _, tr := range sc.Traffic {
			l := tables[sc.Keyspace+"."+tr.Table]
			var ss []*gocql.Session
			for _, dc := range tr.FromDCs {
				if sessions[dc] == nil {
					cancel()
					return nil, fmt.Errorf("%s: traffic from DC %q, which the cluster does not have (DCs %v)", sc.File, dc, c.DCs())
				}
				ss = append(ss, sessions[dc])
			}
			if len(ss) == 0 {
				ss = []*gocql.Session{sessions[""]}
			}
			st := newStream(l, tr, ss)
			w.streams = append(w.streams, st)
			w.done.Add(1)
			go func(seed uint64) { defer w.done.Done(); st.run(ctx, seed) }(seed)
			seed++
		}
	}
	return w, nil
}

// grow starts the scenarios' growing partitions until ctx ends.
func (w *Workload) grow(ctx context.Context, c *Cluster, tables map[string]*loaded, scs []*Scenario, s *gocql.Session, logf func(string, ...any)) {
	for _, sc := range scs {
		for _, g := range sc.Grow {
			gr := &grower{l: tables[sc.Keyspace+"."+g.Table], g: g, c: c, s: s, logf: logf}
			w.growers = append(w.growers, gr)
			w.done.Add(1)
			go func() { defer w.done.Done(); gr.run(ctx) }()
		}
	}
}

// Stop ends the workload and returns what each stream did.
func (w *Workload) Stop() []TrafficStats {
	w.cancel()
	w.done.Wait()
	var out []TrafficStats
	for _, st := range w.streams {
		out = append(out, st.snapshot())
	}
	return out
}

// Errors are the first error of each stream that had failures.
func (w *Workload) Errors() []string {
	var out []string
	for _, st := range w.streams {
		if e, ok := st.firstErr.Load().(string); ok {
			out = append(out, fmt.Sprintf("%s: %d failed, first: %s", st.l.key(), st.failCount.Load(), e))
		}
	}
	for _, g := range w.growers {
		if e, ok := g.err.Load().(string); ok {
			out = append(out, fmt.Sprintf("growing %s: %s", g.l.key(), e))
		}
	}
	return out
}

// trafficSeed is the seed asked for, or one from the clock when none was.
func trafficSeed(asked uint64, now time.Time) uint64 {
	if asked != 0 {
		return asked
	}
	return max(1, uint64(now.UnixNano()))
}
