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
	onlyCreate bool
	loadChunk  int
	loadFrom   int
	loadLimit  int
	requests   bool
	longLife   time.Duration
	estimates  time.Duration
	jsonOut    string
	markdown   string
	histoTable string

	jmxJar        string
	samplerWindow time.Duration
	samplerRuns   int
	idleWindow    time.Duration
	sourceReps    int  // reads per source per measured action (0: sources not measured one by one)
	nodeCostOnly  bool // only what the node pays: idle, cycle, sources, jmx_exporter, the CQL schedule
	schemaRows    bool // create tables by their system_schema rows (schemarows.go)
	runnerCost    bool // with nodeCostOnly: the schedule's nodetool group too
	agentWindow   time.Duration
	gcLog         *gcLog // the measured node's GC pause log, set by benchmark
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
	flag.BoolVar(&o.requests, "cql-requests", false, "print the CQL requests the cluster's nodes counted from other clients (system_views.clients), then exit")
	flag.IntVar(&o.loadLimit, "load-tables", 0, "load data into the first N tables only, the rest stay empty and idle (0: every table)")
	flag.IntVar(&o.workers, "workers", 4, "concurrent schema changes while creating tables, and concurrent writers while loading them")
	flag.BoolVar(&o.populate, "populate", true, "create and load the tables (false: they exist from an earlier run)")
	flag.IntVar(&o.loadChunk, "load-chunk", 100, "tables loaded between two flushes of every node (each flush is a nodetool JVM; fewer flushes are faster on a busy box, more memtables wait in the heap)")
	flag.IntVar(&o.loadFrom, "populate-from", -1, "with --populate-only: the first table to create and load (the ones before it exist with their data; -1: as many as exist)")
	flag.BoolVar(&o.onlyCreate, "populate-only", false, "create and load the tables up to each count of --tables in turn, wait for their estimates and stop: a cluster to reuse with --populate=false (scripts/scale-cluster.sh grows a schema in steps)")
	flag.DurationVar(&o.longLife, "long-run", 70*time.Second, "life of the first partmon run process per table count, so that it lives through a scheduled (@every 1m) collection")
	flag.DurationVar(&o.estimates, "estimates-timeout", 5*time.Minute, "how long to wait for system.table_estimates to list every table (0: no wait, tables without data are measured as they are)")
	flag.StringVar(&o.jsonOut, "json", "", "also write the raw results to this JSON file")
	flag.StringVar(&o.markdown, "markdown", "", "also write the results table (Markdown) to this file")
	flag.StringVar(&o.histoTable, "histograms-table", "bench_00.t000", "the table `nodetool tablehistograms` is timed on")
	flag.DurationVar(&o.idleWindow, "idle-window", 5*time.Second, "quiet window per run that measures the node's idle CPU and GC")
	flag.IntVar(&o.sourceReps, "source-reads", 5, "reads of each CQL source per measured action, for its cost to the node (0: not measured)")
	flag.BoolVar(&o.schemaRows, "schema-rows", false, "one-node cluster only: create the tables by writing the system_schema rows CREATE TABLE writes, copied from the first table, and one nodetool reloadlocalschema (minutes for 10,000 tables, where one CREATE at a time takes hours)")
	flag.BoolVar(&o.nodeCostOnly, "node-cost-only", false, "measure only the node's CPU: idle, the cycle, each source, jmx_exporter and the schedule without the nodetool runner (no nodetool, report, daemon or sampler runs)")
	peerFlags(&o)
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
	if o.requests {
		c, err := openCluster(o.dir)
		if err == nil {
			var n int64
			if n, err = cqlRequests(ctx, c); err == nil {
				fmt.Println(n)
				return
			}
		}
		fail(err)
	}
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

// peerFlags are the flags of the peers and the nodetool runner.
func peerFlags(o *options) {
	flag.StringVar(&o.jmxJar, "jmx-exporter-jar", "", "jmx_prometheus_httpserver-"+jmxExporterVersion+".jar to compare with (empty: not measured)")
	flag.DurationVar(&jmxScrapeTimeout, "jmx-timeout", jmxScrapeTimeout, "bound of one jmx_exporter scrape (its JVM is slow to get CPU on a busy box under nice)")
	flag.DurationVar(&o.samplerWindow, "sampler-window", 5*time.Second, "sampling window of the nodetool sampler pass")
	flag.IntVar(&o.samplerRuns, "sampler-runs", 3, "nodetool sampler passes per table count (0: none)")
	flag.BoolVar(&o.runnerCost, "runner-cost", false, "with --node-cost-only: also measure the nodetool runner's sources (profileload, tablehistograms, tablestats) as the schedule's 10-minute group")
	flag.DurationVar(&o.agentWindow, "agent-window", 0, "with a cluster started with --javaagent: also measure the node over a window this long without scrapes, then with the agent scraped every 15, 30 and 60 s, once per configuration, at the largest table count (0: not)")
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
	pid, err := c.cassandraPID(ctx, o.node)
	if err != nil {
		return nil, err
	}
	if o.gcLog, err = enableGCLog(ctx, pid, c.dir); err != nil {
		logf("GC pauses not measured: %v", err)
	}
	if o.onlyCreate {
		return nil, populateOnly(ctx, c, o)
	}
	var results []*stageResult
	have := 0
	for _, n := range o.tables {
		if o.populate {
			if err := grow(ctx, c, have, n, o); err != nil {
				return results, err
			}
		}
		if o.estimates > 0 { // 0: tables without data are measured as they are
			if err := waitEstimates(ctx, c, n, o.loadLimit, o.estimates); err != nil {
				return results, err
			}
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

// grow takes the schema from `from` to `to` tables, loads them a chunk at a
// time and flushes every node after each chunk. --load-chunk is how many
// tables get their data between two flushes: every memtable written holds at
// least one slab region (1 MiB) of heap until it is flushed, and with ~1 MiB
// of metrics per table on top, writing 1,000 tables in one go ran 2 GiB nodes
// out of heap (the default is 100).
func grow(ctx context.Context, c *benchCluster, from, to int, o options) error {
	s, err := c.session()
	if err != nil {
		return err
	}
	defer s.Close()
	create := func() error { return createTables(ctx, s, from, to, o.workers, c.replication()) }
	if o.schemaRows {
		create = func() error { return createTablesBySchemaRows(ctx, c, s, from, to, o.workers) }
	}
	if err := create(); err != nil {
		return err
	}
	if o.loadLimit > 0 {
		to = min(to, o.loadLimit)
	}
	chunk := max(o.loadChunk, 1)
	for lo := from; lo < to; lo += chunk {
		hi := min(lo+chunk, to)
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

// populateOnly grows the schema from --populate-from (or the tables that
// exist) to each count of --tables in turn, loads them and waits for their
// estimates: the creation rate is a figure of its own at thousands of tables.
func populateOnly(ctx context.Context, c *benchCluster, o options) error {
	have := o.loadFrom
	if have < 0 {
		var err error
		if have, err = existingTables(ctx, c); err != nil {
			return err
		}
	}
	for _, n := range o.tables {
		if n <= have {
			continue
		}
		if err := grow(ctx, c, have, n, o); err != nil {
			return err
		}
		have = n
	}
	logf("the schema has %d benchmark tables", have)
	return waitEstimates(ctx, c, have, o.loadLimit, o.estimates)
}
