package main

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"
)

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
	Signals      map[string]bool   `json:"partmon_signals"`
	Load         map[string]string `json:"load"`

	// Cost to the node (Cassandra's CPU and GC pauses) and to the client's
	// own process, per action, with the node's idle rate.
	Cost map[string][]nodeCost `json:"cost"` // costCycle, costJMX, costTablestats, the schedule's groups
	// SchedulePeriods is each schedule group's period in seconds, by its Cost key.
	SchedulePeriods map[string]float64 `json:"schedule_periods_s"`
	// SourceReads are each CQL source's statements, pages and rows per read
	// (its node CPU is under Cost[costSourcePrefix+name]).
	SourceReads map[string]sourceRead `json:"source_reads,omitempty"`
	// The default schedule's minutes (ticks.go): each distinct set of sources
	// one minute runs (its costs under Cost[key]), how many minutes of the
	// common cycle run it, and the statements each measured run sent.
	TickMinutes      map[string]int     `json:"tick_minutes,omitempty"`
	TickStatements   map[string][]int64 `json:"tick_statements,omitempty"`
	TickCycleMinutes float64            `json:"tick_cycle_minutes,omitempty"`
	// ScheduleFailed are the schedule groups' source failures, "source: error".
	ScheduleFailed []string  `json:"schedule_failed_sources,omitempty"`
	IdleCPU        []float64 `json:"node_idle_cpu_s_per_s"`
	IdleGC         []float64 `json:"node_idle_gc_ms_per_s"`
	// GCMeasured: the node's GC pause log could be switched on (jcmd).
	GCMeasured bool `json:"gc_measured"`
	idle       *costMeter

	Peer  *peerResult  `json:"jmx_exporter,omitempty"`
	Agent *agentResult `json:"jmx_exporter_javaagent,omitempty"`
	// RunLoad is the load average (1/5/15 min) at the start of each run.
	RunLoad []string       `json:"run_load,omitempty"`
	Sampler *samplerResult `json:"sampler,omitempty"`
}

const (
	costCycle      = "partmon_cycle"
	costJMX        = "jmx_exporter_scrape"
	costTablestats = "nodetool_tablestats"
	// costHistograms is partmon's nodetool_histograms source's one run:
	// `nodetool tablehistograms` over every table of the node.
	costHistograms = "nodetool_tablehistograms_all"
)

// peerResult is jmx_exporter at one table count.
type peerResult struct {
	Version string          `json:"version"`
	Cold    float64         `json:"first_scrape_ms"` // the first scrape once it listens: JMX connect, first MBean walk
	Scrape  []float64       `json:"scrape_ms"`
	Bytes   int             `json:"scrape_bytes"`
	Gzip    int             `json:"scrape_gzip_bytes"`
	Series  int             `json:"series"`
	PeakRSS float64         `json:"peak_rss_mib"`
	RSS     float64         `json:"rss_mib"`
	Signals map[string]bool `json:"signals"`
	Skipped string          `json:"skipped,omitempty"`
}

// samplerResult is the nodetool sampler pass at one table count.
type samplerResult struct {
	Window   float64   `json:"window_s"`
	Pass     []float64 `json:"pass_ms"`
	Entries  []int     `json:"entries"`
	Tables   []int     `json:"tables_with_keys"`
	HotFound []bool    `json:"hot_key_found"`
	Ops      []int64   `json:"traffic_writes"`
	Errors   []string  `json:"errors,omitempty"`
}

// idleNet is an action's node CPU (s) and GC pauses (ms) less the node's
// median idle rate over the action's wall time, never below zero.
func (r *stageResult) idleNet(c nodeCost) (cpu, gc float64) {
	return max(c.CPU-median(r.IdleCPU)*c.Wall, 0), max(c.GC-median(r.IdleGC)*c.Wall, 0)
}

