package collector

import (
	"errors"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gocql/gocql"
	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/internal/configerr"
	"github.com/robfig/cron/v3"
)

// Config is the collector part of partmon's YAML configuration (under
// "collector:"). Zero values mean "use the default" (see WithDefaults).
type Config struct {
	// Hosts are CQL contact points: IPs or names, optionally host:port. In
	// sidecar mode the first one is the node partmon speaks for.
	Hosts []string `yaml:"hosts"`
	// Mode is "sidecar" (read node-local sources from the first host only)
	// or "cluster" (from every node of the ring).
	Mode         string    `yaml:"mode"`
	Port         int       `yaml:"port"`
	Username     string    `yaml:"username"`
	Password     string    `yaml:"password"`
	PasswordFile string    `yaml:"password_file"`
	TLS          TLSConfig `yaml:"tls"`
	// ConnectTimeout bounds connecting to one node; QueryTimeout one query.
	ConnectTimeout time.Duration `yaml:"connect_timeout"`
	QueryTimeout   time.Duration `yaml:"query_timeout"`
	// PageSize is the rows per page of every query (100..5000).
	PageSize int `yaml:"page_size"`
	// LocalDC is preferred for cluster-wide reads, with LOCAL_ONE consistency.
	LocalDC string `yaml:"local_dc"`
	// ProtoVersion is the CQL native protocol version: 3 or 4, 0 to negotiate.
	ProtoVersion int `yaml:"proto_version"`
	// Datacenters, in cluster mode, limits the nodes read to those of these
	// DCs (empty: every DC): one partmon per DC, or per group of DCs, shards
	// a ring too large for one process. See docs/configuration.md.
	Datacenters []string `yaml:"datacenters"`
	// NodeConcurrency bounds the nodes one run reads at once in cluster
	// mode (default 16): a worker pool, whatever the ring's size.
	NodeConcurrency int `yaml:"node_concurrency"`
	// RetryBackoff is the wait after a node's first failure, doubled on each
	// further failure up to MaxRetryBackoff.
	RetryBackoff    time.Duration `yaml:"retry_backoff"`
	MaxRetryBackoff time.Duration `yaml:"max_retry_backoff"`
	// MinSchedule is the shortest interval a source's schedule may have
	// (default 10 s): each run of a source queries every node it reads.
	// Lower it only in a lab or a test; never below 1 s.
	MinSchedule time.Duration `yaml:"min_schedule"`
	// Sources configures sources by name (see SourceNames); unset fields keep
	// the source's defaults.
	Sources         map[string]SourceConfig `yaml:"sources"`
	NodetoolSampler NodetoolSamplerConfig   `yaml:"nodetool_sampler"`
	ScyllaREST      ScyllaRESTConfig        `yaml:"scylla_rest"`
	// Logs is where the logs source reads Cassandra's own warnings.
	Logs LogsConfig `yaml:"logs"`
	// DataDisk names the node's data directories for the data_disk source.
	DataDisk DataDiskConfig `yaml:"data_disk"`

	password string // resolved from Password or PasswordFile by New
}

// TLSConfig is client TLS towards the CQL port.
type TLSConfig struct {
	Enabled            bool   `yaml:"enabled"`
	CAFile             string `yaml:"ca_file"`
	CertFile           string `yaml:"cert_file"`
	KeyFile            string `yaml:"key_file"`
	ServerName         string `yaml:"server_name"`
	InsecureSkipVerify bool   `yaml:"insecure_skip_verify"`
}

// SourceConfig overrides one source's defaults.
type SourceConfig struct {
	Enabled *bool `yaml:"enabled"`
	// Schedule is a standard 5-field cron spec or a descriptor ("@every 1m").
	Schedule string `yaml:"schedule"`
	// Timeout bounds one run of the source on one node.
	Timeout time.Duration `yaml:"timeout"`
}

// ScyllaRESTConfig locates ScyllaDB's REST API on each node.
type ScyllaRESTConfig struct {
	Port   int    `yaml:"port"`
	Scheme string `yaml:"scheme"`
	// SampleDuration is the toppartitions sampling window; ListSize the keys kept per table and operation.
	SampleDuration time.Duration `yaml:"sample_duration"`
	ListSize       int           `yaml:"list_size"`
}

