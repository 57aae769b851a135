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
		{src: topologySource{}, enabled: true, schedule: medium, timeout: 30 * time.Second},
		{src: schemaSource{cache: d.schema}, enabled: true, schedule: medium, timeout: 30 * time.Second},

		{src: sizeEstimatesSource{}, enabled: true, schedule: medium, timeout: time.Minute},
		{src: mebibytesSource{name: "max_partition_size", since: "4.0",
			field: func(ts *model.TableStats) *int64 { return &ts.MaxPartitionBytes }}, enabled: true, schedule: often, timeout: 30 * time.Second},
		{src: mebibytesSource{name: "max_sstable_size", since: "5.0",
			field: func(ts *model.TableStats) *int64 { return &ts.MaxSSTableBytes }}, enabled: true, schedule: often, timeout: 30 * time.Second},
		{src: mebibytesSource{name: "disk_usage", since: "4.0", sumToLoad: true,
			field: func(ts *model.TableStats) *int64 { return &ts.DiskUsageBytes }}, enabled: true, schedule: often, timeout: 30 * time.Second},
		{src: latencySource{name: "local_read_latency", rates: d.rates, now: d.now, msToSeconds: ms,
			field: func(ts *model.TableStats) *model.Ops { return &ts.LocalReads }}, enabled: true, schedule: often, timeout: 30 * time.Second},
		{src: latencySource{name: "local_write_latency", rates: d.rates, now: d.now, msToSeconds: ms,
			field: func(ts *model.TableStats) *model.Ops { return &ts.LocalWrites }}, enabled: true, schedule: often, timeout: 30 * time.Second},
		{src: latencySource{name: "local_scan_latency", rates: d.rates, now: d.now, msToSeconds: ms,
			field: func(ts *model.TableStats) *model.Ops { return &ts.LocalScans }}, enabled: true, schedule: often, timeout: 30 * time.Second},
		{src: distributionSource{name: "tombstones_per_read",
			field: func(ts *model.TableStats) *model.Distribution { return &ts.TombstonesPerRead }}, enabled: true, schedule: often, timeout: 30 * time.Second},
		{src: distributionSource{name: "rows_per_read",
			field: func(ts *model.TableStats) *model.Distribution { return &ts.RowsPerRead }}, enabled: true, schedule: often, timeout: 30 * time.Second},
		{src: threadPoolsSource{}, enabled: true, schedule: often, timeout: 30 * time.Second},
		{src: gossipInfoSource{}, enabled: true, schedule: often, timeout: 30 * time.Second},
		{src: settingsSource{}, enabled: true, schedule: hourly, timeout: 30 * time.Second},
		{src: topPartitionsSource{}, enabled: true, schedule: rarely, timeout: 30 * time.Second},
		{src: d.logs, enabled: true, schedule: often, timeout: 30 * time.Second},

		{src: newLargePartitionsSource(), enabled: true, schedule: rarely, timeout: time.Minute},
		{src: newLargeRowsSource(), enabled: true, schedule: rarely, timeout: time.Minute},
		{src: newLargeCellsSource(), enabled: true, schedule: rarely, timeout: time.Minute},
		{src: scyllaSizeHistogramSource{rest: d.rest}, enabled: true, schedule: medium, timeout: time.Minute},
		{src: scyllaTopPartitionsSource{rest: d.rest, window: cfg.ScyllaREST.SampleDuration, listSize: cfg.ScyllaREST.ListSize}, enabled: true, schedule: medium,
			timeout: cfg.ScyllaREST.SampleDuration + 30*time.Second},

		{src: nodetoolSource{cfg: cfg.NodetoolSampler}, enabled: cfg.NodetoolSampler.Configured(), schedule: rarely,
			timeout: nodetoolSamplerTimeout, nodetool: true},
		{src: nodetoolHistogramsSource{cfg: cfg.NodetoolSampler}, enabled: cfg.NodetoolSampler.Configured(), schedule: rarely,
			timeout: nodetoolHistogramsTimeout, nodetool: true},
		{src: nodetoolTablestatsSource{cfg: cfg.NodetoolSampler}, enabled: cfg.NodetoolSampler.Configured(), schedule: rarely,
			timeout: nodetoolTablestatsTimeout, nodetool: true},
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
