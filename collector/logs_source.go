package collector

import (
	"context"
	"fmt"
	"time"

	"github.com/partmon/partmon/collector/internal/cassandralog"
	"github.com/partmon/partmon/collector/internal/logtail"
	"github.com/partmon/partmon/internal/configerr"
	"github.com/partmon/partmon/model"
)

// LogsConfig is collector.logs: where the logs source reads Cassandra's own
// warnings (docs/logs.md).
type LogsConfig struct {
	// File is the node's log file (system.log, or debug.log for slow
	// queries), read in sidecar mode for the sidecar's own node instead of
	// system_views.system_logs.
	File string `yaml:"file"`
	// Timezone is the zone the node's JVM writes log dates in (logback's
	// %date has none): an IANA name, "Local" or "UTC".
	Timezone string `yaml:"timezone"`
	// MaxRows bounds the system_logs rows, MaxBytes the file bytes, read per run.
	MaxRows  int   `yaml:"max_rows"`
	MaxBytes int64 `yaml:"max_bytes"`
	// MaxAge drops evidence not seen again for this long; MaxKeys bounds the
	// evidence kept per node (the least recently seen goes first).
	MaxAge  time.Duration `yaml:"max_age"`
	MaxKeys int           `yaml:"max_keys"`
}

func (c LogsConfig) withDefaults() LogsConfig {
	if c.Timezone == "" {
		c.Timezone = "Local"
	}
	if c.MaxRows == 0 {
		c.MaxRows = 10_000 // a fifth of the table's default 50,000 rows
	}
	if c.MaxBytes == 0 {
		c.MaxBytes = 16 << 20 // under one 20 MiB system.log rotation step
	}
	if c.MaxAge == 0 {
		c.MaxAge = 24 * time.Hour
	}
	if c.MaxKeys == 0 {
		c.MaxKeys = 1000
	}
	return c
}

func (c LogsConfig) validate(mode string) []error {
	c = c.withDefaults()
	var errs []error
	bad := func(key, format string, a ...any) {
		errs = append(errs, configerr.Field("collector.logs."+key, format, a...))
	}
	if _, err := time.LoadLocation(c.Timezone); err != nil {
		bad("timezone", "%v (an IANA zone such as Europe/Berlin, Local or UTC)", err)
	}
	if c.File != "" && mode == ModeCluster {
		bad("file", "a log file is one node's; it needs mode %q (in cluster mode, 5.0 nodes are read through system_views.system_logs)", ModeSidecar)
	}
	if c.MaxRows < 1 || c.MaxRows > 100_000 {
		bad("max_rows", "must be between 1 and 100000 (the most system_logs holds), got %d", c.MaxRows)
	}
	if c.MaxBytes < 64<<10 {
		bad("max_bytes", "must be at least 65536, got %d", c.MaxBytes)
	}
	if c.MaxAge < time.Minute {
		bad("max_age", "must be at least 1m, got %s", c.MaxAge)
	}
	if c.MaxKeys < 1 {
		bad("max_keys", "must be positive, got %d", c.MaxKeys)
	}
	return errs
}

// logsSource reads the partitions Cassandra names in its own warnings: from
// the sidecar's log file when one is configured, else from
// system_views.system_logs (5.0+). Each run reads only what is new and
// folds it into the evidence the node keeps (logStore).
type logsSource struct {
	cfg   LogsConfig
	store *logStore
	now   func() time.Time
}

func newLogsSource(cfg LogsConfig, now func() time.Time) logsSource {
	cfg = cfg.withDefaults()
	return logsSource{cfg: cfg, store: newLogStore(cfg), now: now}
}

func (logsSource) Name() string { return "logs" }
func (logsSource) Scope() Scope { return NodeScope }
func (logsSource) Facts() Facts {
	return Facts{Reads: "system_views.system_logs or collector.logs.file",
		Help:     "`system_views.system_logs` (Cassandra 5.0+), or `collector.logs.file` for the first host (4.0+)",
		Gate:     cassandraOnly(oldestCassandra, "", "system.large_partitions names large partitions"),
		Schedule: everyMinute, Grants: []string{ksSystemViews}}
}