const (
	ModeSidecar = "sidecar"
	ModeCluster = "cluster"

	minPageSize = 100 // below 100 the round trips dominate (gocql doc)
	maxPageSize = 5000

	defaultNodeConcurrency = 16
	maxNodeConcurrency     = 1024
)

// WithDefaults returns c with every unset field at its default.
func (c Config) WithDefaults() Config {
	if c.Mode == "" {
		c.Mode = ModeSidecar
	}
	if c.Port == 0 {
		c.Port = 9042
	}
	if c.ConnectTimeout == 0 {
		c.ConnectTimeout = 5 * time.Second
	}
	if c.QueryTimeout == 0 {
		c.QueryTimeout = 10 * time.Second
	}
	if c.PageSize == 0 {
		c.PageSize = 1000
	}
	if c.NodeConcurrency == 0 {
		c.NodeConcurrency = defaultNodeConcurrency
	}
	if c.RetryBackoff == 0 {
		c.RetryBackoff = 5 * time.Second
	}
	if c.MinSchedule == 0 {
		c.MinSchedule = DefaultMinSchedule
	}
	if c.MaxRetryBackoff == 0 {
		c.MaxRetryBackoff = 5 * time.Minute
	}
	if c.ScyllaREST.Port == 0 {
		c.ScyllaREST.Port = 10000
	}
	if c.ScyllaREST.Scheme == "" {
		c.ScyllaREST.Scheme = "http"
	}
	if c.ScyllaREST.SampleDuration == 0 {
		c.ScyllaREST.SampleDuration = 10 * time.Second
	}
	if c.ScyllaREST.ListSize == 0 {
		c.ScyllaREST.ListSize = 10
	}
	c.Logs = c.Logs.withDefaults()
	return c
}

// Validate checks c (zero values count as defaults) and returns every
// problem found, one per line.
// DefaultMinSchedule is collector.min_schedule's default, and
// MinScheduleFloor the least it may be (robfig/cron runs "@every 0s" or
// "@every 1ms" every second).
const (
	DefaultMinSchedule = 10 * time.Second
	MinScheduleFloor   = time.Second
)

func (c Config) Validate() error {
	c = c.WithDefaults()
	var errs []error
	bad := func(path, format string, a ...any) { errs = append(errs, configerr.Field(path, format, a...)) }
	if c.MinSchedule < MinScheduleFloor {
		bad("collector.min_schedule", "%s is under %s", c.MinSchedule, MinScheduleFloor)
	}

	if len(c.Hosts) == 0 {
		bad("collector.hosts", "at least one host is required")
	}
	for i, h := range c.Hosts {
		if _, _, err := splitHost(h, c.Port); err != nil {
			bad(fmt.Sprintf("collector.hosts[%d]", i), "%v", err)
		}
	}
	if c.Mode != ModeSidecar && c.Mode != ModeCluster {
		bad("collector.mode", "must be %q or %q, got %q", ModeSidecar, ModeCluster, c.Mode)
	}
	if c.Port < 1 || c.Port > 65535 {
		bad("collector.port", "must be between 1 and 65535, got %d", c.Port)
	}
	if c.Password != "" && c.PasswordFile != "" {
		bad("collector.password_file", "set collector.password or collector.password_file, not both")
	}
	if (c.Password != "" || c.PasswordFile != "") && c.Username == "" {
		bad("collector.username", "required when a password is set")
	}
	switch {
	case c.TLS.CertFile != "" && c.TLS.KeyFile == "":
		bad("collector.tls.cert_file", "set without collector.tls.key_file: give both or neither")
	case c.TLS.CertFile == "" && c.TLS.KeyFile != "":
		bad("collector.tls.key_file", "set without collector.tls.cert_file: give both or neither")
	}
	if !c.TLS.Enabled && (c.TLS.CAFile != "" || c.TLS.CertFile != "" || c.TLS.ServerName != "") {
		bad("collector.tls", "files or server_name are set but collector.tls.enabled is false")
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"connect_timeout", c.ConnectTimeout}, {"query_timeout", c.QueryTimeout}, {"retry_backoff", c.RetryBackoff}, {"max_retry_backoff", c.MaxRetryBackoff}} {
		if d.v < 0 {
			bad("collector."+d.name, "must not be negative, got %s", d.v)
		}
	}
	if c.MaxRetryBackoff < c.RetryBackoff {
		bad("collector.max_retry_backoff", "must be at least collector.retry_backoff (%s), got %s", c.RetryBackoff, c.MaxRetryBackoff)
	}
	if c.PageSize < minPageSize || c.PageSize > maxPageSize {
		bad("collector.page_size", "must be between %d and %d, got %d", minPageSize, maxPageSize, c.PageSize)
	}
	for i, dc := range c.Datacenters {
		if strings.TrimSpace(dc) == "" {
			bad(fmt.Sprintf("collector.datacenters[%d]", i), "empty DC name")
		}
	}
	if len(c.Datacenters) > 0 && c.Mode != ModeCluster {
		bad("collector.datacenters", "only in cluster mode (a sidecar reads its own node), got mode %q", c.Mode)
	}
	if c.NodeConcurrency < 1 || c.NodeConcurrency > maxNodeConcurrency {
		bad("collector.node_concurrency", "must be between 1 and %d, got %d", maxNodeConcurrency, c.NodeConcurrency)
	}
	if c.ProtoVersion != 0 && c.ProtoVersion != 3 && c.ProtoVersion != 4 {
		bad("collector.proto_version", "must be 3 or 4 (0 negotiates), got %d", c.ProtoVersion)
	}
	errs = append(errs, c.ScyllaREST.validate()...)
	errs = append(errs, c.Logs.validate(c.Mode)...)
	errs = append(errs, c.DataDisk.validate(c.Mode)...)
	errs = append(errs, c.validateSources()...)
	errs = append(errs, c.validateNodetool()...)
	return errors.Join(errs...)
}