func measure(ctx context.Context, c *benchCluster, n int, o options) (*stageResult, error) {
	node := c.hosts[o.node-1]
	r := &stageResult{UserTables: n, Node: node, Load: map[string]string{"start": loadAvg()}, Cost: map[string][]nodeCost{},
		SchedulePeriods: map[string]float64{}, SourceReads: map[string]sourceRead{},
		TickMinutes: map[string]int{}, TickStatements: map[string][]int64{}}
	logf("measuring %d tables on node %d (%s), %d runs", n, o.node, node, o.runs)
	pid, err := c.cassandraPID(ctx, o.node)
	if err != nil {
		return nil, err
	}
	r.idle = &costMeter{pid: pid, gc: o.gcLog}
	r.GCMeasured = o.gcLog != nil
	err = measureRuns(ctx, c, r, o)
	r.IdleCPU, r.IdleGC = r.idle.idleCPU, r.idle.idleGC // also for the runs before a failure
	if err != nil {
		return r, err
	}
	if !o.nodeCostOnly {
		if err := measureSampler(ctx, c, r, o); err != nil {
			return r, err
		}
		if err := measureDaemons(ctx, r, o); err != nil {
			return r, err
		}
	}
	r.Load["end"] = loadAvg()
	return r, nil
}

// measureRuns interleaves, o.runs times: an idle window of the node, the
// warm sidecar and cluster cycles, `partmon report`, one jmx_exporter
// scrape, nodetool tablestats, tablehistograms and version, and the default
// schedule's source groups with the nodetool runner on.
func measureRuns(ctx context.Context, c *benchCluster, r *stageResult, o options) error {
	node := r.Node
	side, err := newCycleBench([]string{node}, "sidecar")
	if err != nil {
		return err
	}
	defer side.close()
	clus, err := newCycleBench(c.hosts, "cluster")
	if err != nil {
		return err
	}
	defer clus.close()
	sched, err := newScheduleBench(c, o.node, !o.nodeCostOnly || o.runnerCost)
	if err != nil {
		return err
	}
	defer sched.close()
	var perSource *sourceBench
	if o.sourceReps > 0 {
		if perSource, err = newSourceBench(node, o.sourceReps); err != nil {
			return err
		}
		defer perSource.close()
		perSource.warm(ctx)
	}
	peer, err := startPeer(ctx, c, r, o)
	if err != nil {
		return err
	}
	if peer != nil {
		defer peer.stop()
	}
	agent, err := startAgent(c, r, o)
	if err != nil {
		return err
	}
	warmUp(ctx, side, clus, sched, r)

	for i := 0; i < o.runs; i++ {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.RunLoad = append(r.RunLoad, loadAvg())
		if err := r.idle.idleWindow(ctx, o.idleWindow); err != nil {
			return err
		}
		if err := runCycles(ctx, side, clus, r); err != nil {
			return err
		}
		if err := perSource.runAll(ctx, r); err != nil {
			return err
		}
		if err := scrapePeers(peer, agent, r); err != nil {
			return err
		}
		if o.nodeCostOnly { // the minutes of the schedule are measured by perSource
			if err := sched.runGroup(ctx, r, costScheduleNodetool, o.runnerCost); err != nil {
				return err
			}
			logf("run %d/%d: cycle %.0f ms (%d statements)%s", i+1, o.runs, r.Cycle[i], r.Statements[i], peerLog(r))
			continue
		}
		d, err := oneShot(ctx, o.partmon, node)
		if err != nil {
			return err
		}
		r.OneShot = append(r.OneShot, ms(d))
		if err := runNodetool(ctx, c, r, o); err != nil {
			return err
		}
		if err := sched.run(ctx, r); err != nil {
			return err
		}
		logf("run %d/%d: cycle %.0f ms (%d statements), partmon report %.0f ms, tablestats %.0f ms%s",
			i+1, o.runs, r.Cycle[i], r.Statements[i], r.OneShot[i], r.Tablestats[i], peerLog(r))
	}
	return agentWindows(ctx, agent, r, o)
}

