//go:build integration

package analyzer_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/tools/testcluster"
)

// Cassandra has no per-partition row count over CQL. What it has is
// system_views.rows_per_read: the live rows of each local read command. The
// wide_partition rule claims a partition's rows from it only as a lower
// bound, and only where a read command iterated a whole partition. These
// helpers make the two kinds of read a client makes of the fixture's wide
// key, and read what the node and nodetool say about them.

// pagedPageSize is the page size of gocql and the Java driver by default.
const pagedPageSize = 5000

// readPartition reads every row of one partition from host alone, at CL ONE,
// with the given page size (0: one unpaged read command), and returns the
// rows the client got.
func readPartition(t *testing.T, host, keyspace, table, keyColumn, key string, pageSize int) int {
	t.Helper()
	cfg := testcluster.NewClusterConfig(host)
	cfg.HostFilter = gocql.WhiteListHostFilter(host)
	cfg.Consistency = gocql.One
	cfg.Timeout = 60 * time.Second
	s, err := cfg.CreateSession()
	if err != nil {
		t.Fatalf("connecting to %s: %v", host, err)
	}
	defer s.Close()
	// Selecting only the key keeps the response small; the replica still
	// iterates every row of the partition.
	stmt := fmt.Sprintf("SELECT %s FROM %s.%s WHERE %s = ?", keyColumn, keyspace, table, keyColumn)
	// PageSize(0) turns paging off: one read command for the whole partition.
	iter := s.Query(stmt, key).PageSize(pageSize).Iter()
	n := 0
	var v string
	for iter.Scan(&v) {
		n++
	}
	if err := iter.Close(); err != nil {
		t.Fatalf("reading %s.%s %s=%q on %s: %v", keyspace, table, keyColumn, key, host, err)
	}
	return n
}

// rowsPerRead is host's system_views.rows_per_read for one table.
func rowsPerRead(t *testing.T, host, keyspace, table string) (count int64, p99, max float64) {
	t.Helper()
	s := testcluster.Session(t, host)
	if err := s.Query(`SELECT count, p99th, max FROM system_views.rows_per_read WHERE keyspace_name = ? AND table_name = ?`,
		keyspace, table).Scan(&count, &p99, &max); err != nil {
		t.Fatalf("rows_per_read of %s.%s on %s: %v", keyspace, table, host, err)
	}
	return count, p99, max
}

// maxCellCount is the "Cell Count" Max of nodetool tablehistograms on node
// n: the upper bucket bound of the largest partition's cells in one sstable.
func maxCellCount(t *testing.T, ctx context.Context, n int, keyspace, table string) int64 {
	t.Helper()
	out, err := nodetoolRetried(ctx, n, "tablehistograms", keyspace, table)
	if err != nil {
		t.Fatalf("nodetool tablehistograms %s %s: %v", keyspace, table, err)
	}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 6 && f[0] == "Max" {
			v, err := strconv.ParseFloat(f[5], 64)
			if err != nil {
				t.Fatalf("tablehistograms Max line %q: %v", line, err)
			}
			return int64(v)
		}
	}
	t.Fatalf("no Max line in nodetool tablehistograms:\n%s", out)
	return 0
}

// nodetoolRetried runs nodetool on node n, a second time when the first
// run fails (a JVM start on a busy machine can pass testcluster's bound).
func nodetoolRetried(ctx context.Context, n int, args ...string) (string, error) {
	out, err := testcluster.Nodetool(ctx, n, args...)
	if err != nil {
		out, err = testcluster.Nodetool(ctx, n, args...)
	}
	return out, err
}

// bucketOf is the EstimatedHistogram bucket (lo, hi] holding v: Cassandra's
// bounds start at 1 and grow by ×1.2, rounded, at least +1.
func bucketOf(v int64) (lo, hi int64) {
	hi = 1
	for hi < v {
		next := int64(float64(hi)*1.2 + 0.5)
		if next == hi {
			next++
		}
		lo, hi = hi, next
	}
	return lo, hi
}

// wideReads are the reads TestFixturesFoundOnRealCluster makes of the wide
// key before collecting: one unpaged read on whole (a read command that
// iterates the whole partition) and a paged one on each of paged.
type wideReads struct {
	whole string
	paged []string
	rows  int
	// before and after are each node's nodetool "maximum live cells per
	// slice" right before and right after the collection that is judged.
	before, after map[string]int64
}

// witness reads every node's maximum live cells per slice for the table.
func witness(t *testing.T, ctx context.Context, p testcluster.Problem) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for i, host := range testcluster.Hosts() {
		out[host] = maxLiveCellsPerSlice(t, ctx, i+1, p.Keyspace, p.Table)
	}
	return out
}

