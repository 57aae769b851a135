package truth

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/gocql/gocql"

	"github.com/partmon/partmon/tools/testkit"
)

// Options says how to run the corpus on one cluster.
type Options struct {
	Bin    string // the partmon binary
	OutDir string // configs, logs, raw JSON, results
	// Warmup is the traffic before the one-shot report starts; DaemonFor
	// how long the daemon runs with history (0: no daemon phase).
	Warmup    time.Duration
	DaemonFor time.Duration
	// LaterWindow is the reference `nodetool profileload` window taken after
	// partmon's report, one table at a time per node (0: DefaultLaterWindow).
	LaterWindow time.Duration
	Keep        bool // keep the scenario keyspaces afterwards
	// Seed draws the traffic's keys and operations; 0 takes one from the
	// clock, so every run samples fresh windows of the same traffic (a fixed
	// seed met the same unlucky ten seconds run after run). The seed used is
	// in the results; given again it draws the same key sequence per worker
	// (which worker takes a slot still follows timing).
	Seed uint64
	Logf func(format string, args ...any)
}

// PhaseResult is the judgment of one partmon run (one-shot or daemon).
type PhaseResult struct {
	Cluster  string         `json:"cluster"`
	Phase    string         `json:"phase"`
	Expected []ExpectResult `json:"expected"`
	Findings []Judged       `json:"findings"`
	Figures  []FigureCheck  `json:"figures"`
	// Ownership is partmon's effective ownership of each scenario keyspace
	// on each node against nodetool status KEYSPACE.
	Ownership []OwnershipCheck `json:"ownership,omitempty"`
	// Unknowns are partmon's "<kind> of <table> unknown" notes on the
	// corpus's keyspaces; Decided marks one the truth says partmon's
	// evidence settles (Scenario.Decided): a defect.
	Unknowns []UnknownNote `json:"unknown_notes,omitempty"`
	// SourceErrors are partmon's own failed source reads, as it reported them.
	SourceErrors []string `json:"source_errors,omitempty"`
	// Crossings are the planted guardrail crossings against the node logs (crossings.go).
	Crossings      []CrossingResult `json:"crossings,omitempty"`
	FalseForecasts []FalseForecast  `json:"false_forecasts,omitempty"`
}

// ClusterResult is everything one cluster's run produced.
type ClusterResult struct {
	Cluster   string          `json:"cluster"`
	Hosts     []string        `json:"hosts"`
	Seed      uint64          `json:"seed"` // the traffic's seed (Options.Seed)
	Scenarios []ScenarioBrief `json:"scenarios"`
	Phases    []PhaseResult   `json:"phases"`
	Traffic   []TrafficStats  `json:"traffic"`
	Timings   []Timing        `json:"timings"`
	Notes     []string        `json:"notes,omitempty"`
}

// ScenarioBrief names a scenario in the results.
type ScenarioBrief struct {
	Name     string `json:"name"`
	Keyspace string `json:"keyspace"`
	Design   string `json:"design"`
	Title    string `json:"title"`
}

// Timing is how long a step took, for the docs and for sizing the corpus.
type Timing struct {
	Step    string  `json:"step"`
	Seconds float64 `json:"seconds"`
}

type runner struct {
	opt      Options
	c        *Cluster
	scs      []*Scenario
	tables   map[string]*loaded
	sessions map[string]*gocql.Session
	truth    *Truth
	res      *ClusterResult
	step     time.Time
	// daemonStart: guardrail lines logged before it are an earlier run's.
	daemonStart time.Time
	// partmonLogin: partmon's role exists (a cluster with authentication).
	partmonLogin bool
}

func (r *runner) logf(format string, args ...any) { r.opt.Logf(r.c.Name+": "+format, args...) }

func (r *runner) timed(step string) {
	now := time.Now()
	if !r.step.IsZero() {
		r.res.Timings = append(r.res.Timings, Timing{Step: step, Seconds: now.Sub(r.step).Seconds()})
		r.logf("%s took %.0f s", step, now.Sub(r.step).Seconds())
	}
	r.step = now
}

