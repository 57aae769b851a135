package main

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"go.uber.org/zap"

	"github.com/partmon/partmon/collector"
)

// What each CQL source's read costs the node: a warm sidecar collector
// (no nodetool runner) runs one source `reps` times back to back as one
// measured action, so that a read shorter than /proc's 10 ms tick still
// shows; the cost, statements, pages and rows are per read.

// costSourcePrefix + a source name keys that source's per-read costs in
// stageResult.Cost.
const costSourcePrefix = "source_"

// sourceRead is one source's statements, pages and rows per read.
type sourceRead struct {
	Statements float64 `json:"statements"`
	Pages      float64 `json:"pages"`
	Rows       float64 `json:"rows"`
}

type sourceBench struct {
	coll    *collector.Collector
	counter *queryCounter
	node    string
	sources []string
	reps    int
}

func newSourceBench(node string, reps int) (*sourceBench, error) {
	counter := newQueryCounter()
	coll, err := collector.New(collector.Config{Hosts: []string{node}, Mode: "sidecar"}, zap.NewNop(), collector.WithQueryObserver(counter))
	if err != nil {
		return nil, fmt.Errorf("creating the per-source collector: %w", err)
	}
	var names []string
	for name, s := range coll.Schedules() {
		if !s.Nodetool {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return &sourceBench{coll: coll, counter: counter, node: node, sources: names, reps: reps}, nil
}

func (b *sourceBench) close() { b.coll.Close() }

// warm connects, probes and reads the ring and schema, unmeasured.
func (b *sourceBench) warm(ctx context.Context) { _ = b.coll.CollectAll(ctx) }

// runAll measures every source and every minute of the schedule once (none
// when b is nil: not asked for).
func (b *sourceBench) runAll(ctx context.Context, r *stageResult) error {
	if b == nil {
		return nil
	}
	if err := b.run(ctx, r); err != nil {
		return err
	}
	return b.runTicks(ctx, r)
}

// run measures every source once (reps reads each) and records each read's
// share of the cost, statements, pages and rows. Sources that do not apply
// (ScyllaDB's, those of a later version) cost a capability check and
// nothing on the node; they are left out.
func (b *sourceBench) run(ctx context.Context, r *stageResult) error {
	for _, name := range b.sources {
		st0 := b.coll.StatementsSent()[b.node]
		pg0, rw0 := b.counter.read()
		var failed error
		nc, err := r.idle.measure(func() (float64, error) {
			for i := 0; i < b.reps; i++ {
				if err := b.coll.CollectSource(ctx, name); err != nil && failed == nil {
					failed = err
				}
			}
			return 0, ctx.Err()
		})
		if err != nil {
			return err
		}
		stmts := b.coll.StatementsSent()[b.node] - st0
		if stmts == 0 {
			continue
		}
		if failed != nil && !strings.Contains(failed.Error(), "unsupported") {
			r.ScheduleFailed = append(r.ScheduleFailed, name+": "+failed.Error())
		}
		pg, rw := b.counter.read()
		k := float64(b.reps)
		nc.Wall, nc.CPU, nc.GC = nc.Wall/k, nc.CPU/k, nc.GC/k
		r.Cost[costSourcePrefix+name] = append(r.Cost[costSourcePrefix+name], nc)
		r.SourceReads[name] = sourceRead{Statements: float64(stmts) / k,
			Pages: float64(pg[b.node]-pg0[b.node]) / k, Rows: float64(rw[b.node]-rw0[b.node]) / k}
	}
	return nil
}

// sourceCostRows is the per-source table: node CPU per read (idle
// subtracted, median [min–max]), statements, pages and rows per read, one
// column per table count.
func sourceCostRows(results []*stageResult) [][]string {
	names := map[string]bool{}
	for _, r := range results {
		for name := range r.SourceReads {
			names[name] = true
		}
	}
	var sorted []string
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	var out [][]string
	for _, name := range sorted {
		row := []string{"node CPU per read of " + name + ", ms (statements / pages / rows)"}
		for _, r := range results {
			v := netCPU(r, costSourcePrefix+name)
			sr, ok := r.SourceReads[name]
			if !ok {
				row = append(row, "–")
				continue
			}
			row = append(row, fmt.Sprintf("%s (%s / %s / %s)", spreadOr(v), number(sr.Statements), number(sr.Pages), number(sr.Rows)))
		}
		out = append(out, row)
	}
	return out
}