func readWideKey(t *testing.T, p testcluster.Problem, whole string, paged ...string) wideReads {
	t.Helper()
	var rows int
	var err error
	for try := 0; try < 3; try++ {
		if rows, err = readPartitionOnce(whole, p, 0); err == nil {
			break
		}
		t.Logf("unpaged read of %q on %s: %v", p.Key, whole, err)
	}
	if err != nil {
		t.Fatalf("unpaged read of %s.%s %q on %s failed three times: %v", p.Keyspace, p.Table, p.Key, whole, err)
	}
	if rows != int(p.ExpectedRows) {
		t.Fatalf("unpaged read of %s.%s %q on %s returned %d rows, the truth says %d", p.Keyspace, p.Table, p.Key, whole, rows, p.ExpectedRows)
	}
	for _, host := range paged {
		if got := readPartition(t, host, p.Keyspace, p.Table, "id", p.Key, pagedPageSize); got != rows {
			t.Fatalf("paged read on %s returned %d rows, the unpaged one %d", host, got, rows)
		}
	}
	return wideReads{whole: whole, paged: paged, rows: rows}
}

// rereadWideKey reads the wide key again right before the collection that
// is judged: four whole (unpaged) reads on the whole node, which the per-read
// histograms remember for about three minutes (one read: about one), and
// two paged ones on the other. A read that fails (an unpaged read of
// 110 MiB can pass the server's 5 s read timeout on a loaded node) is
// retried, up to eight tries, and logged: checkWideBothWays asks nodetool
// which node executed which read, so it judges what happened, not what was
// tried.
func rereadWideKey(t *testing.T, p testcluster.Problem, w wideReads) {
	t.Helper()
	type reads struct {
		host           string
		pageSize, want int
	}
	todo := []reads{{w.whole, 0, 4}}
	for _, host := range w.paged {
		todo = append(todo, reads{host, pagedPageSize, 2})
	}
	for _, r := range todo {
		done := 0
		for try := 0; try < 8 && done < r.want; try++ {
			if n, err := readPartitionOnce(r.host, p, r.pageSize); err != nil || n != w.rows {
				t.Logf("re-read of %q on %s (page size %d): %d rows, %v", p.Key, r.host, r.pageSize, n, err)
				continue
			}
			done++
		}
	}
}

// readPartitionOnce is readPartition for a goroutine.
func readPartitionOnce(host string, p testcluster.Problem, pageSize int) (int, error) {
	cfg := testcluster.NewClusterConfig(host)
	cfg.HostFilter = gocql.WhiteListHostFilter(host)
	cfg.Consistency = gocql.One
	cfg.Timeout = 60 * time.Second
	s, err := cfg.CreateSession()
	if err != nil {
		return 0, err
	}
	defer s.Close()
	iter := s.Query(fmt.Sprintf("SELECT id FROM %s.%s WHERE id = ?", p.Keyspace, p.Table), p.Key).PageSize(pageSize).Iter()
	n := 0
	var v string
	for iter.Scan(&v) {
		n++
	}
	return n, iter.Close()
}

// maxLiveCellsPerSlice is nodetool tablestats' "Maximum live cells per
// slice (last five minutes)" on node n: the same per-read histogram over
// JMX, the witness of which node executed which read (the coordinator, a
// dynamic snitch or a speculative retry may send a read to another replica
// than the one the client chose).
func maxLiveCellsPerSlice(t *testing.T, ctx context.Context, n int, keyspace, table string) int64 {
	t.Helper()
	out, err := nodetoolRetried(ctx, n, "tablestats", keyspace+"."+table)
	if err != nil {
		t.Fatalf("nodetool tablestats %s.%s: %v", keyspace, table, err)
	}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok && strings.HasPrefix(k, "Maximum live cells per slice") {
			x, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				t.Fatalf("tablestats line %q: %v", line, err)
			}
			return x
		}
	}
	t.Fatalf("no live cells per slice in nodetool tablestats:\n%s", out)
	return 0
}