// Run loads the scenarios on the cluster, runs partmon against them and
// judges what it says. The keyspaces are dropped at the end unless Keep.
func Run(ctx context.Context, opt Options, c *Cluster, scs []*Scenario) (*ClusterResult, error) {
	r := &runner{opt: opt, c: c, scs: scs, tables: map[string]*loaded{}, sessions: map[string]*gocql.Session{},
		res: &ClusterResult{Cluster: c.Name, Hosts: c.Hosts}}
	for _, sc := range scs {
		r.res.Scenarios = append(r.res.Scenarios, ScenarioBrief{sc.Name, sc.Keyspace, sc.Design, sc.Title})
	}
	if err := os.MkdirAll(opt.OutDir, 0o755); err != nil {
		return nil, err
	}
	if err := r.checkAuth(); err != nil {
		return nil, err
	}
	if err := r.connect(); err != nil {
		return nil, err
	}
	defer r.close()
	r.step = time.Now()
	if err := r.load(ctx); err != nil {
		return r.res, err
	}
	if err := r.collectionWriters(ctx); err != nil {
		return r.res, err
	}
	r.timed("load")
	if err := r.settle(ctx); err != nil {
		return r.res, err
	}
	r.timed("flush, compact, truth (nodetool getendpoints), size estimates")
	err := r.phases(ctx)
	if !opt.Keep {
		r.drop(ctx)
	}
	return r.res, err
}

