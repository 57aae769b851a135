//go:build integration

package keyadvice

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"go.uber.org/zap/zaptest"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/collector"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/tools/testcluster"
)

var tol = loadTruth().Tolerances

const truthKeyspace = "partmon_advise"

// plantedRows are the rows of each planted table, by name.
func plantedRows(now time.Time) map[string][]map[string]any {
	r := rand.New(rand.NewPCG(53, 1))
	payload := strings.Repeat("p", 40)
	out := map[string][]map[string]any{}
	countries := []string{"de", "de", "de", "de", "fr", "fr", "fr", "us", "us", "jp"}
	for u := range 3000 {
		for i := range 1 + r.IntN(20) {
			out["events"] = append(out["events"], map[string]any{"user_id": u, "ts": now.Add(-time.Duration(i) * time.Minute),
				"country": countries[r.IntN(len(countries))], "kind": []string{"a", "b", "c", "d"}[r.IntN(4)], "payload": payload})
		}
	}
	start := now.Truncate(24 * time.Hour).Add(-15 * 24 * time.Hour)
	for s := range 1000 {
		for i := range 60 {
			out["series"] = append(out["series"], map[string]any{"sensor": s, "ts": start.Add(time.Duration(i) * 6 * time.Hour), "value": r.Float64()})
		}
	}
	for t := range 1500 {
		n := 5
		if t == 0 {
			n = 20000
		}
		for i := range n {
			out["whale"] = append(out["whale"], map[string]any{"tenant": t, "id": i, "shard": i % 8, "v": payload[:30]})
		}
	}
	for a := range 2000 {
		for m := range 3 {
			for i := range 5 {
				out["good"] = append(out["good"], map[string]any{"account": a, "month": m, "ts": now.Add(-time.Duration(i) * time.Hour), "v": payload[:20]})
			}
		}
	}
	return out
}

// planted is a truth table with its rows.
type planted struct {
	plantedTable
	rows []map[string]any
}

// plantedTables are testdata/truth.yaml's tables (its CI subset under
// PARTMON_TRUTH_CI=1) with their rows; a table
// without a generator, or whose rows lack a column it names, is an error.
func plantedTables(t *testing.T, now time.Time) []planted {
	t.Helper()
	f, rows := loadTruth(), plantedRows(now)
	ci := os.Getenv("PARTMON_TRUTH_CI") == "1"
	var out []planted
	for _, pt := range f.Tables {
		if ci && !pt.CI {
			continue
		}
		pt := planted{pt, rows[pt.Name]}
		if len(pt.rows) == 0 {
			t.Fatalf("testdata/truth.yaml: table %s has no generator", pt.Name)
		}
		for _, c := range pt.Cols {
			name, _, _ := strings.Cut(c, " ")
			if _, ok := pt.rows[0][name]; !ok {
				t.Fatalf("testdata/truth.yaml: %s's rows have no column %s", pt.Name, name)
			}
		}
		if len(pt.Keys) == 0 || pt.Keys[0].Key != pt.Key {
			t.Fatalf("testdata/truth.yaml: %s's first key is not its current key %s", pt.Name, pt.Key)
		}
		out = append(out, pt)
	}
	return out
}