func (c ScyllaRESTConfig) validate() []error {
	var errs []error
	bad := func(key, format string, a ...any) {
		errs = append(errs, configerr.Field("collector.scylla_rest."+key, format, a...))
	}
	if c.Port < 1 || c.Port > 65535 {
		bad("port", "must be between 1 and 65535, got %d", c.Port)
	}
	if c.Scheme != "http" && c.Scheme != "https" {
		bad("scheme", "must be \"http\" or \"https\", got %q", c.Scheme)
	}
	if c.SampleDuration < time.Millisecond {
		bad("sample_duration", "must be at least 1ms, got %s", c.SampleDuration)
	}
	if c.ListSize < 1 {
		bad("list_size", "must be positive, got %d", c.ListSize)
	}
	return errs
}

func (c Config) validateSources() []error {
	var errs []error
	known := map[string]registration{}
	for _, r := range registry(c, nil) {
		known[r.src.Name()] = r
	}
	names := make([]string, 0, len(c.Sources))
	for name := range c.Sources {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		sc := c.Sources[name]
		path := "collector.sources." + name
		reg, ok := known[name]
		if !ok {
			errs = append(errs, configerr.Field(path, "unknown source (known: %s)", strings.Join(SourceNames(), ", ")))
			continue
		}
		if sc.Schedule != "" {
			if _, err := cron.ParseStandard(sc.Schedule); err != nil {
				errs = append(errs, configerr.Field(path+".schedule", "%q: %v", sc.Schedule, err))
			}
		}
		if sc.Timeout < 0 {
			errs = append(errs, configerr.Field(path+".timeout", "must not be negative, got %s", sc.Timeout))
		}
		eff := c.sourceSettings(reg)
		if reg.window > 0 && eff.enabled && eff.timeout <= reg.window {
			errs = append(errs, configerr.Field(path+".timeout", "must be longer than %s (%s), got %s",
				reg.windowKey, reg.window, eff.timeout))
		}
	}
	return errs
}

// effectiveSource is a source's configuration after defaults.
type effectiveSource struct {
	enabled  bool
	schedule string
	timeout  time.Duration
}

func (c Config) sourceSettings(r registration) effectiveSource {
	e := effectiveSource{enabled: r.enabled, schedule: r.schedule, timeout: r.timeout}
	sc, ok := c.Sources[r.src.Name()]
	if !ok {
		return e
	}
	if sc.Enabled != nil {
		e.enabled = *sc.Enabled
	}
	if sc.Schedule != "" {
		e.schedule = sc.Schedule
	}
	if sc.Timeout > 0 {
		e.timeout = sc.Timeout
	}
	return e
}

