package collector

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gocql/gocql"
	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/collector/internal/nodetool"
	"github.com/partmon/partmon/model"
	"go.uber.org/zap"
)

// Collector reads every enabled source from the cluster and keeps the latest
// good result of each (source, node) pair, from which Snapshot builds an
// immutable Snapshot at any time.
//
// Each node has one long-lived session pinned to it and at most one query in
// flight; up to Config.NodeConcurrency nodes are read in parallel, at most
// nodetool_sampler.max_concurrent_runs nodetool JVMs run at once, each
// source run has its own timeout,
// and a node that keeps failing is backed off, so one node's failure or
// slowness never holds up the others. A node that is down at start is simply
// retried later.
type Collector struct {
	cfg  Config
	log  *zap.Logger
	regs []registration
	eff  map[string]effectiveSource
	now  func() time.Time

	ctx    context.Context // ends at Close; bounds scheduled runs
	cancel context.CancelFunc

	observer gocql.QueryObserver // nil unless WithQueryObserver
	session  cql.Options         // every node's session settings
	fan      nodeFanOut
	pick     nodePicker

	mu      sync.Mutex
	conns   map[string]*nodeConn // by node address
	results map[resultKey]*result
}

type resultKey struct{ source, node string } // node "" for cluster-scope sources

type result struct {
	status model.SourceStatus
	out    *Output // last good output; nil before the first success or when unsupported
	hostID string
}

// New validates cfg and returns a Collector. It does not connect: sessions
// are created on first use and re-created after failures, so a cluster that
// is down at start is not an error here.
func New(cfg Config, log *zap.Logger, opts ...Option) (*Collector, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	if err := cfg.resolvePassword(); err != nil {
		return nil, err
	}
	if log == nil {
		log = zap.NewNop()
	}
	c := &Collector{
		cfg:     cfg,
		log:     log,
		eff:     map[string]effectiveSource{},
		now:     time.Now,
		conns:   map[string]*nodeConn{},
		results: map[resultKey]*result{},
		fan: nodeFanOut{
			concurrency:   cfg.NodeConcurrency,
			nodetoolSlots: make(chan struct{}, cfg.NodetoolSampler.WithDefaults().MaxConcurrentRuns),
			log:           log,
		},
	}
	c.regs = registry(cfg, newSourceDeps(cfg))
	for _, r := range c.regs {
		c.eff[r.src.Name()] = cfg.sourceSettings(r)
	}
	for _, o := range opts {
		o(c)
	}
	c.session = cfg.sessionOptions(c.observer)
	c.pick = nodePicker{cfg: cfg, log: log, conn: c.conn}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	return c, nil
}

// Close stops scheduled runs and closes every session.
func (c *Collector) Close() {
	c.cancel()
	c.mu.Lock()
	conns := make([]*nodeConn, 0, len(c.conns))
	for _, n := range c.conns {
		conns = append(conns, n)
	}
	c.mu.Unlock()
	for _, n := range conns {
		n.Close()
	}
}

// CollectAll runs every enabled source once: the cluster-scope sources first
// (the ring and schema decide which nodes to read and which tables to
// sample), then every node-scope source on every targeted node, nodes in
// parallel. The error joins every source failure; the data that was read is
// kept regardless, and Snapshot shows it.
func (c *Collector) CollectAll(ctx context.Context) error {
	var errs []error
	for _, r := range c.regs {
		if r.src.Scope() == ClusterScope && c.eff[r.src.Name()].enabled {
			errs = append(errs, c.runCluster(ctx, r))
		}
	}
	var nodeRegs []registration
	for _, r := range c.regs {
		if r.src.Scope() == NodeScope && c.eff[r.src.Name()].enabled {
			nodeRegs = append(nodeRegs, r)
		}
	}
	errs = append(errs, c.onEveryTarget(ctx, nodeRegs)...)
	return joinRunErrors(errs)
}

// CollectSource runs one source: once for the cluster, or on every targeted
// node. It is what each source's cron entry calls.
func (c *Collector) CollectSource(ctx context.Context, name string) error {
	for _, r := range c.regs {
		if r.src.Name() != name {
			continue
		}
		if !c.eff[name].enabled {
			return fmt.Errorf("source %q is disabled", name)
		}
		if r.src.Scope() == ClusterScope {
			return c.runCluster(ctx, r)
		}
		return joinRunErrors(c.onEveryTarget(ctx, []registration{r}))
	}
	return fmt.Errorf("unknown source %q", name)
}

// RecollectRates reads the operation counters again, so that the rates of a
// one-shot collection are the counters' difference over the collection (it
// spans the sampler's window) and not Cassandra's five-minute moving rate:
// that rate lags traffic that changed minutes ago (90 s after a start it
// shows ~26 % of it), and a hot-key share over it is too high.
func (c *Collector) RecollectRates(ctx context.Context) error {
	var errs []error
	for _, r := range c.regs {
		if name := r.src.Name(); r.rates && c.eff[name].enabled {
			errs = append(errs, c.CollectSource(ctx, name))
		}
	}
	return errors.Join(errs...)
}