// checkWideBothWays: a node that executed a whole read of the wide key has a
// wide_partition finding claiming the bucket's floor of its rows, which
// nodetool tablehistograms' cell count confirms (pm_big.events has one
// regular cell per row); a node whose reads were 5,000-row pages has none: a
// full page says nothing of the partition. nodetool tablestats, read right
// before and right after the collection, says which node executed which
// read (a coordinator, the dynamic snitch or a speculative retry may send a
// read to another replica than the client chose, and the per-read
// histograms forget a read within a minute): a node is held to "whole" when
// both readings show the whole read, to "pages" when both show pages only.
func checkWideBothWays(t *testing.T, ctx context.Context, r *analyzer.Report, p testcluster.Problem, w wideReads) {
	t.Helper()
	if w.rows == 0 || w.before == nil || w.after == nil {
		t.Fatal("the wide key was not read, or nodetool was not asked around the collection")
	}
	var found []finding.Finding
	for _, f := range r.Findings {
		if f.Kind == analyzer.KindWidePartition && f.Keyspace == p.Keyspace && f.Table == p.Table {
			found = append(found, f)
		}
	}
	if len(found) > 1 {
		t.Fatalf("want one wide_partition finding for %s.%s, got %d: %+v", p.Keyspace, p.Table, len(found), found)
	}
	claimed := map[string]finding.NodeValue{}
	for _, f := range found {
		for _, n := range f.Nodes {
			claimed[n.Node] = n
		}
		t.Logf("wide_partition %s: %s", f.ID, f.Summary)
	}
	lo, hi := bucketOf(int64(w.rows))
	_, page := bucketOf(pagedPageSize)
	var whole, paged int
	for i, host := range testcluster.Hosts() {
		b, a := w.before[host], w.after[host]
		n, ok := claimed[host]
		switch {
		case b >= hi && a >= hi:
			whole++
			if !ok {
				t.Errorf("%s executed a read of %d rows (tablestats before and after: %d, %d live cells per slice) and has no wide_partition finding", host, w.rows, b, a)
				continue
			}
			if cells := maxCellCount(t, ctx, i+1, p.Keyspace, p.Table); cells != hi {
				t.Errorf("nodetool tablehistograms max cell count on %s: %d, want the bucket bound %d of the %d rows read", host, cells, hi, w.rows)
			}
		case b <= page && a <= page && max(a, b) > 0:
			paged++
			if ok {
				t.Errorf("wide_partition claimed on %s, whose reads returned at most %d rows each (tablestats before and after): %+v", host, max(a, b), n)
			}
		default:
			t.Logf("%s: %d then %d live cells per slice around the collection: not judged", host, b, a)
		}
		// Whatever the node, a claim is the bucket's floor of a real read.
		if ok && (int64(n.Value) != lo+1 || n.Value > float64(w.rows)) {
			t.Errorf("rows claimed on %s: %g, want the floor %d of the bucket (%d, %d] of the %d rows read", host, n.Value, lo+1, lo, hi, w.rows)
		}
	}
	if whole == 0 || paged == 0 {
		t.Fatalf("need a node that executed the whole read and one that executed only pages, both before and after the collection; got %d and %d (whole reads sent to %s, paged ones to %v; before %v, after %v)",
			whole, paged, w.whole, w.paged, w.before, w.after)
	}
	for _, f := range found {
		if f.Figures == nil || f.Figures.Rows <= 0 || f.Figures.Rows > float64(w.rows) || f.PartitionKey != "" {
			t.Errorf("the finding's lower bound of rows (%+v) must be at most the %d rows the partition has, with no key named: %+v", f.Figures, w.rows, f)
		}
	}
}

// TestFixtureRowsPerReadCountsReadCommands holds rows_per_read to what the
// wide_partition rule takes it for, on the real fixture cluster: after an
// unpaged read of the wide key (one read command), the node that executed it
// shows in system_views.rows_per_read the same bucket as nodetool
// tablehistograms' largest cell count for the table (pm_big.events has one
// regular cell per row), and after 5,000-row pages nothing above a page. On
// every node the CQL figure is nodetool tablestats' "live cells per slice".
func TestFixtureRowsPerReadCountsReadCommands(t *testing.T) {
	truth, err := testcluster.LoadTruth()
	if err != nil {
		t.Fatalf("no fixture truth (run deploy/local/fixtures load): %v", err)
	}
	wide := truth.Find(analyzer.KindWidePartition)
	if len(wide) == 0 {
		t.Fatal("the fixture truth plants no wide_partition")
	}
	p := wide[0]
	hosts := testcluster.Hosts()
	if len(hosts) < 2 {
		t.Fatalf("need two nodes, have %v", hosts)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	w := readWideKey(t, p, hosts[0], hosts[1])
	_, whole := bucketOf(int64(w.rows))
	_, page := bucketOf(pagedPageSize)
	sawWhole, sawPage := false, false
	for i, host := range hosts {
		// The reservoir decays (a read leaves it within about a minute) and a
		// nodetool JVM takes seconds to start: nodetool's figure, read between
		// two CQL readings, must equal one of them.
		_, _, max := rowsPerRead(t, host, p.Keyspace, p.Table)
		witness := maxLiveCellsPerSlice(t, ctx, i+1, p.Keyspace, p.Table)
		_, _, after := rowsPerRead(t, host, p.Keyspace, p.Table)
		if int64(max) != witness && int64(after) != witness {
			t.Errorf("%s: rows_per_read max %g before and %g after nodetool, nodetool tablestats max live cells per slice %d", host, max, after, witness)
		}
		switch {
		case int64(max) == whole:
			sawWhole = true
			if cells := maxCellCount(t, ctx, i+1, p.Keyspace, p.Table); cells != whole {
				t.Errorf("%s: nodetool tablehistograms max cell count %d, rows_per_read max %g; want both the bucket %d of the key's %d rows", host, cells, max, whole, w.rows)
			}
		case max > 0 && int64(max) <= page:
			sawPage = true
		case max > 0:
			t.Errorf("%s: rows_per_read max %g is neither a page (≤ %d) nor the whole key (%d)", host, max, page, whole)
		}
	}
	if !sawWhole || !sawPage {
		t.Errorf("after an unpaged and a paged read of %q no node shows the whole read (%v) or none a page (%v)", p.Key, sawWhole, sawPage)
	}
}