// splitHost parses "host" or "host:port" (IPv6 in brackets with a port).
func splitHost(h string, defaultPort int) (string, int, error) {
	if strings.TrimSpace(h) == "" {
		return "", 0, errors.New("empty host")
	}
	if ip := net.ParseIP(h); ip != nil {
		return ip.String(), defaultPort, nil
	}
	if scheme, rest, ok := strings.Cut(h, "://"); ok {
		return "", 0, fmt.Errorf("%q is a URL: give the node's CQL address without %s://, host or host:port (e.g. %s)", h, scheme, strings.TrimSuffix(rest, "/"))
	}
	host, portStr, err := net.SplitHostPort(h)
	if err != nil {
		if strings.Contains(h, ":") {
			return "", 0, fmt.Errorf("%q is not a host or host:port", h)
		}
		return h, defaultPort, nil
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return "", 0, fmt.Errorf("%q: port %q is not a number", h, portStr)
	}
	if port < 1 || port > 65535 {
		return "", 0, fmt.Errorf("%q: port must be between 1 and 65535, got %d", h, port)
	}
	if host == "" {
		return "", 0, fmt.Errorf("%q has no host", h)
	}
	return host, port, nil
}

// resolvePassword reads PasswordFile (trailing newline trimmed) if set, so a
// missing file is an error at start; sessions read it again at every
// authentication (cql.Options.PasswordFile).
func (c *Config) resolvePassword() error {
	c.password = c.Password
	if c.PasswordFile == "" {
		return nil
	}
	pw, err := cql.ReadPasswordFile(c.PasswordFile)
	c.password = pw
	return err
}

// sessionIdleClose is how long a node's session stays open after its last
// statement: longer than the gaps between the statements of one tick's
// sources (they queue for the node's one query slot), and short enough that
// gocql's first heartbeat, 1 s after a connection opens, seldom fires.
const sessionIdleClose = time.Second

// sessionOptions are the CQL session settings of every node.
func (c *Config) sessionOptions(observer gocql.QueryObserver) cql.Options {
	o := cql.Options{
		ProtoVersion:    c.ProtoVersion,
		ConnectTimeout:  c.ConnectTimeout,
		QueryTimeout:    c.QueryTimeout,
		PageSize:        c.PageSize,
		Consistency:     c.consistency(),
		Username:        c.Username,
		Password:        c.password,
		PasswordFile:    c.PasswordFile,
		RetryBackoff:    c.RetryBackoff,
		MaxRetryBackoff: c.MaxRetryBackoff,
		Observer:        observer,
	}
	// Between runs the session is closed (cql.Options.IdleClose): gocql's
	// heartbeats would otherwise be most of what partmon asks of a node.
	// With a password each re-open costs the node a password check per
	// connection (bcrypt, once its credentials cache has expired), dearer
	// than the heartbeats: the session then stays open.
	if c.Username == "" {
		o.IdleClose = sessionIdleClose
	}
	if c.TLS.Enabled {
		o.TLS = &cql.TLS{CAFile: c.TLS.CAFile, CertFile: c.TLS.CertFile, KeyFile: c.TLS.KeyFile,
			ServerName: c.TLS.ServerName, InsecureSkipVerify: c.TLS.InsecureSkipVerify}
	}
	return o
}

func (c *Config) consistency() gocql.Consistency {
	if c.LocalDC != "" {
		return gocql.LocalOne
	}
	return gocql.One
}

func (c Config) validateNodetool() []error {
	var errs []error
	enabled := c.NodetoolSampler.Configured()
	if sc, ok := c.Sources["nodetool_sampler"]; ok && sc.Enabled != nil {
		enabled = *sc.Enabled
	}
	if enabled && !c.NodetoolSampler.Configured() {
		errs = append(errs, configerr.Field("collector.sources.nodetool_sampler", "enabled but collector.nodetool_sampler.command is empty"))
	}
	if c.NodetoolSampler.Configured() {
		if err := c.NodetoolSampler.WithDefaults().Validate(); err != nil {
			errs = append(errs, configerr.Under("collector.nodetool_sampler", err))
		}
	}
	return errs
}
