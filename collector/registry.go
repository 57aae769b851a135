package collector

import (
	"time"

	"github.com/partmon/partmon/collector/internal/scyllarest"
	"github.com/partmon/partmon/model"
)

// registration is one source with its defaults; users override them per
// source under collector.sources.<name>.
type registration struct {
	src      Source
	enabled  bool
	schedule string
	timeout  time.Duration
	// nodetool: each run on a node starts a nodetool JVM, so it waits for
	// one of collector.nodetool_sampler.max_concurrent_runs slots, and its
	// schedule is staggered against the other nodetool sources'.
	nodetool bool
	// rates: the source's counters give operation rates, read again at the
	// end of a one-shot collection (Collector.RecollectRates).
	rates bool
	// sampler: the source samples each node's hottest keys over a window,
	// run twice by a one-shot collection (Collector.SampleAgain).
	sampler bool
	// window, when set, is how long one run samples (the config key
	// windowKey sets it): a timeout must be longer (Config.Validate).
	window    time.Duration
	windowKey string
}

// defaultTimeout bounds one run of a source on one node unless its line
// in the registry says otherwise.
const defaultTimeout = 30 * time.Second

// source registers src with the defaults every source has: enabled, run on
// schedule, a run bounded by defaultTimeout. The registry's lines say only
// how a source differs.
func source(src Source, schedule string) registration {
	return registration{src: src, enabled: true, schedule: schedule, timeout: defaultTimeout}
}

// within bounds a run of the source by timeout instead of defaultTimeout.
func (r registration) within(timeout time.Duration) registration {
	r.timeout = timeout
	return r
}

// onlyIf leaves the source off unless enabled.
func (r registration) onlyIf(enabled bool) registration {
	r.enabled = r.enabled && enabled
	return r
}

// viaNodetool marks a source whose runs each start a nodetool JVM.
func (r registration) viaNodetool() registration {
	r.nodetool = true
	return r
}

// givesRates marks a source whose counters give operation rates.
func (r registration) givesRates() registration {
	r.rates = true
	return r
}

// samplesKeys marks a source that samples the hottest keys over a window.
func (r registration) samplesKeys() registration {
	r.sampler = true
	return r
}

// samplesKeysOver marks a sampler whose runs each last window, set by the
// config key windowKey.
func (r registration) samplesKeysOver(window time.Duration, windowKey string) registration {
	r.sampler, r.window, r.windowKey = true, window, windowKey
	return r
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
	const (
		often  = "@every 1m"
		medium = "@every 5m"
		rarely = "@every 10m"
		hourly = "@every 30m"
	)
	ms := latencyMillisToSeconds
	return []registration{
		source(topologySource{}, medium),
		source(schemaSource{cache: d.schema}, medium),

		// Every 10 minutes: Cassandra recomputes the estimates every 5
		// (size_recorder_interval) from the sstables alone, so they move
		// only after a flush, a compaction or a stream; read at most 15
		// minutes behind the recorder (docs/sources.md#table-estimates).
		source(sizeEstimatesSource{}, rarely).within(time.Minute),
		source(tableSizeSource{name: "max_partition_size", since: "4.0",
			field: func(ts *model.TableStats) *int64 { return &ts.MaxPartitionBytes }}, often),
		// Every 30 minutes: no rule, metric or page reads it yet (it is kept
		// in the snapshot as a future fragment bound), it changes only when
		// a table's sstables do, and at 1,000 tables its read is the
		// dearest of the per-minute ones (docs/benchmarks.md, "What a read
		// costs the node").
		source(tableSizeSource{name: "max_sstable_size", since: "5.0",
			field: func(ts *model.TableStats) *int64 { return &ts.MaxSSTableBytes }}, hourly),
		source(tableSizeSource{name: "disk_usage", since: "4.0", sumToLoad: true,
			field: func(ts *model.TableStats) *int64 { return &ts.DiskUsageBytes }}, often),
		source(latencySource{name: "local_read_latency", rates: d.rates, now: d.now, msToSeconds: ms,
			field: func(ts *model.TableStats) *model.Ops { return &ts.LocalReads }}, often).givesRates(),
		source(latencySource{name: "local_write_latency", rates: d.rates, now: d.now, msToSeconds: ms,
			field: func(ts *model.TableStats) *model.Ops { return &ts.LocalWrites }}, often).givesRates(),
		source(latencySource{name: "local_scan_latency", rates: d.rates, now: d.now, msToSeconds: ms,
			field: func(ts *model.TableStats) *model.Ops { return &ts.LocalScans }}, often).givesRates(),
		source(distributionSource{name: "tombstones_per_read",
			field: func(ts *model.TableStats) *model.Distribution { return &ts.TombstonesPerRead }}, often),
		source(distributionSource{name: "rows_per_read",
			field: func(ts *model.TableStats) *model.Distribution { return &ts.RowsPerRead }}, often),
		source(threadPoolsSource{}, often),
		source(gossipInfoSource{}, often),
		source(settingsSource{}, hourly),
		source(topPartitionsSource{}, rarely),
		source(d.logs, often),
		// Cassandra's own disk check runs every 30 s; a walk of a large data
		// directory may take seconds.
		source(newDataDiskSource(cfg.DataDisk), often).within(time.Minute).onlyIf(cfg.DataDisk.Configured()),

		source(newLargePartitionsSource(), rarely).within(time.Minute),
		source(newLargeRowsSource(), rarely).within(time.Minute),
		source(newLargeCellsSource(), rarely).within(time.Minute),
		source(scyllaSizeHistogramSource{rest: d.rest}, medium).within(time.Minute),
		source(scyllaTopPartitionsSource{rest: d.rest, window: cfg.ScyllaREST.SampleDuration, listSize: cfg.ScyllaREST.ListSize}, medium).
			within(cfg.ScyllaREST.SampleDuration+30*time.Second).
			samplesKeysOver(cfg.ScyllaREST.SampleDuration, "collector.scylla_rest.sample_duration"),

		source(nodetoolSource{cfg: cfg.NodetoolSampler}, rarely).
			within(nodetoolSamplerTimeout).onlyIf(cfg.NodetoolSampler.Configured()).viaNodetool().samplesKeys(),
		source(nodetoolHistogramsSource{cfg: cfg.NodetoolSampler}, rarely).
			within(nodetoolHistogramsTimeout).onlyIf(cfg.NodetoolSampler.Configured()).viaNodetool(),
		source(nodetoolTablestatsSource{cfg: cfg.NodetoolSampler}, rarely).
			within(nodetoolTablestatsTimeout).onlyIf(cfg.NodetoolSampler.Configured()).viaNodetool(),
	}
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