func TestKeyAdviceHeldToBuiltTables(t *testing.T) {
	hosts := testcluster.Hosts()
	if slices.Contains(strings.Split(testcluster.DefaultHosts, ","), hosts[0]) {
		t.Skipf("the advisor's truth writes tables: it runs on a node of its own (scripts/test-side.sh), not the shared cluster at %s", hosts[0])
	}
	s := testcluster.Session(t, hosts[0])
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	exec(t, s, "DROP KEYSPACE IF EXISTS "+truthKeyspace)
	exec(t, s, "CREATE KEYSPACE "+truthKeyspace+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	t.Cleanup(func() { _ = s.Query("DROP KEYSPACE IF EXISTS " + truthKeyspace).Exec() })
	coll, err := collector.New(collector.Config{Hosts: hosts[:1], Mode: collector.ModeCluster, QueryTimeout: 20 * time.Second}, zaptest.NewLogger(t).Named("collector"))
	if err != nil {
		t.Fatal(err)
	}
	defer coll.Close()
	th := analyzer.DefaultThresholds()
	for _, pt := range plantedTables(t, time.Now().UTC().Truncate(time.Millisecond)) {
		t.Run(pt.Name, func(t *testing.T) {
			build(t, s, pt.Name, pt.Cols, pt.Key, pt.rows)
			cpu0 := nodeCPU(t)
			sample, err := coll.SampleKeys(ctx, truthKeyspace, pt.Name, model.SampleLimits{}, int(th.PartitionRowsWarning), nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s (%s): %d partitions, %d rows read in %d requests (by node %v), %.2f %% of the ring, %v, node CPU %v; stopped: %q", pt.Name, pt.Problem,
				len(sample.Partitions), sample.Cost.RowsRead, sample.Cost.Requests, sample.Cost.RequestsByNode, 100*sample.Cost.RingShare, sample.Cost.Elapsed.Round(time.Millisecond),
				nodeCPU(t)-cpu0, sample.Stopped)
			// The ring and the keyspace's replication placed on a real node:
			// each range read on a replica, not the first host by default.
			if sample.Routing != "" || len(sample.Cost.RequestsByNode) == 0 {
				t.Errorf("ranges not placed on their replicas: %s (requests by node %v)", sample.Routing, sample.Cost.RequestsByNode)
			}
			if tr := readTruth(t, s, pt.Name); sample.NodeMaxPartitionBytes < int64(tr.bytsMax) {
				t.Errorf("the node's largest partition read as %d bytes, tablehistograms' max is %.0f", sample.NodeMaxPartitionBytes, tr.bytsMax)
			}
			for i, tk := range pt.Keys {
				k, err := ParseKey(tk.Key)
				if err != nil {
					t.Fatal(err)
				}
				if err := k.Check(sample.Columns, collector.PrimitiveType); err != nil {
					t.Fatal(err)
				}
				p := Project(sample, k, Options{Thresholds: th})
				table := fmt.Sprintf("%s_k%d", pt.Name, i)
				cols, key, rows := keyed(pt.Cols, k, pt.rows)
				if i == 0 {
					table = pt.Name
				} else {
					build(t, s, table, cols, key, rows)
				}
				holdToTruth(t, s, table, tk.Key, p, len(cols)-keyColumns(k), tk.Decided)
				if warned := len(p.Warnings) > 0; warned != tk.Warned {
					t.Errorf("%s (%s design): warnings %q, want warned %v", tk.Key, pt.Design, p.Warnings, tk.Warned)
				}
				if pt.Design == "good" && len(p.Warnings) > 0 {
					t.Errorf("the good design's key %s is warned about: %v", tk.Key, p.Warnings)
				}
			}
		})
	}
}

func exec(t *testing.T, s *gocql.Session, q string) {
	t.Helper()
	if err := s.Query(q).Exec(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func keyColumns(k Key) int {
	n := len(k.Clustering)
	for _, t := range k.Partition {
		if !slices.Contains(k.Clustering, t.Column) || t.Width > 0 {
			n++
		}
	}
	return n
}

// keyed is the table of key k: a bucketed column gets a column of its own
// (name_bucket) holding the bucket's start.
func keyed(cols []string, k Key, rows []map[string]any) (outCols []string, pk string, outRows []map[string]any) {
	outCols = slices.Clone(cols)
	parts := make([]string, len(k.Partition))
	for i, t := range k.Partition {
		parts[i] = t.Column
		if t.Width > 0 {
			parts[i] = t.Column + "_bucket"
			outCols = append(outCols, parts[i]+" timestamp")
		}
	}
	pk = "((" + strings.Join(parts, ", ") + ")"
	for _, c := range k.Clustering {
		pk += ", " + c
	}
	pk += ")"
	for _, r := range rows {
		o := map[string]any{}
		for c, v := range r {
			o[c] = v
		}
		for _, t := range k.Partition {
			if t.Width > 0 {
				o[t.Column+"_bucket"] = r[t.Column].(time.Time).Truncate(t.Width)
			}
		}
		outRows = append(outRows, o)
	}
	return outCols, pk, outRows
}

// build creates table name with cols and PRIMARY KEY key, writes rows (32
// at a time) and flushes it.
func build(t *testing.T, s *gocql.Session, name string, cols []string, key string, rows []map[string]any) {
	t.Helper()
	exec(t, s, fmt.Sprintf("CREATE TABLE %s.%s (%s, PRIMARY KEY %s)", truthKeyspace, name, strings.Join(cols, ", "), key))
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i], _, _ = strings.Cut(c, " ")
	}
	stmt := fmt.Sprintf("INSERT INTO %s.%s (%s) VALUES (%s)", truthKeyspace, name, strings.Join(names, ", "), strings.TrimSuffix(strings.Repeat("?, ", len(names)), ", "))
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for w := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(rows); i += 32 {
				args := make([]any, len(names))
				for j, n := range names {
					args[j] = rows[i][n]
				}
				if err := s.Query(stmt, args...).Exec(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		t.Fatalf("writing %s: %v", name, err)
	}
	nodetool(t, "flush", truthKeyspace, name)
}

func nodetool(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := testcluster.Nodetool(ctx, 1, args...)
	if err != nil {
		t.Fatalf("nodetool %v: %v", args, err)
	}
	return out
}

// truth is what Cassandra reports of one built table.
type truth struct {
	partitions                  float64
	cellsP50, cellsP99, cellMax float64
	bytesP50, bytesP99, bytsMax float64
	maxPartitionMiB             int64
}

var histRow = regexp.MustCompile(`(?m)^(50%|99%|Max)\s+\S+\s+\S+\s+\S+\s+(\d+)\s+(\d+)\s*$`)

func readTruth(t *testing.T, s *gocql.Session, table string) truth {
	t.Helper()
	var tr truth
	stats := nodetool(t, "tablestats", truthKeyspace+"."+table)
	m := regexp.MustCompile(`Number of partitions \(estimate\): (\d+)`).FindStringSubmatch(stats)
	if m == nil {
		t.Fatalf("no partition estimate in tablestats of %s:\n%s", table, stats)
	}
	tr.partitions, _ = strconv.ParseFloat(m[1], 64)
	for _, m := range histRow.FindAllStringSubmatch(nodetool(t, "tablehistograms", truthKeyspace, table), -1) {
		size, _ := strconv.ParseFloat(m[2], 64)
		cells, _ := strconv.ParseFloat(m[3], 64)
		switch m[1] {
		case "50%":
			tr.bytesP50, tr.cellsP50 = size, cells
		case "99%":
			tr.bytesP99, tr.cellsP99 = size, cells
		case "Max":
			tr.bytsMax, tr.cellMax = size, cells
		}
	}
	if err := s.Query("SELECT mebibytes FROM system_views.max_partition_size WHERE keyspace_name = ? AND table_name = ?",
		truthKeyspace, table).Scan(&tr.maxPartitionMiB); err != nil {
		t.Logf("max_partition_size of %s: %v", table, err)
	}
	return tr
}

func within(got, want, factor float64) bool { return got <= want*factor && got >= want/factor }

func holdToTruth(t *testing.T, s *gocql.Session, table, key string, p Projection, cellsPerRow int, mustKnow bool) {
	t.Helper()
	tr := readTruth(t, s, table)
	t.Logf("%s as %s: projected %.0f partitions [%.0f, %.0f] (%s); rows p50 %.0f p99 %.0f max %.0f; bytes p50 %.0f p99 %.0f max %.0f; top %v; warnings %v",
		table, key, p.Partitions.Value, p.Partitions.Low, p.Partitions.High, p.Partitions.Why, p.Rows.P50, p.Rows.P99, p.Rows.Max,
		p.Bytes.P50, p.Bytes.P99, p.Bytes.Max, p.TopValues, p.Warnings)
	t.Logf("%s truth: %.0f partitions; cells p50 %.0f p99 %.0f max %.0f (%d a row); bytes p50 %.0f p99 %.0f max %.0f; max_partition_size %d MiB",
		table, tr.partitions, tr.cellsP50, tr.cellsP99, tr.cellMax, cellsPerRow, tr.bytesP50, tr.bytesP99, tr.bytsMax, tr.maxPartitionMiB)
	if !p.Partitions.Known {
		if mustKnow {
			t.Errorf("%s: partitions unknown (%s), but this key's sample decides them", key, p.Partitions.Why)
		}
		return
	}
	se := (p.Partitions.High - p.Partitions.Low) / (2 * z95)
	if d := math.Abs(p.Partitions.Value - tr.partitions); d > math.Max(tol.PartitionsSE*se, tol.PartitionsRel*tr.partitions) {
		t.Errorf("%s: %.0f partitions projected, Cassandra counts %.0f", key, p.Partitions.Value, tr.partitions)
	}
	if !p.Rows.Known {
		return
	}
	cpr := float64(cellsPerRow)
	// A p99 the sample does not decide (its tail one or two draws, as when
	// the whale's one partition was drawn) is said to be unknown, and held
	// to nothing; the max stays bounded by the table's.
	rowsP99 := !p.Rows.P99Decided() || within(p.Rows.P99*cpr, tr.cellsP99, tol.RowsP99Factor)
	bytesP99 := !p.Bytes.P99Decided() || within(p.Bytes.P99, tr.bytesP99, tol.BytesFactor)
	if !p.Rows.P99Decided() {
		t.Logf("%s: p99 not decided: its tail rests on %d sampled partition(s)", key, p.Rows.P99Draws)
	}
	if !within(p.Rows.P50*cpr, tr.cellsP50, tol.RowsP50Factor) || !rowsP99 || p.Rows.Max*cpr > tr.cellMax*tol.RowsMaxFactor {
		t.Errorf("%s: rows p50 %.0f p99 %.0f max %.0f (× %d cells) against cells p50 %.0f p99 %.0f max %.0f", key, p.Rows.P50, p.Rows.P99, p.Rows.Max, cellsPerRow, tr.cellsP50, tr.cellsP99, tr.cellMax)
	}
	if !within(p.Bytes.P50, tr.bytesP50, tol.BytesFactor) || !bytesP99 || p.Bytes.Max > tr.bytsMax*tol.BytesMaxFactor ||
		tr.maxPartitionMiB > 0 && p.Bytes.Max > float64(tr.maxPartitionMiB<<20) {
		t.Errorf("%s: bytes p50 %.0f p99 %.0f max %.0f against p50 %.0f p99 %.0f max %.0f", key, p.Bytes.P50, p.Bytes.P99, p.Bytes.Max, tr.bytesP50, tr.bytesP99, tr.bytsMax)
	}
}

// nodeCPU is the node's JVM's user+system CPU time so far.
func nodeCPU(t *testing.T) time.Duration {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, pid, err := testcluster.Faults{Dir: testcluster.Dir()}.State(ctx, 1)
	if err != nil || pid == 0 {
		t.Fatalf("node 1's pid: %v", err)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64) // utime, field 14 of stat
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ
}

// The sampler's limits hold on a real node: a low rows-per-second limit
// paces it, the rows limit stops it, and its cost is measured.
func TestKeySamplerHoldsItsLimits(t *testing.T) {
	hosts := testcluster.Hosts()
	if slices.Contains(strings.Split(testcluster.DefaultHosts, ","), hosts[0]) {
		t.Skipf("the sampler's limits test writes a table: it runs on a node of its own (scripts/test-side.sh), not the shared cluster at %s", hosts[0])
	}
	s := testcluster.Session(t, hosts[0])
	exec(t, s, "CREATE KEYSPACE IF NOT EXISTS "+truthKeyspace+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	exec(t, s, "DROP TABLE IF EXISTS "+truthKeyspace+".paced")
	var rows []map[string]any
	for k := range 3000 {
		for c := range 10 {
			rows = append(rows, map[string]any{"k": k, "c": c, "v": "value"})
		}
	}
	build(t, s, "paced", []string{"k int", "c int", "v text"}, "((k), c)", rows)
	coll, err := collector.New(collector.Config{Hosts: hosts[:1], Mode: collector.ModeCluster, QueryTimeout: 20 * time.Second}, zaptest.NewLogger(t).Named("collector"))
	if err != nil {
		t.Fatal(err)
	}
	defer coll.Close()
	// The latency stop is held by its unit test: here, on a shared box, a
	// neighbour's load could stop the sample before its rows limit.
	lim := model.SampleLimits{RowsPerSecond: 500, MaxRows: 3000, PageRows: 100, MaxRingShare: 0.5, Partitions: 10000, LatencyFloor: 10 * time.Second}
	cpu0, t0 := nodeCPU(t), time.Now()
	sample, err := coll.SampleKeys(context.Background(), truthKeyspace, "paced", lim, 100000, nil)
	elapsed, cpu := time.Since(t0), nodeCPU(t)-cpu0
	if err != nil {
		t.Fatal(err)
	}
	rate := float64(sample.Cost.RowsRead) / elapsed.Seconds()
	t.Logf("read %d rows (%d partitions) in %d requests over %v: %.0f rows/s against a limit of %.0f; node CPU %v (%.1f ms per 1,000 rows); stopped: %q",
		sample.Cost.RowsRead, len(sample.Partitions), sample.Cost.Requests, elapsed.Round(time.Millisecond), rate, lim.RowsPerSecond,
		cpu, float64(cpu.Milliseconds())*1000/float64(sample.Cost.RowsRead), sample.Stopped)
	if rate > lim.RowsPerSecond*1.1 {
		t.Errorf("%.0f rows/s, over the %.0f limit", rate, lim.RowsPerSecond)
	}
	if sample.Cost.RowsRead > lim.MaxRows || sample.Stopped != "rows limit reached" {
		t.Errorf("%d rows read, stopped %q: the %d-row limit did not hold", sample.Cost.RowsRead, sample.Stopped, lim.MaxRows)
	}
}
