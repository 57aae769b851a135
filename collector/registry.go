package collector

import (
	"time"

	"github.com/partmon/partmon/collector/internal/scyllarest"
	"github.com/partmon/partmon/model"
)

// registration is one source with the defaults its Facts declare; users
// override them per source under collector.sources.<name>.
type registration struct {
	src      Source
	facts    Facts
	enabled  bool
	schedule string
	timeout  time.Duration
	// nodetool, rates, sampler, window and windowKey: see Facts.
	nodetool, rates, sampler bool
	window                   time.Duration
	windowKey                string
}

// defaultTimeout bounds one run of a source on one node unless its Facts
// say otherwise.
const defaultTimeout = 30 * time.Second

// register reads src's declaration: its default state, schedule, timeout
// and traits.
func register(src Source) registration {
	f := src.Facts()
	timeout := f.Timeout
	if timeout == 0 {
		timeout = defaultTimeout
	}
	return registration{src: src, facts: f,
		enabled:  f.OffUnless == "" || f.configured,
		schedule: f.Schedule, timeout: timeout,
		nodetool: f.Nodetool, rates: f.Rates, sampler: f.Sampler, window: f.Window, windowKey: f.WindowKey}
}

// sourceDeps is the state some sources keep between runs.
type sourceDeps struct {
	rates  *rateTracker
	now    func() time.Time
	rest   *scyllarest.Clients
	schema *schemaVersionCache
	logs   logsSource
}

func newSourceDeps(cfg Config) *sourceDeps {
	return &sourceDeps{rates: newRateTracker(), now: time.Now, rest: scyllarest.NewClients(cfg.ScyllaREST.Scheme, cfg.ScyllaREST.Port), schema: &schemaVersionCache{}, logs: newLogsSource(cfg.Logs, time.Now)}
}

// registry is the one list of every source partmon knows, in the order they
// run within a cycle and merge into a snapshot (cluster sources first; a
// later source's non-zero value wins, so gossip load beats Σ disk usage).
func registry(cfg Config, d *sourceDeps) []registration {
	cfg = cfg.WithDefaults()
	if d == nil {
		d = newSourceDeps(cfg)
	}
	ms := latencyMillisToSeconds
	sources := []Source{
		topologySource{},
		schemaSource{cache: d.schema},
		sizeEstimatesSource{},
		maxPartitionSizeSource(),
		maxSSTableSizeSource(),
		diskUsageSource(),
		latencySource{name: "local_read_latency", rates: d.rates, now: d.now, msToSeconds: ms,
			field: func(ts *model.TableStats) *model.Ops { return &ts.LocalReads }},
		latencySource{name: "local_write_latency", rates: d.rates, now: d.now, msToSeconds: ms,
			field: func(ts *model.TableStats) *model.Ops { return &ts.LocalWrites }},
		latencySource{name: "local_scan_latency", rates: d.rates, now: d.now, msToSeconds: ms,
			field: func(ts *model.TableStats) *model.Ops { return &ts.LocalScans }},
		distributionSource{name: "tombstones_per_read",
			field: func(ts *model.TableStats) *model.Distribution { return &ts.TombstonesPerRead }},
		distributionSource{name: "rows_per_read",
			field: func(ts *model.TableStats) *model.Distribution { return &ts.RowsPerRead }},
		threadPoolsSource{},
		gossipInfoSource{},
		settingsSource{},
		topPartitionsSource{},
		d.logs,
		newDataDiskSource(cfg.DataDisk),

		newLargePartitionsSource(),
		newLargeRowsSource(),
		newLargeCellsSource(),
		scyllaSizeHistogramSource{rest: d.rest},
		scyllaTopPartitionsSource{rest: d.rest, window: cfg.ScyllaREST.SampleDuration, listSize: cfg.ScyllaREST.ListSize},

		nodetoolSource{cfg: cfg.NodetoolSampler},
		nodetoolHistogramsSource{cfg: cfg.NodetoolSampler},
		nodetoolTablestatsSource{cfg: cfg.NodetoolSampler},
	}
	out := make([]registration, len(sources))
	for i, src := range sources {
		out[i] = register(src)
	}
	return out
}

// SourceNames lists every source name, in registry order.
func SourceNames() []string {
	regs := registry(Config{}, nil)
	out := make([]string, len(regs))
	for i, r := range regs {
		out[i] = r.src.Name()
	}
	return out
}

// SourcesOffUnlessConfigured are the sources that run only when the config
// names what they need (a nodetool command, the node's data directories):
// without it they report nothing, not even a failure.
func SourcesOffUnlessConfigured() []string {
	var out []string
	for _, r := range registry(Config{}, nil) {
		if !r.enabled {
			out = append(out, r.src.Name())
		}
	}
	return out
}
