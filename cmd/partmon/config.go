package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/collector"
	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/internal/configerr"
	"github.com/partmon/partmon/internal/keys"
	"github.com/partmon/partmon/web"
)

// Config is partmon's configuration file. Every key is documented in
// docs/configuration.md; a test keeps the two in step.
type Config struct {
	// Cluster overrides the cluster name read from system.local.
	Cluster      string              `yaml:"cluster"`
	Collector    collector.Config    `yaml:"collector"`
	Thresholds   analyzer.Thresholds `yaml:"thresholds"`
	Analysis     AnalysisConfig      `yaml:"analysis"`
	Web          WebConfig           `yaml:"web"`
	Metrics      MetricsConfig       `yaml:"metrics"`
	Alertmanager AlertmanagerConfig  `yaml:"alertmanager"`
	State        StateConfig         `yaml:"state"`
	Log          LogConfig           `yaml:"log"`
	// Keys is how partition keys are shown in every output (docs/operations.md "Keys and privacy").
	Keys keys.Config `yaml:"keys"`
}

// AnalysisConfig says when findings are recomputed from the collected data.
type AnalysisConfig struct {
	// Schedule is a cron spec; each run analyzes the latest data and publishes it.
	Schedule string `yaml:"schedule"`
	// History bounds the history kept for growth forecasts and traffic windows.
	History history.Limits `yaml:"history"`
}

// WebConfig is where the HTTP server listens.
type WebConfig struct {
	ListenAddresses []string `yaml:"listen_addresses"`
	// ConfigFile is an exporter-toolkit web config (TLS, basic auth).
	ConfigFile string `yaml:"config_file"`
	// PageUsers, of ConfigFile's users, alone may see the page and the API.
	PageUsers []string `yaml:"page_users"`
	// AllowedHosts: Host names the page and the API answer besides IP
	// addresses, localhost and the machine's name; "*": any.
	AllowedHosts []string `yaml:"allowed_hosts"`
	// TelemetryPath and DisableExporterMetrics are flags only, as in
	// node_exporter (--web.telemetry-path, --web.disable-exporter-metrics).
	TelemetryPath          string `yaml:"-"`
	DisableExporterMetrics bool   `yaml:"-"`
	// AdviseEnabled (--advise.enabled) serves /api/v1/advise: each request
	// samples a table's rows, so it is off unless asked for.
	AdviseEnabled bool `yaml:"-"`
}

// MetricsConfig shapes what /metrics publishes.
type MetricsConfig struct {
	// TableFloor: past min_tables tables on a node, small tables publish
	// no size series, idle ones no traffic series, flat ones no growth;
	// a table a finding names or at a warning level keeps everything
	// (docs/scale.md). On by default; enabled: false (or the flag
	// --metrics.all-tables) publishes everything.
	TableFloor exporter.TableFloor `yaml:"table_floor"`
}

// AlertmanagerConfig enables partmon's own key-level alerts.
type AlertmanagerConfig struct {
	URLs           []string      `yaml:"urls"`
	ResendInterval time.Duration `yaml:"resend_interval"`
	Timeout        time.Duration `yaml:"timeout"`
	// MinSeverity is the lowest severity pushed: info, warning or critical.
	MinSeverity string `yaml:"min_severity"`
}

// StateConfig is where the analysis history is kept across restarts.
type StateConfig struct {
	File string `yaml:"file"`
}

// LogConfig sets the zap logger.
type LogConfig struct {
	Level  string `yaml:"level"`
	Format string `yaml:"format"`
}

// defaultConfig is what partmon runs with when a key is not given.
func defaultConfig() Config {
	return Config{
		Collector:    collector.Config{}, // zero values are the collector's defaults
		Thresholds:   analyzer.DefaultThresholds(),
		Analysis:     AnalysisConfig{Schedule: "@every 1m", History: history.DefaultLimits()},
		Web:          WebConfig{ListenAddresses: []string{":9808"}},
		Alertmanager: AlertmanagerConfig{ResendInterval: time.Minute, Timeout: 10 * time.Second, MinSeverity: "warning"},
		Log:          LogConfig{Level: "info", Format: "json"},
		Keys:         keys.Config{Mode: keys.Plain, HashLength: keys.DefaultHashLength},
		Metrics:      MetricsConfig{TableFloor: exporter.DefaultTableFloor()},
	}
}

// loadConfig reads a YAML config file over the defaults. Unknown keys and
// bad values are errors that name the file and line.
func loadConfig(path string) (Config, error) { return loadConfigWith(path, nil, filesNone) }

// loadConfigWith is loadConfig with command-line overrides applied before
// validation, so a bad flag value is reported like a bad key, and the files
// a command of scope opens checked like values.
func loadConfigWith(path string, override func(*Config), scope fileScope) (Config, error) {
	if path == "" {
		cfg := defaultConfig()
		if override != nil {
			override(&cfg)
		}
		return cfg, cfg.validateScoped(nil, "", scope)
	}
	data, name, err := readConfig(path)
	if err != nil {
		return defaultConfig(), err
	}
	return parseConfigScoped(data, name, override, scope)
}

