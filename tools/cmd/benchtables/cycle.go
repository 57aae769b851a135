package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gocql/gocql"
	"go.uber.org/zap"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/collector"
	"github.com/partmon/partmon/model"
)

// queryCounter is the gocql QueryObserver of the measured collector: one
// call per page fetched from a node, with the rows of that page.
type queryCounter struct {
	mu    sync.Mutex
	pages map[string]int64
	rows  map[string]int64
	errs  int64
	// byStmt counts pages per node and statement ("rows" summed in byStmtRows).
	byStmt, byStmtRows map[string]map[string]int64
}

func newQueryCounter() *queryCounter {
	return &queryCounter{pages: map[string]int64{}, rows: map[string]int64{},
		byStmt: map[string]map[string]int64{}, byStmtRows: map[string]map[string]int64{}}
}

func (q *queryCounter) ObserveQuery(_ context.Context, o gocql.ObservedQuery) {
	host := "unknown"
	if o.Host != nil {
		host = o.Host.ConnectAddress().String()
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.pages[host]++
	q.rows[host] += int64(o.Rows)
	if q.byStmt[host] == nil {
		q.byStmt[host], q.byStmtRows[host] = map[string]int64{}, map[string]int64{}
	}
	q.byStmt[host][o.Statement]++
	q.byStmtRows[host][o.Statement] += int64(o.Rows)
	if o.Err != nil {
		q.errs++
	}
}

// statements lists, for host, every statement with its pages and rows so
// far, and resets the per-statement counts.
func (q *queryCounter) statements(host string) []stmtCount {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []stmtCount
	for stmt, pages := range q.byStmt[host] {
		out = append(out, stmtCount{Statement: stmt, Pages: pages, Rows: q.byStmtRows[host][stmt]})
	}
	q.byStmt[host], q.byStmtRows[host] = map[string]int64{}, map[string]int64{}
	sort.Slice(out, func(i, j int) bool { return out[i].Statement < out[j].Statement })
	return out
}

type stmtCount struct {
	Statement string `json:"statement"`
	Pages     int64  `json:"pages"`
	Rows      int64  `json:"rows"`
}

func (q *queryCounter) read() (pages, rows map[string]int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	pages, rows = map[string]int64{}, map[string]int64{}
	for k, v := range q.pages {
		pages[k] = v
	}
	for k, v := range q.rows {
		rows[k] = v
	}
	return pages, rows
}

// cycleBench is one in-process partmon pipeline (collector → analyzer), as
// the daemon runs it, with its queries counted per node.
type cycleBench struct {
	coll    *collector.Collector
	counter *queryCounter
	history *history.History
	hosts   []string
}

// cycleSample is one full cycle: CollectAll, Snapshot, History.Record and
// Analyze, with what it cost each node.
type cycleSample struct {
	collect, analyze time.Duration
	statements       map[string]int64 // per node
	pages, rows      map[string]int64 // per node
	failed           []string         // "source node: error" of sources that failed
	report           *analyzer.Report
	snapshot         *model.Snapshot
}

func (s cycleSample) total() time.Duration { return s.collect + s.analyze }

func newCycleBench(hosts []string, mode string) (*cycleBench, error) {
	counter := newQueryCounter()
	coll, err := collector.New(collector.Config{Hosts: hosts, Mode: mode}, zap.NewNop(), collector.WithQueryObserver(counter))
	if err != nil {
		return nil, fmt.Errorf("creating the collector: %w", err)
	}
	return &cycleBench{coll: coll, counter: counter, history: history.New(history.Limits{}), hosts: hosts}, nil
}

func (b *cycleBench) close() { b.coll.Close() }

// run measures one cycle. The first one on a fresh collector also connects
// and probes each node (cold); later ones are what the daemon repeats.
func (b *cycleBench) run(ctx context.Context) cycleSample {
	stBefore := b.coll.StatementsSent()
	pgBefore, rwBefore := b.counter.read()

	start := time.Now()
	_ = b.coll.CollectAll(ctx) // failures are in the snapshot's statuses
	snap := b.coll.Snapshot()
	collected := time.Now()
	rep := analyzer.Analyze(snap, b.history, analyzer.DefaultThresholds())
	done := time.Now()

	s := cycleSample{collect: collected.Sub(start), analyze: done.Sub(collected), report: rep, snapshot: snap,
		statements: map[string]int64{}, pages: map[string]int64{}, rows: map[string]int64{}}
	for k, v := range b.coll.StatementsSent() {
		s.statements[k] = v - stBefore[k]
	}
	pg, rw := b.counter.read()
	for k, v := range pg {
		s.pages[k] = v - pgBefore[k]
		s.rows[k] = rw[k] - rwBefore[k]
	}
	for _, st := range snap.Sources {
		if st.State == model.StateError {
			node := st.Node
			if node == "" {
				node = "(cluster)"
			}
			s.failed = append(s.failed, st.Source+" "+node+": "+st.Error)
		}
	}
	return s
}

// tablesSeen counts the tables with figures in the snapshot for node addr,
// and the benchmark tables among them that have a partition estimate and a
// max partition size (proof that the data is real, not just schema).
func tablesSeen(s *model.Snapshot, addr string) (all, benchWithData int) {
	for _, nd := range s.PerNode {
		if nd.Address != addr {
			continue
		}
		for _, ts := range nd.Tables {
			all++
			if strings.HasPrefix(ts.Keyspace, keyspacePrefix) && ts.PartitionsEstimate > 0 && ts.MaxPartitionBytes > 0 {
				benchWithData++
			}
		}
	}
	return all, benchWithData
}