// warmUp takes the first (cold) cycles, unmeasured but the sidecar's.
func warmUp(ctx context.Context, side, clus *cycleBench, sched *scheduleBench, r *stageResult) {
	cold := side.run(ctx)
	r.ColdCycle = ms(cold.total())
	r.ColdStmts = cold.statements[r.Node]
	_ = clus.run(ctx) // connects and probes every node
	side.counter.statements(r.Node)
	sched.warm(ctx)
}

// scrapePeers is one measured scrape of the standalone jmx_exporter and
// one of each javaagent configuration.
func scrapePeers(peer *jmxExporter, agent *agentPeer, r *stageResult) error {
	if err := scrapePeer(peer, r); err != nil {
		return err
	}
	return scrapeAgent(agent, r)
}

// runCycles is one warm sidecar cycle (with its cost to the node and to
// partmon's process) and one cluster-mode cycle.
func runCycles(ctx context.Context, side, clus *cycleBench, r *stageResult) error {
	node := r.Node
	var s cycleSample
	nc, err := r.idle.measure(func() (float64, error) {
		before := selfCPU()
		s = side.run(ctx)
		return selfCPU() - before, nil
	})
	if err != nil {
		return err
	}
	r.Cost[costCycle] = append(r.Cost[costCycle], nc)
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
	return nil
}

// runNodetool times tablestats and tablehistograms over every table (each
// with its cost), tablehistograms of one table and version.
func runNodetool(ctx context.Context, c *benchCluster, r *stageResult, o options) error {
	out, took, err := costedNodetool(ctx, c, r, o, costTablestats, "tablestats")
	if err != nil {
		return err
	}
	r.Tablestats = append(r.Tablestats, ms(took))
	r.TablestatsKB = len(out) / 1024
	if _, _, err := costedNodetool(ctx, c, r, o, costHistograms, "tablehistograms"); err != nil {
		return err
	}
	ks, tbl, _ := strings.Cut(o.histoTable, ".")
	if _, took, err = c.nodetool(ctx, o.node, "tablehistograms", ks, tbl); err != nil {
		return err
	}
	r.Histograms = append(r.Histograms, ms(took))
	if _, took, err = c.nodetool(ctx, o.node, "version"); err != nil {
		return err
	}
	r.NodetoolVer = append(r.NodetoolVer, ms(took))
	return nil
}

// costedNodetool runs nodetool args on the measured node and records what
// it cost the node under r.Cost[key].
func costedNodetool(ctx context.Context, c *benchCluster, r *stageResult, o options, key string, args ...string) (string, time.Duration, error) {
	var out string
	var took time.Duration
	nc, err := r.idle.measure(func() (float64, error) {
		var cpu float64
		var err error
		out, took, cpu, err = c.nodetoolCPU(ctx, o.node, args...)
		return cpu, err
	})
	if err != nil {
		return "", 0, err
	}
	r.Cost[key] = append(r.Cost[key], nc)
	return out, took, nil
}

// startPeer starts jmx_exporter on the node and takes its first (cold) scrape.
func startPeer(ctx context.Context, c *benchCluster, r *stageResult, o options) (*jmxExporter, error) {
	if o.jmxJar == "" {
		r.Peer = &peerResult{Skipped: "--jmx-exporter-jar not set"}
		return nil, nil
	}
	port, err := c.jmxPort(o.node)
	if err != nil {
		return nil, err
	}
	e, err := startJMXExporter(ctx, o.jmxJar, c.dir, port)
	if err != nil {
		return nil, err
	}
	took, _, _, _, err := e.scrape()
	if err != nil {
		e.stop()
		return nil, err
	}
	r.Peer = &peerResult{Version: jmxExporterVersion, Cold: ms(took)}
	logf("jmx_exporter %s: first scrape %.0f ms", jmxExporterVersion, r.Peer.Cold)
	return e, nil
}