func parseConfig(data []byte, name string, override func(*Config)) (Config, error) {
	return parseConfigScoped(data, name, override, filesNone)
}

// configDocs is where an unknown key's message sends the reader.
const configDocs = "docs/configuration.md"

func parseConfigScoped(data []byte, name string, override func(*Config), scope fileScope) (Config, error) {
	cfg := defaultConfig()
	doc, err := configerr.Parse(data)
	if err != nil {
		return cfg, doc.Report(name, err)
	}
	// Unknown keys and values of the wrong type are reported with what
	// validation finds, the rest of the file decoded: one run of
	// check-config shows every error.
	decodeErrs := doc.Decode(&cfg, configDocs)
	if override != nil {
		override(&cfg)
	}
	return cfg, cfg.validateScoped(doc, name, scope, decodeErrs...)
}

// validate checks every section and reports every problem at once, after
// the decoding errors found before, each at the line of its key in doc
// (nil: a config of flags and defaults), ordered by line.
func (c *Config) validate(doc *configerr.Doc, name string, decodeErrs ...error) error {
	return c.validateScoped(doc, name, filesNone, decodeErrs...)
}

// validateScoped is validate that also checks the files a command of
// scope opens. Every check names its value by YAML path (configerr.Field);
// a section's own validator names them relative to the section.
func (c *Config) validateScoped(doc *configerr.Doc, name string, scope fileScope, decodeErrs ...error) error {
	errs := slices.Clone(decodeErrs)
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	add(c.Collector.Validate())
	minSchedule := c.Collector.WithDefaults().MinSchedule
	for _, src := range slices.Sorted(maps.Keys(c.Collector.Sources)) {
		if err := scheduleFloor(c.Collector.Sources[src].Schedule, minSchedule); err != nil {
			add(configerr.Field("collector.sources."+src+".schedule", "%v", err))
		}
	}
	add(configerr.Under("thresholds", c.Thresholds.Validate()))
	// The analysis queries nothing (it reads the last snapshot): no floor.
	if err := parseCronSpec(c.Analysis.Schedule); err != nil {
		add(configerr.Field("analysis.schedule", "%q: %v", c.Analysis.Schedule, err))
	}
	add(configerr.Under("analysis.history", c.Analysis.History.Validate()))
	add(configerr.Under("analysis.history", historyFitsStateFile(c)))
	if len(c.Web.ListenAddresses) == 0 {
		add(configerr.Field("web.listen_addresses", "must name at least one address (e.g. :9808)"))
	}
	for i, a := range c.Web.ListenAddresses {
		add(configerr.Under(fmt.Sprintf("web.listen_addresses[%d]", i), listenAddressError(a)))
	}
	// The files themselves are checked by Serve and by check-config
	// (fileErrors); parsing alone opens none.
	if len(c.Web.PageUsers) > 0 && c.Web.ConfigFile == "" {
		add(configerr.Field("web.page_users", "needs web.config_file with basic_auth_users naming them"))
	}
	if p := c.Web.TelemetryPath; p != "" && (!strings.HasPrefix(p, "/") || p == "/" || reservedPath(p)) {
		// A flag only: no key, no line.
		add(fmt.Errorf("--web.telemetry-path: want a path such as /metrics, not / or one of the API's, got %q", p))
	}
	add(configerr.Under("metrics.table_floor", c.Metrics.TableFloor.Validate()))
	for i, u := range c.Alertmanager.URLs {
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			add(configerr.Field(fmt.Sprintf("alertmanager.urls[%d]", i), "%q is not an http(s) URL", u))
		}
	}
	if c.Alertmanager.ResendInterval < time.Second {
		add(configerr.Field("alertmanager.resend_interval", "%s is below 1s", c.Alertmanager.ResendInterval))
	}
	if _, err := finding.ParseSeverity(c.Alertmanager.MinSeverity); err != nil {
		add(configerr.Field("alertmanager.min_severity", "%v", err))
	}
	if _, err := newLogger(c.Log.Level, c.Log.Format); err != nil {
		add(err)
	}
	for _, err := range c.fileErrors(scope) {
		add(err)
	}
	if _, err := keys.Load(c.Keys); err != nil {
		add(err)
	} else if c.Keys.Mode == keys.Hashed && c.Keys.SecretFile == "" && c.State.File == "" {
		// A secret of the process alone would change every shown key at
		// each restart, and key-hash could not reproduce one.
		add(configerr.Field("keys.mode", "hashed needs keys.secret_file, or state.file to keep a generated secret beside it"))
	}
	return doc.Report(name, errs...)
}

// webAccess is who may reach which endpoint (web.Access).
func (c *Config) webAccess() web.Access {
	return web.Access{ConfigFile: c.Web.ConfigFile, PageUsers: c.Web.PageUsers, MetricsPath: c.Web.TelemetryPath, AllowedHosts: c.Web.AllowedHosts}
}

// splitList reads a comma-separated flag value.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