func (s logsSource) Collect(ctx context.Context, in Input, out *Output) (int, error) {
	n := s.store.lockNode(in.Address)
	defer n.mu.Unlock()
	var rows int
	var err error
	switch {
	case s.cfg.File != "" && in.Own:
		rows, err = s.readFile(n, in.Schema)
	case in.Caps != nil && in.Caps.VirtualColumns[systemLogsTable] != nil:
		rows, err = s.readTable(ctx, n, in)
	case s.cfg.File != "":
		return 0, fmt.Errorf("%w: collector.logs.file is the first host's log, and this node has no system_views.system_logs (Cassandra 5.0+)", ErrUnsupported)
	default:
		version := "an older version"
		if in.Caps != nil && in.Caps.ReleaseVersion != "" {
			version = in.Caps.ReleaseVersion
		}
		return 0, fmt.Errorf("%w: system_views.system_logs needs Cassandra 5.0 (this node runs %s) and collector.logs.file is not set (docs/logs.md)", ErrUnsupported, version)
	}
	n.prune(s.now(), s.cfg.MaxAge, s.cfg.MaxKeys)
	out.Node.LogEvidence = n.sorted()
	return rows, err
}

// readTable folds the system_logs rows written since the last run.
func (s logsSource) readTable(ctx context.Context, n *nodeLogs, in Input) (int, error) {
	rows, next, err := readSystemLogs(ctx, in.Q, n.sysCursor, s.cfg.MaxRows)
	if err != nil {
		return 0, fmt.Errorf("on %s: %w", in.Address, err)
	}
	for _, r := range rows {
		s.fold(n, r.entry(), systemLogsWhere, in.Schema)
	}
	n.sysCursor = next
	return len(rows), nil
}

// readFile folds the log lines written since the last run. The entry in
// progress is complete at the end of what was written: logback writes an
// event in one piece.
func (s logsSource) readFile(n *nodeLogs, schema *model.Schema) (int, error) {
	if n.tailer == nil {
		loc, err := time.LoadLocation(s.cfg.Timezone)
		if err != nil {
			return 0, err // validated at start
		}
		n.tailer = logtail.New(s.cfg.File, n.fileSaved, s.cfg.MaxBytes)
		n.fileSaved = nil
		n.asm = cassandralog.NewAssembler(loc)
	}
	entries := 0
	fold := func(e cassandralog.Entry) {
		entries++
		s.fold(n, e, s.cfg.File, schema)
	}
	st, err := n.tailer.Poll(s.cfg.MaxBytes, func(line string) {
		if e, ok := n.asm.Line(line); ok {
			fold(e)
		}
	})
	if err == nil && !st.More {
		if e, ok := n.asm.Flush(); ok {
			fold(e)
		}
	}
	if err != nil {
		return entries, fmt.Errorf("%w (check collector.logs.file and that partmon may read it)", err)
	}
	return entries, nil
}

// fold parses one entry and folds what it names into n's evidence.
func (s logsSource) fold(n *nodeLogs, e cassandralog.Entry, where string, schema *model.Schema) {
	for _, ev := range cassandralog.Parse(e.Message) {
		n.add(ev, e.Time, where, schema)
	}
}

// lockNode returns addr's state, locked: runs for different nodes proceed
// in parallel, runs for one node one at a time.
func (s *logStore) lockNode(addr string) *nodeLogs {
	s.mu.Lock()
	n := s.node(addr)
	s.mu.Unlock()
	n.mu.Lock()
	return n
}

var _ Source = logsSource{}

// WithLogState seeds the logs source with what an earlier run saved
// (LogState), so it resumes reading where that run stopped and keeps its
// evidence.
func WithLogState(st *LogState) Option {
	return func(c *Collector) {
		if s, ok := c.logsSource(); ok {
			s.store.restore(st)
		}
	}
}

// LogState is what the logs source would need to resume after a restart:
// its read positions and evidence, for the state file.
func (c *Collector) LogState() *LogState {
	if s, ok := c.logsSource(); ok {
		return s.store.state()
	}
	return &LogState{Nodes: map[string]*NodeLogState{}}
}

func (c *Collector) logsSource() (logsSource, bool) {
	for _, r := range c.regs {
		if s, ok := r.src.(logsSource); ok {
			return s, true
		}
	}
	return logsSource{}, false
}