// scrapePeer is one warm jmx_exporter scrape with its cost to the node.
func scrapePeer(e *jmxExporter, r *stageResult) error {
	if e == nil {
		return nil
	}
	var took time.Duration
	var body []byte
	var gz int
	nc, err := r.idle.measure(func() (float64, error) {
		var cpu float64
		var err error
		took, body, gz, cpu, err = e.scrape()
		return cpu, err
	})
	if err != nil {
		return err
	}
	p := r.Peer
	r.Cost[costJMX] = append(r.Cost[costJMX], nc)
	p.Scrape = append(p.Scrape, ms(took))
	p.Bytes, p.Gzip, p.Series = len(body), gz, countSeries(body).total
	p.Signals = signalsIn(body, func(s partitionSignal) *regexp.Regexp { return s.jmx })
	peak, rss, err := memoryKiB(e.pid())
	if err != nil {
		return err
	}
	p.PeakRSS, p.RSS = float64(peak)/1024, float64(rss)/1024
	return nil
}

func peerLog(r *stageResult) string {
	if r.Peer == nil || len(r.Peer.Scrape) == 0 {
		return ""
	}
	return fmt.Sprintf(", jmx_exporter scrape %.0f ms", r.Peer.Scrape[len(r.Peer.Scrape)-1])
}

// measureSampler runs the sampler pass o.samplerRuns times with traffic.
func measureSampler(ctx context.Context, c *benchCluster, r *stageResult, o options) error {
	if o.samplerRuns < 1 {
		return nil
	}
	sb, err := newSamplerBench(c, o.node, o.samplerWindow)
	if err != nil {
		return err
	}
	defer sb.close()
	s, err := c.session()
	if err != nil {
		return err
	}
	defer s.Close()
	res := &samplerResult{Window: o.samplerWindow.Seconds()}
	r.Sampler = res
	for i := 0; i < o.samplerRuns; i++ {
		ss, err := sb.run(ctx, s, r.UserTables)
		if err != nil {
			return err
		}
		res.Pass = append(res.Pass, ms(ss.wall))
		res.Entries = append(res.Entries, ss.entries)
		res.Tables = append(res.Tables, ss.tables)
		res.HotFound = append(res.HotFound, ss.hotFound)
		res.Ops = append(res.Ops, ss.ops)
		if ss.sourceErr != "" {
			res.Errors = append(res.Errors, ss.sourceErr)
		}
		logf("sampler pass %d/%d: %.0f ms for a %s window, %d keys of %d tables, hot key found %v (%d of %d), %d writes",
			i+1, o.samplerRuns, ms(ss.wall), o.samplerWindow, ss.entries, ss.tables, ss.hotFound, ss.hotCount, ss.hotTotal, ss.ops)
	}
	return nil
}

// measureDaemons runs the real `partmon run` o.runs times; the first lives
// through a scheduled collection.
func measureDaemons(ctx context.Context, r *stageResult, o options) error {
	for i := 0; i < o.runs; i++ {
		life := 2 * time.Second
		if i == 0 {
			life = o.longLife
		}
		d, err := runDaemon(ctx, o.partmon, r.Node, o.scrapes, life)
		if err != nil {
			return err
		}
		r.Ready = append(r.Ready, ms(d.ready))
		r.PeakRSS = append(r.PeakRSS, float64(d.peakKiB)/1024)
		for _, s := range d.scrapes {
			r.Scrape = append(r.Scrape, ms(s))
		}
		r.ScrapeBytes, r.ScrapeGzip, r.series, r.Signals = d.bytes, d.gzipBytes, d.series, d.signals
		logf("partmon run %d/%d (life %s): ready %.0f ms, peak RSS %.1f MiB, scrape median %.1f ms, %d series",
			i+1, o.runs, life, r.Ready[i], r.PeakRSS[i], median(r.Scrape[len(r.Scrape)-len(d.scrapes):]), d.series.total)
	}
	s := r.series
	r.Series = map[string]any{
		"total": s.total, "partmon": s.partmon, "table_node": s.tableNode, "with_table_label": s.tableAny,
		"tables": s.tables, "per_table_node": s.perTable(), "all_per_table": s.perTableAll(), "max_per_table_node": s.maxPerTable,
		"bench_table_node": s.bench, "bench_tables": s.benchTables,
	}
	return nil
}
