// Command benchtables measures partmon against a real local Cassandra
// cluster at growing table counts: it creates the tables (10, 100, 1,000 by
// default) with a little data each, flushes them so that estimates exist,
// and measures on one node, in the same run, partmon's cycle, queries, rows,
// memory and /metrics scrape next to the real `nodetool tablestats`.
//
// It expects a cluster started by `deploy/local/cluster up --dir DIR`;
// scripts/bench.sh (make bench) starts and stops one for it.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type options struct {
	dir        string
	partmon    string
	tables     []int
	runs       int
	scrapes    int
	node       int
	workers    int
	populate   bool
	longLife   time.Duration
	estimates  time.Duration
	jsonOut    string
	markdown   string
	histoTable string
}

func main() {
	var o options
	var tables string
	flag.StringVar(&o.dir, "dir", "", "state directory of the cluster started by deploy/local/cluster up (required)")
	flag.StringVar(&o.partmon, "partmon", "bin/partmon", "the partmon binary to measure (make build)")
	flag.StringVar(&tables, "tables", "10,100,1000", "benchmark table counts, ascending; the schema grows from one to the next")
	flag.IntVar(&o.runs, "runs", 5, "repetitions of every measurement; figures are medians")
	flag.IntVar(&o.scrapes, "scrapes", 10, "/metrics scrapes per partmon run process")
	flag.IntVar(&o.node, "node", 1, "the node measured (1-based)")
	flag.IntVar(&o.workers, "workers", 4, "concurrent schema changes while creating tables, and concurrent writers while loading them")
	flag.BoolVar(&o.populate, "populate", true, "create and load the tables (false: they exist from an earlier run)")
	flag.DurationVar(&o.longLife, "long-run", 70*time.Second, "life of the first partmon run process per table count, so that it lives through a scheduled (@every 1m) collection")
	flag.DurationVar(&o.estimates, "estimates-timeout", 5*time.Minute, "how long to wait for system.table_estimates to list every table")
	flag.StringVar(&o.jsonOut, "json", "", "also write the raw results to this JSON file")
	flag.StringVar(&o.markdown, "markdown", "", "also write the results table (Markdown) to this file")
	flag.StringVar(&o.histoTable, "histograms-table", "bench_00.t000", "the table `nodetool tablehistograms` is timed on")
	flag.Parse()
	var err error
	if o.tables, err = parseCounts(tables); err != nil || o.dir == "" || o.runs < 1 || o.scrapes < 1 {
		fmt.Fprintln(os.Stderr, "usage: benchtables --dir DIR [--partmon bin/partmon] [--tables 10,100,1000] [--runs 5]")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
		os.Exit(2)
	}
	if o.partmon, err = filepath.Abs(o.partmon); err != nil {
		fail(err)
	}
	if _, err := os.Stat(o.partmon); err != nil {
		fail(fmt.Errorf("partmon binary: %w (run make build)", err))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	results, err := benchmark(ctx, o)
	if len(results) > 0 {
		printSummary(os.Stdout, results, o)
		if o.markdown != "" {
			f, ferr := os.Create(o.markdown)
			if ferr == nil {
				writeMarkdown(f, results)
				ferr = f.Close()
			}
			if ferr != nil {
				fail(ferr)
			}
		}
		if o.jsonOut != "" {
			if jerr := writeJSON(o.jsonOut, results); jerr != nil {
				fail(jerr)
			}
		}
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "benchtables: %v\n", err)
	os.Exit(1)
}

func logf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "%s benchtables: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, a...))
}

func parseCounts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--tables: %q is not a positive count", f)
		}
		if len(out) > 0 && n <= out[len(out)-1] {
			return nil, fmt.Errorf("--tables must ascend")
		}
		out = append(out, n)
	}
	return out, nil
}

func benchmark(ctx context.Context, o options) ([]*stageResult, error) {
	c, err := openCluster(o.dir)
	if err != nil {
		return nil, err
	}
	if o.node < 1 || o.node > len(c.hosts) {
		return nil, fmt.Errorf("--node %d: the cluster has %d nodes", o.node, len(c.hosts))
	}
	var results []*stageResult
	have := 0
	for _, n := range o.tables {
		if o.populate {
			if err := grow(ctx, c, have, n, o); err != nil {
				return results, err
			}
		}
		if err := waitEstimates(ctx, c, n, o.estimates); err != nil {
			return results, err
		}
		have = n
		r, err := measure(ctx, c, n, o)
		if r != nil {
			results = append(results, r)
			printStage(os.Stdout, r)
		}
		if err != nil {
			return results, err
		}
	}
	return results, nil
}