// SampleAgain runs the hot-key samplers a second time and keeps both
// windows on each node that sampled twice (model.HotPartition.Pass 0, then
// 1), so the one-shot report grades a key at the lower of two windows
// rather than on one draw of the traffic. A node whose second pass failed
// keeps its first window alone.
func (c *Collector) SampleAgain(ctx context.Context) error {
	var errs []error
	for _, r := range c.regs {
		name := r.src.Name()
		if !r.sampler || !c.eff[name].enabled {
			continue
		}
		first := c.outputsOf(name)
		errs = append(errs, c.CollectSource(ctx, name))
		c.keepFirstPass(name, first)
	}
	return errors.Join(errs...)
}

// outputsOf are source's last good outputs by node.
func (c *Collector) outputsOf(source string) map[string]*Output {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]*Output{}
	for k, res := range c.results {
		if k.source == source && res.out != nil {
			out[k.node] = res.out
		}
	}
	return out
}

// keepFirstPass puts each node's first window before its new one.
func (c *Collector) keepFirstPass(source string, first map[string]*Output) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, res := range c.results {
		prev := first[k.node]
		if k.source != source || prev == nil || res.out == nil || res.out == prev {
			continue
		}
		again := res.out.Node.HotPartitions
		both := make([]model.HotPartition, 0, len(prev.Node.HotPartitions)+len(again))
		both = append(both, prev.Node.HotPartitions...)
		for _, hp := range again {
			hp.Pass = 1
			both = append(both, hp)
		}
		res.out.Node.HotPartitions = both
	}
}

// onEveryTarget runs regs on each targeted node: first the sources that
// query over CQL, then the nodetool ones (each a JVM on this host, so they
// queue for a slot), so that slow nodetool runs never hold up the rest.
func (c *Collector) onEveryTarget(ctx context.Context, regs []registration) []error {
	if len(regs) == 0 {
		return nil
	}
	targets, err := c.targets(ctx)
	if err != nil {
		return []error{err}
	}
	var cqlRegs, nodetoolRegs []registration
	for _, r := range regs {
		if r.nodetool {
			nodetoolRegs = append(nodetoolRegs, r)
		} else {
			cqlRegs = append(cqlRegs, r)
		}
	}
	errs := c.fan.run(ctx, targets, cqlRegs, c.runNode)
	return append(errs, c.fan.run(ctx, targets, nodetoolRegs, c.runNode)...)
}

// joinRunErrors joins the errors of one CollectAll or CollectSource, with
// the sources each backing-off node skipped said once: they all carry that
// node's last failure, which is said in full only if no run reported it.
func joinRunErrors(errs []error) error {
	var (
		out     []error
		skipped = map[string][]*cql.BackoffError{}
		nodes   []string
	)
	for _, err := range flatten(errs) {
		var b *cql.BackoffError
		switch {
		case errors.As(err, &b):
			if skipped[b.Node] == nil {
				nodes = append(nodes, b.Node)
			}
			skipped[b.Node] = append(skipped[b.Node], b)
		case err != nil:
			out = append(out, err)
		}
	}
	reported := errors.Join(out...)
	for _, node := range nodes {
		b, n := skipped[node][0], len(skipped[node])
		sources := "sources"
		if n == 1 {
			sources = "source"
		}
		if b.Last != nil && errors.Is(reported, b.Last) {
			out = append(out, fmt.Errorf("%w: %d more %s skipped on %s, next attempt in %s", cql.ErrBackoff, n, sources, node, b.Wait.Round(time.Second)))
		} else {
			out = append(out, fmt.Errorf("%w (%d %s skipped)", b, n, sources))
		}
	}
	return errors.Join(out...)
}

// flatten replaces each joined error (a cluster source's, one per node it
// tried) by its parts.
func flatten(errs []error) []error {
	var out []error
	for _, err := range errs {
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			out = append(out, flatten(j.Unwrap())...)
			continue
		}
		out = append(out, err)
	}
	return out
}

// schema is the last good schema, nil before one was read.
func (c *Collector) schema() *model.Schema {
	c.mu.Lock()
	defer c.mu.Unlock()
	res, ok := c.results[resultKey{source: "schema"}]
	if !ok || res.out == nil {
		return nil
	}
	s := res.out.Cluster.Schema
	return &s
}

// runCluster reads a cluster-scope source from the first candidate node
// that answers it.
func (c *Collector) runCluster(ctx context.Context, r registration) error {
	name := r.src.Name()
	eff := c.eff[name]
	start := c.now()
	var (
		errs []error
		rows int
		out  *Output
	)
	candidates, unresolved := c.pick.clusterCandidates(ctx, c.ring())
	for _, t := range candidates {
		if ctx.Err() != nil {
			break
		}
		o, n, err := c.collectOn(ctx, r, eff.timeout, t)
		rows = n
		if err == nil {
			out, errs = o, nil
			break
		}
		errs = append(errs, err)
		if errors.Is(err, ErrUnsupported) {
			break
		}
	}
	err := errors.Join(errs...)
	if out == nil && err == nil {
		err = errors.New("no host to read from")
		if len(unresolved) > 0 {
			err = fmt.Errorf("no host to read from: %w", errors.Join(unresolved...))
		}
		if ctx.Err() != nil {
			err = ctx.Err()
		}
	}
	c.record(name, "", "", out, rows, err, start)
	if errors.Is(err, ErrUnsupported) {
		return nil
	}
	return err
}