func (r *runner) connect() error {
	s, err := r.c.Session("")
	if err != nil {
		return err
	}
	r.sessions[""] = s
	if dcs := r.c.DCs(); len(dcs) > 1 {
		for _, dc := range dcs {
			if r.sessions[dc], err = r.c.Session(dc); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *runner) close() {
	for _, s := range r.sessions {
		s.Close()
	}
}

// load creates every scenario (DDL one at a time: schema changes must
// agree) and loads their tables three at a time.
func (r *runner) load(ctx context.Context) error {
	s := r.sessions[""]
	var all []*loaded
	for _, sc := range r.scs {
		ls, err := createScenario(ctx, s, sc)
		if err != nil {
			return err
		}
		for _, l := range ls {
			r.tables[l.key()] = l
			all = append(all, l)
		}
	}
	sem := make(chan struct{}, 3)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	for _, l := range all {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			start := time.Now()
			// One-row partitions are one statement each: more in flight.
			workers := 6
			if l.t.Rows == 1 {
				workers = 24
			}
			err := loadTable(ctx, s, l, workers)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			r.logf("loaded %s: %d partitions in %.0f s", l.key(), l.t.Partitions, time.Since(start).Seconds())
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// settle flushes and compacts every node (one sstable per table and node,
// so the per-sstable size figures describe whole partitions), has every
// node's size recorder refresh system.size_estimates and table_estimates
// from those sstables, and resolves the truth's keys and replicas.
// `nodetool refreshsizeestimates` runs the recorder Cassandra otherwise runs
// on its own schedule (every 30 s on deploy/local clusters), at once, so
// the runner need not wait for it.
func (r *runner) settle(ctx context.Context) error {
	for _, cmd := range []string{"flush", "compact", "refreshsizeestimates"} {
		if err := r.c.OnEveryNode(ctx, cmd); err != nil {
			return err
		}
	}
	return r.resolveTruth(ctx)
}

// resolveTruth renders every key the truth names and asks the real
// nodetool getendpoints for its replicas.
func (r *runner) resolveTruth(ctx context.Context) error {
	r.truth = &Truth{Replicas: map[string][]string{}, DC: r.c.DC, Rack: r.c.Rack, Keys: map[string]string{}}
	for _, sc := range r.scs {
		for _, e := range append(append([]Expectation{}, sc.Expect...), sc.Allow...) {
			for _, ref := range []*KeyRef{e.NodeOf, e.Key} {
				if ref == nil {
					continue
				}
				id := refID(sc.Keyspace, ref)
				if _, done := r.truth.Keys[id]; done {
					continue
				}
				l := r.tables[sc.Keyspace+"."+ref.Table]
				key := l.gen.KeyString(ref.Partition)
				nodes, err := r.c.Endpoints(ctx, sc.Keyspace, ref.Table, key)
				if err != nil {
					return err
				}
				r.truth.Keys[id], r.truth.Replicas[id] = key, nodes
			}
		}
	}
	return nil
}

func (r *runner) keyspaces() []string {
	var out []string
	for _, sc := range r.scs {
		out = append(out, sc.Keyspace)
	}
	return out
}

func (r *runner) drop(ctx context.Context) {
	for _, ks := range r.keyspaces() {
		if err := r.sessions[""].Query("DROP KEYSPACE IF EXISTS " + ks).WithContext(ctx).Exec(); err != nil {
			r.res.Notes = append(r.res.Notes, fmt.Sprintf("dropping %s: %v", ks, err))
		}
	}
}

// flushEvery flushes every node periodically while traffic runs, as
// memtables fill in production, until ctx ends.
func (r *runner) flushEvery(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := r.c.OnEveryNode(ctx, "flush"); err != nil && ctx.Err() == nil {
				r.logf("periodic flush: %v", err)
			}
		}
	}
}

// phases runs the one-shot report under traffic and then, with history,
// the daemon, and judges both.
func (r *runner) phases(ctx context.Context) error {
	flushCtx, stopFlush := context.WithCancel(ctx)
	defer stopFlush()
	go r.flushEvery(flushCtx, 90*time.Second)
	r.res.Seed = trafficSeed(r.opt.Seed, time.Now())
	wl, err := startWorkload(ctx, r.c, r.tables, r.scs, r.sessions, r.res.Seed)
	if err != nil {
		return err
	}
	defer func() { r.res.Traffic = wl.Stop() }()
	r.logf("traffic started (%d streams, seed %d: --seed %d draws them again); warming up for %s",
		len(wl.streams), r.res.Seed, r.res.Seed, r.opt.Warmup)
	warm := time.Now()
	// The counters' start, taken as the traffic begins: partmon's one-shot
	// rates are Cassandra's five-minute moving rates, which start there too.
	start := r.stats(ctx, "at the start of the traffic")
	if err := sleep(ctx, time.Until(warm.Add(r.opt.Warmup))); err != nil {
		return err
	}
	r.timed("traffic warm-up")
	if err := r.oneShot(ctx, start); err != nil {
		return err
	}
	if r.opt.DaemonFor <= 0 {
		r.res.Notes = append(r.res.Notes, wl.Errors()...)
		return nil
	}
	err = r.daemon(ctx, wl)
	r.res.Notes = append(r.res.Notes, wl.Errors()...)
	return err
}

func (r *runner) oneShot(ctx context.Context, start map[string]map[string]TableStat) error {
	cfg, err := r.writeConfig(PhaseOneShot, "127.0.0.1:0")
	if err != nil {
		return err
	}
	r.logf("partmon report (one-shot, with the nodetool sampler)")
	rep, err := runReport(ctx, r.opt.Bin, cfg, filepath.Join(r.opt.OutDir, "oneshot-report.json"), filepath.Join(r.opt.OutDir, "oneshot.log"))
	if err != nil {
		return err
	}
	r.timed("partmon report")
	obs, err := r.observe(ctx, rep, start, PhaseOneShot, time.Now())
	if err != nil {
		return err
	}
	r.timed("nodetool figures after the one-shot")
	r.res.Phases = append(r.res.Phases, r.judge(PhaseOneShot, rep, obs))
	return nil
}

// daemon runs `partmon run` with history while the traffic goes on and the
// scenarios' partitions grow, then reads its API.
func (r *runner) daemon(ctx context.Context, wl *Workload) error {
	listen, err := testkit.PickFreeAddr()
	if err != nil {
		return err
	}
	cfg, err := r.writeConfig(PhaseDaemon, listen)
	if err != nil {
		return err
	}
	d, err := startDaemon(r.opt.Bin, cfg, listen, filepath.Join(r.opt.OutDir, "daemon.log"))
	if err != nil {
		return err
	}
	stopped := false
	stopDaemon := func() {
		if !stopped {
			stopped = true
			if err := d.Stop(); err != nil {
				r.logf("partmon run exit: %v", err)
			}
		}
	}
	defer stopDaemon()
	stopWatch := r.watchGuardrails(ctx, d)
	defer stopWatch()
	// Sizes before the corpus grows its partition: partmon reads a growing
	// size at some moment between this and the figures after its report.
	begin := r.stats(ctx, "at the daemon's start")
	growCtx, stopGrow := context.WithCancel(ctx)
	defer stopGrow()
	wl.grow(growCtx, r.c, r.tables, r.scs, r.sessions[""], r.logf)
	// The first cycle waits for every source; at load 50 on 2 cores its
	// nodetool sources alone took 7.5 minutes (three timed out at 2).
	if err := d.WaitReady(ctx, 10*time.Minute); err != nil {
		return err
	}
	// A collection reaches its fail level minutes after its first write
	// and partmon forecasts from the warnings it reads: the writes start
	// once partmon runs, or the refusal can come before its first report.
	waitWriters := r.startCollectionWrites(growCtx)
	r.logf("partmon run is ready; running for %s with history", r.opt.DaemonFor)
	window := 2 * time.Minute
	if err := sleep(ctx, max(0, r.opt.DaemonFor-window)); err != nil {
		return err
	}
	start := r.stats(ctx, "at the start of the daemon's traffic window")
	if err := sleep(ctx, window); err != nil {
		return err
	}
	read := time.Now()
	rep, err := d.Report(ctx, r.opt.OutDir)
	if err != nil {
		return err
	}
	forecasts := stopWatch()
	stopGrow()
	writers := waitWriters()
	// Cassandra runs one sampling at a time: the daemon's sampler must not
	// meet the reference profileload.
	stopDaemon()
	r.timed("partmon run")
	obs, err := r.observe(ctx, rep, start, PhaseDaemon, read)
	if err != nil {
		return err
	}
	obs.StatsBegin = begin
	r.timed("nodetool figures after the daemon")
	res := r.judge(PhaseDaemon, rep, obs)
	r.judgeCrossingsOf(&res, forecasts, writers)
	r.res.Phases = append(r.res.Phases, res)
	return nil
}

// stats is snapshotStats; a failure is a note (the figure checks that need
// the snapshot are then missing), not the end of the run.
func (r *runner) stats(ctx context.Context, when string) map[string]map[string]TableStat {
	st, err := snapshotStats(ctx, r.c, r.keyspaces())
	if err != nil {
		r.res.Notes = append(r.res.Notes, "no tablestats "+when+": "+err.Error())
		r.logf("tablestats %s: %v", when, err)
	}
	return st
}

// observe asks nodetool for the figures the findings (and the planted
// problems) speak of, while the traffic still runs.
func (r *runner) observe(ctx context.Context, rep *Report, start map[string]map[string]TableStat, phase string, read time.Time) (*Observations, error) {
	obs := &Observations{StatsStart: start, ReportRead: read, SampledTwice: phase == PhaseOneShot}
	samples, err := loadSamplerRuns(filepath.Join(r.opt.OutDir, phase+"-profileload"))
	if err != nil {
		r.res.Notes = append(r.res.Notes, "partmon's own profileload runs: "+err.Error())
	}
	obs.Samples = samples
	profiles, histos, statusKS := map[nodeTable]bool{}, map[nodeTable]bool{}, map[string]bool{}
	for _, f := range rep.Findings {
		tk := f.Keyspace + "." + f.Table
		for _, n := range f.AllNodes() {
			switch f.Kind {
			case "hot_partition":
				profiles[nodeTable{n, tk}] = true
			case "wide_partition":
				histos[nodeTable{n, tk}] = true
			}
		}
		if f.Kind == "ownership_skew" || f.Kind == "hot_token_range" {
			statusKS[f.Keyspace] = true
		}
	}
	for _, sc := range r.scs {
		for i := range sc.Expect {
			e := &sc.Expect[i]
			for _, n := range r.truth.nodesOf(sc, e) {
				switch e.Kind {
				case "hot_partition":
					profiles[nodeTable{n, sc.Keyspace + "." + e.Table}] = true
				case "wide_partition", "oversized_partition":
					histos[nodeTable{n, sc.Keyspace + "." + e.Table}] = true
				}
			}
		}
	}
	for _, k := range ownershipKeyspaces(r.scs) {
		statusKS[k] = true
	}
	var ks []string
	for k := range statusKS {
		if k != "" {
			ks = append(ks, k)
		}
	}
	sort.Strings(ks)
	var errs []error
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		obs.Profiles, errs = collectProfiles(ctx, r.c, sortedPairs(profiles), r.laterWindow())
	}()
	defer func() { <-sampled }()
	obs.Stats = r.stats(ctx, "after partmon")
	if obs.Status, err = collectStatus(ctx, r.c, ks); err != nil {
		r.res.Notes = append(r.res.Notes, "no nodetool status figures: "+err.Error())
	}
	var herrs []error
	obs.Histograms, herrs = collectHistograms(ctx, r.c, sortedPairs(histos))
	<-sampled
	for _, e := range append(errs, herrs...) {
		r.res.Notes = append(r.res.Notes, e.Error())
	}
	return obs, nil
}