// loadChunk is how many tables get their data between two flushes: every
// memtable written holds at least one slab region (1 MiB) of heap until it
// is flushed, and with ~1 MiB of metrics per table on top, writing 1,000
// tables in one go ran 2 GiB nodes out of heap.
const loadChunk = 100

// grow takes the schema from `from` to `to` tables, loads them a chunk at a
// time and flushes every node after each chunk.
func grow(ctx context.Context, c *benchCluster, from, to int, o options) error {
	s, err := c.session()
	if err != nil {
		return err
	}
	defer s.Close()
	if err := createTables(ctx, s, from, to, o.workers); err != nil {
		return err
	}
	for lo := from; lo < to; lo += loadChunk {
		hi := min(lo+loadChunk, to)
		if err := loadTables(ctx, s, lo, hi, o.workers); err != nil {
			return err
		}
		start := time.Now()
		for i := range c.hosts {
			if _, _, err := c.nodetool(ctx, i+1, "flush"); err != nil {
				return err
			}
		}
		logf("flushed %d nodes in %.1f s", len(c.hosts), time.Since(start).Seconds())
	}
	return nil
}

// stageResult is everything measured at one table count.
type stageResult struct {
	UserTables int    `json:"user_tables"`
	Node       string `json:"node"`
	// TablesSeen are the tables with figures on the node (system tables too);
	// BenchWithData the benchmark tables with estimates and a max size.
	TablesSeen    int `json:"tables_seen"`
	BenchWithData int `json:"bench_tables_with_data"`

	ColdCycle  float64   `json:"cold_cycle_ms"` // first cycle: connect, probe, collect, analyze
	Cycle      []float64 `json:"cycle_ms"`      // warm, collect + analyze
	Collect    []float64 `json:"collect_ms"`
	Analyze    []float64 `json:"analyze_ms"`
	Statements []int64   `json:"statements_per_cycle"`
	ColdStmts  int64     `json:"statements_first_cycle"`
	Pages      []int64   `json:"round_trips_per_cycle"`
	Rows       []int64   `json:"rows_per_cycle"`
	Failed     []string  `json:"failed_sources,omitempty"`
	// PerStatement is the last warm cycle's statements on the node.
	PerStatement []stmtCount `json:"per_statement"`

	ClusterCycle []float64         `json:"cluster_mode_cycle_ms"`
	ClusterStmts map[string]int64  `json:"cluster_mode_statements_per_node"`
	ClusterPages map[string]int64  `json:"cluster_mode_round_trips_per_node"`
	OneShot      []float64         `json:"partmon_report_process_ms"`
	Tablestats   []float64         `json:"nodetool_tablestats_ms"`
	Histograms   []float64         `json:"nodetool_tablehistograms_ms"`
	NodetoolVer  []float64         `json:"nodetool_version_ms"`
	TablestatsKB int               `json:"nodetool_tablestats_output_kib"`
	Ready        []float64         `json:"daemon_ready_ms"`
	PeakRSS      []float64         `json:"daemon_peak_rss_mib"`
	Scrape       []float64         `json:"scrape_ms"`
	ScrapeBytes  int               `json:"scrape_bytes"`
	ScrapeGzip   int               `json:"scrape_gzip_bytes"`
	Series       map[string]any    `json:"series"`
	series       seriesCount       // for printing
	Load         map[string]string `json:"load"`
}