// runNode reads a node-scope source from one node.
func (c *Collector) runNode(ctx context.Context, r registration, t target) error {
	start := c.now()
	out, rows, err := c.collectOn(ctx, r, c.eff[r.src.Name()].timeout, t)
	hostID := ""
	if out != nil {
		out.Node.Address = t.conn.Address()
		hostID = out.Node.HostID
	}
	c.record(r.src.Name(), t.conn.Address(), hostID, out, rows, err, start)
	if errors.Is(err, ErrUnsupported) {
		return nil // a status, not a failure
	}
	return err
}

// collectOn runs one source on one node under the source's timeout. A
// panic in the source is a partmon bug: it becomes that run's error (the
// source's failed status on the node, with its last good data kept), and
// the other sources and nodes go on. (A goroutine a source starts must
// recover its own panics: no recover here reaches it.)
func (c *Collector) collectOn(ctx context.Context, r registration, timeout time.Duration, t target) (*Output, int, error) {
	return guarded(c.log, r.src.Name(), t.conn.Address(), func() (*Output, int, error) { return c.collectOnce(ctx, r, timeout, t) })
}

// guarded runs one source's run and turns a panic into its error, logged
// to log.
func guarded(log *zap.Logger, source, node string, run func() (*Output, int, error)) (out *Output, rows int, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("source %s panicked (a partmon bug; please report this message): %v", source, p)
			log.Error("source panicked", zap.String("collector", source), zap.String("node", node), zap.Any("panic", p), zap.Stack("stack"))
		}
	}()
	return run()
}

func (c *Collector) collectOnce(ctx context.Context, r registration, timeout time.Duration, t target) (*Output, int, error) {
	sctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	q, caps, err := t.conn.Querier(sctx)
	if err != nil {
		return nil, 0, err
	}
	out := newOutput(t.conn.Address())
	out.Node.HostID = caps.HostID
	in := Input{Q: q, Caps: caps, Address: t.conn.Address(), Own: t.own, Schema: c.schema()}
	if r.src.Scope() == ClusterScope {
		in.Ring = c.freshRing()
	}
	if _, ok := r.src.(interface{ readsHoldingOnly() }); ok {
		in.Holding = c.holding(in.Address)
	}
	rows, err := gatedCollect(sctx, r.src, in, out)
	if err != nil {
		if sctx.Err() != nil && ctx.Err() == nil && !errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%w (source timeout %s)", err, timeout)
		}
		return nil, rows, err
	}
	return out, rows, nil
}

// record stores the outcome of one run and logs failures once, here.
func (c *Collector) record(source, node, hostID string, out *Output, rows int, err error, start time.Time) {
	dur := c.now().Sub(start)
	c.mu.Lock()
	defer c.mu.Unlock()
	k := resultKey{source: source, node: node}
	res, ok := c.results[k]
	if !ok {
		res = &result{}
		res.status.FirstAttempt = start
		c.results[k] = res
	}
	st := &res.status
	st.Source, st.Node, st.Taken, st.Duration, st.Rows = source, node, start, dur, rows
	fields := []zap.Field{zap.String("collector", source), zap.String("node", node), zap.Duration("duration", dur)}
	switch {
	case err == nil:
		st.State, st.Error, st.LastSuccess = model.StateOK, "", start
		res.out, res.hostID = out, hostID
	case errors.Is(err, ErrUnsupported):
		st.State, st.Error = model.StateUnsupported, err.Error()
		res.out = nil
		c.log.Debug("source unsupported", append(fields, zap.Error(err))...)
	case errors.Is(err, nodetool.ErrBusy):
		// res.out keeps the last good keys, as on a failure; the node's
		// data is not stale for it.
		st.State, st.Error = model.StateBusy, err.Error()
		c.log.Info("sampler busy", append(fields, zap.Error(err))...)
	default:
		st.State, st.Error = model.StateError, err.Error()
		// res.out keeps the last good data; LastSuccess says how old it is.
		if errors.Is(err, cql.ErrBackoff) {
			c.log.Debug("source skipped", append(fields, zap.Error(err))...)
		} else {
			c.log.Warn("source failed", append(fields, zap.Error(err))...)
		}
	}
}

// StatementsSent is the number of statements each node's session has run
// since the Collector started, by node address; a statement read over
// several pages counts once (the observer sees every page).
func (c *Collector) StatementsSent() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int64, len(c.conns))
	for addr, n := range c.conns {
		out[addr] = n.Statements()
	}
	return out
}