func measure(ctx context.Context, c *benchCluster, n int, o options) (*stageResult, error) {
	node := c.hosts[o.node-1]
	r := &stageResult{UserTables: n, Node: node, Load: map[string]string{"start": loadAvg()}}
	logf("measuring %d tables on node %d (%s), %d runs", n, o.node, node, o.runs)

	side, err := newCycleBench([]string{node}, "sidecar")
	if err != nil {
		return nil, err
	}
	defer side.close()
	clus, err := newCycleBench(c.hosts, "cluster")
	if err != nil {
		return nil, err
	}
	defer clus.close()

	cold := side.run(ctx)
	r.ColdCycle = ms(cold.total())
	r.ColdStmts = cold.statements[node]
	_ = clus.run(ctx) // connects and probes every node
	side.counter.statements(node)

	ks, tbl, _ := strings.Cut(o.histoTable, ".")
	for i := 0; i < o.runs; i++ {
		if ctx.Err() != nil {
			return r, ctx.Err()
		}
		s := side.run(ctx)
		r.Cycle = append(r.Cycle, ms(s.total()))
		r.Collect = append(r.Collect, ms(s.collect))
		r.Analyze = append(r.Analyze, ms(s.analyze))
		r.Statements = append(r.Statements, s.statements[node])
		r.Pages = append(r.Pages, s.pages[node])
		r.Rows = append(r.Rows, s.rows[node])
		r.Failed = s.failed
		r.TablesSeen, r.BenchWithData = tablesSeen(s.snapshot, node)
		r.PerStatement = side.counter.statements(node)

		cs := clus.run(ctx)
		r.ClusterCycle = append(r.ClusterCycle, ms(cs.total()))
		r.ClusterStmts, r.ClusterPages = cs.statements, cs.pages
		if len(cs.failed) > 0 {
			r.Failed = append(r.Failed, cs.failed...)
		}

		d, err := oneShot(ctx, o.partmon, node)
		if err != nil {
			return r, err
		}
		r.OneShot = append(r.OneShot, ms(d))

		out, d, err := c.nodetool(ctx, o.node, "tablestats")
		if err != nil {
			return r, err
		}
		r.Tablestats = append(r.Tablestats, ms(d))
		r.TablestatsKB = len(out) / 1024
		if _, d, err = c.nodetool(ctx, o.node, "tablehistograms", ks, tbl); err != nil {
			return r, err
		}
		r.Histograms = append(r.Histograms, ms(d))
		if _, d, err = c.nodetool(ctx, o.node, "version"); err != nil {
			return r, err
		}
		r.NodetoolVer = append(r.NodetoolVer, ms(d))
		logf("run %d/%d: cycle %.0f ms (%d statements), partmon report %.0f ms, tablestats %.0f ms",
			i+1, o.runs, r.Cycle[i], r.Statements[i], r.OneShot[i], r.Tablestats[i])
	}
	side.close()
	clus.close()

	for i := 0; i < o.runs; i++ {
		life := 2 * time.Second
		if i == 0 {
			life = o.longLife
		}
		d, err := runDaemon(ctx, o.partmon, node, o.scrapes, life)
		if err != nil {
			return r, err
		}
		r.Ready = append(r.Ready, ms(d.ready))
		r.PeakRSS = append(r.PeakRSS, float64(d.peakKiB)/1024)
		for _, s := range d.scrapes {
			r.Scrape = append(r.Scrape, ms(s))
		}
		r.ScrapeBytes, r.ScrapeGzip, r.series = d.bytes, d.gzipBytes, d.series
		logf("partmon run %d/%d (life %s): ready %.0f ms, peak RSS %.1f MiB, scrape median %.1f ms, %d series",
			i+1, o.runs, life, r.Ready[i], r.PeakRSS[i], median(r.Scrape[len(r.Scrape)-len(d.scrapes):]), d.series.total)
	}
	s := r.series
	r.Series = map[string]any{
		"total": s.total, "partmon": s.partmon, "table_node": s.tableNode, "with_table_label": s.tableAny,
		"tables": s.tables, "per_table_node": s.perTable(), "all_per_table": s.perTableAll(), "max_per_table_node": s.maxPerTable,
		"bench_table_node": s.bench, "bench_tables": s.benchTables,
	}
	r.Load["end"] = loadAvg()
	return r, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median[T int64 | float64](v []T) T {
	if len(v) == 0 {
		return 0
	}
	s := append([]T(nil), v...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func minMax[T int64 | float64](v []T) (T, T) {
	if len(v) == 0 {
		return 0, 0
	}
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func writeJSON(path string, results []*stageResult) error {
	b, err := json.MarshalIndent(results, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
