package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/collector"
	"github.com/partmon/partmon/exporter"
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
}

// AnalysisConfig says when findings are recomputed from the collected data.
type AnalysisConfig struct {
	// Schedule is a cron spec; each run analyzes the latest data and publishes it.
	Schedule string `yaml:"schedule"`
	// History bounds the history kept for growth forecasts and traffic windows.
	History analyzer.HistoryLimits `yaml:"history"`
}

// WebConfig is where the HTTP server listens.
type WebConfig struct {
	ListenAddresses []string `yaml:"listen_addresses"`
	// ConfigFile is an exporter-toolkit web config (TLS, basic auth).
	ConfigFile string `yaml:"config_file"`
}

// MetricsConfig shapes what /metrics publishes.
type MetricsConfig struct {
	// TableFloor (opt-in): a table node both small and idle, with no
	// finding and nothing at a warning threshold, publishes no per-node
	// series (docs/scale.md).
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
		Analysis:     AnalysisConfig{Schedule: "@every 1m", History: analyzer.DefaultHistoryLimits()},
		Web:          WebConfig{ListenAddresses: []string{":9808"}},
		Alertmanager: AlertmanagerConfig{ResendInterval: time.Minute, Timeout: 10 * time.Second, MinSeverity: "warning"},
		Log:          LogConfig{Level: "info", Format: "json"},
	}
}

// loadConfig reads a YAML config file over the defaults. Unknown keys and
// bad values are errors that name the file and line.
func loadConfig(path string) (Config, error) { return loadConfigWith(path, nil) }

// loadConfigWith is loadConfig with command-line overrides applied before
// validation, so a bad flag value is reported like a bad key.
func loadConfigWith(path string, override func(*Config)) (Config, error) {
	if path == "" {
		cfg := defaultConfig()
		if override != nil {
			override(&cfg)
		}
		return cfg, cfg.validate(nil, "")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return defaultConfig(), fmt.Errorf("reading config: %w", err)
	}
	return parseConfig(data, path, override)
}

func parseConfig(data []byte, name string, override func(*Config)) (Config, error) {
	cfg := defaultConfig()
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return cfg, fmt.Errorf("%s: %s", name, cleanYAMLError(err))
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	// A TypeError lists every unknown key and every value of the wrong type
	// while the rest of the file is still decoded: report them together with
	// what validation finds, so one run of check-config shows every error.
	var decodeErrs []error
	if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) {
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			return cfg, fmt.Errorf("%s: %s", name, cleanYAMLError(err))
		}
		for _, msg := range te.Errors {
			decodeErrs = append(decodeErrs, errors.New(explainTypeError(&root, msg)))
		}
	}
	if override != nil {
		override(&cfg)
	}
	return cfg, cfg.validate(&root, name, decodeErrs...)
}

// validate checks every section and reports every problem at once, after
// the decoding errors found before, ordered by line. With the parsed
// document it points at the line of the offending key.
func (c *Config) validate(root *yaml.Node, name string, decodeErrs ...error) error {
	errs := slices.Clone(decodeErrs)
	add := func(section string, err error) {
		if err == nil {
			return
		}
		for _, e := range splitJoined(err) {
			msg := e.Error()
			if !strings.HasPrefix(msg, section+".") && !strings.HasPrefix(msg, section+":") {
				msg = section + ": " + msg
			}
			if line := locate(root, section, e.Error()); line > 0 {
				msg = fmt.Sprintf("line %d: %s", line, msg)
			}
			errs = append(errs, errors.New(msg))
		}
	}
	add("collector", c.Collector.Validate())
	add("thresholds", c.Thresholds.Validate())
	if err := parseCronSpec(c.Analysis.Schedule); err != nil {
		add("analysis", fmt.Errorf("schedule %q: %w", c.Analysis.Schedule, err))
	}
	add("analysis", c.Analysis.History.Validate())
	if len(c.Web.ListenAddresses) == 0 {
		add("web", errors.New("listen_addresses must name at least one address"))
	}
	for _, a := range c.Web.ListenAddresses {
		if !strings.Contains(a, ":") {
			add("web", fmt.Errorf("listen_addresses: %q is not host:port", a))
		}
	}
	add("metrics", c.Metrics.TableFloor.Validate())
	for _, u := range c.Alertmanager.URLs {
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			add("alertmanager", fmt.Errorf("urls: %q is not an http(s) URL", u))
		}
	}
	if c.Alertmanager.ResendInterval < time.Second {
		add("alertmanager", fmt.Errorf("resend_interval %s is below 1s", c.Alertmanager.ResendInterval))
	}
	if _, err := analyzer.ParseSeverity(c.Alertmanager.MinSeverity); err != nil {
		add("alertmanager", fmt.Errorf("min_severity: %w", err))
	}
	if _, err := newLogger(c.Log.Level, c.Log.Format); err != nil {
		add("log", err)
	}
	if len(errs) == 0 {
		return nil
	}
	sortByLine(errs)
	return &configError{file: name, errs: errs}
}

// configError is every problem found in one config file, one per line.
type configError struct {
	file string
	errs []error
}

func (e *configError) Error() string {
	var b strings.Builder
	b.WriteString("invalid config")
	if e.file != "" {
		b.WriteString(" " + e.file)
	}
	if len(e.errs) > 1 {
		fmt.Fprintf(&b, " (%d errors)", len(e.errs))
	}
	b.WriteString(":")
	for _, err := range e.errs {
		b.WriteString("\n  " + strings.ReplaceAll(err.Error(), "\n", "\n    "))
	}
	return b.String()
}

func (e *configError) Unwrap() []error { return e.errs }

var linePrefix = regexp.MustCompile(`^line (\d+): `)

// sortByLine orders errors by the line they name; those without one go last.
func sortByLine(errs []error) {
	line := func(err error) int {
		if m := linePrefix.FindStringSubmatch(err.Error()); m != nil {
			n, _ := strconv.Atoi(m[1])
			return n
		}
		return math.MaxInt
	}
	slices.SortStableFunc(errs, func(a, b error) int { return line(a) - line(b) })
}

var (
	unknownField = regexp.MustCompile(`^line (\d+): field (\S+) not found in type \S+$`)
	// yaml.v3 quotes a scalar (its first 7 characters and "..." past 10)
	// but not a sequence or mapping.
	wrongType = regexp.MustCompile("^line (\\d+): cannot unmarshal !!(\\w+)(?: `(.*)`)? into (\\S+)$")
)

// explainTypeError rewrites yaml's "line 4: field colour not found in type
// main.WebConfig" in the file's terms: "line 4: web.colour: unknown key",
// and "line 3: cannot unmarshal !!str `abc` into int" as "line 3:
// collector.port: want a whole number, got "abc"".
func explainTypeError(root *yaml.Node, msg string) string {
	if m := wrongType.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return explainWrongType(root, line, m[2], m[3], m[4])
	}
	m := unknownField.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	line, _ := strconv.Atoi(m[1])
	path := keyPath(root, line, m[2])
	if path == "" {
		path = m[2]
	}
	return fmt.Sprintf("line %d: %s: unknown key (docs/configuration.md lists every key)", line, path)
}

// explainWrongType names the key whose value on line has the wrong type and
// says what the key wants.
func explainWrongType(root *yaml.Node, line int, tag, shown, goType string) string {
	kind := yaml.ScalarNode
	switch tag {
	case "seq":
		kind = yaml.SequenceNode
	case "map":
		kind = yaml.MappingNode
	}
	prefix := strings.TrimSuffix(shown, "...")
	path := valuePath(root, func(n *yaml.Node) bool {
		return n.Line == line && n.Kind == kind && strings.HasPrefix(n.Value, prefix)
	})
	if path == "" {
		path = "value"
	}
	got := "a " + map[string]string{"seq": "list", "map": "mapping"}[tag]
	if shown != "" {
		got = strconv.Quote(shown)
	}
	return fmt.Sprintf("line %d: %s: want %s, got %s", line, path, wantedForm(goType), got)
}

// wantedForm says in the file's terms what a Go type reads from YAML.
func wantedForm(goType string) string {
	switch {
	case goType == "time.Duration":
		return "a duration such as 30s, 5m or 1h"
	case strings.HasPrefix(goType, "int") || strings.HasPrefix(goType, "uint"):
		return "a whole number"
	case strings.HasPrefix(goType, "float"):
		return "a number"
	case goType == "bool":
		return "true or false"
	case goType == "string":
		return "a string"
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	}
	return "a mapping of keys"
}

// valuePath is the dotted path ("collector.port", "web.listen_addresses[1]")
// of the deepest value that is, "" if none.
func valuePath(n *yaml.Node, is func(*yaml.Node) bool) string {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if p := valuePath(c, is); p != "" {
				return p
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if p := valuePath(c, is); p != "" {
				return fmt.Sprintf("[%d].%s", i, p)
			}
			if is(c) {
				return fmt.Sprintf("[%d]", i)
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if p := valuePath(v, is); p != "" {
				return strings.Replace(k.Value+"."+p, ".[", "[", 1)
			}
			if is(v) {
				return k.Value
			}
		}
	}
	return ""
}

// keyPath is the dotted path of the mapping key named key on line, "" if none.
func keyPath(n *yaml.Node, line int, key string) string {
	if n == nil {
		return ""
	}
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			if p := keyPath(c, line, key); p != "" {
				return p
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Line == line && k.Value == key {
				return k.Value
			}
			if p := keyPath(n.Content[i+1], line, key); p != "" {
				return k.Value + "." + p
			}
		}
	}
	return ""
}

func splitJoined(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

var yamlLinePrefix = regexp.MustCompile(`^yaml: (unmarshal errors:\n\s*)?`)

func cleanYAMLError(err error) string {
	return strings.ReplaceAll(yamlLinePrefix.ReplaceAllString(err.Error(), ""), "\n ", "\n  ")
}

// locate finds the line of the key an error talks about: the deepest key
// under section whose name the message mentions, else the section itself.
func locate(root *yaml.Node, section, msg string) int {
	if root == nil || len(root.Content) == 0 {
		return 0
	}
	top := root.Content[0]
	key, val := mapLookup(top, section)
	if key == nil {
		return 0
	}
	best, bestLen := key.Line, 0
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if mentions(msg, k.Value) && len(k.Value) >= bestLen {
					best, bestLen = k.Line, len(k.Value)
				}
				walk(n.Content[i+1])
			}
		}
		if n.Kind == yaml.SequenceNode {
			for _, c := range n.Content {
				walk(c)
			}
		}
	}
	walk(val)
	return best
}

func mentions(msg, word string) bool {
	if word == "" {
		return false
	}
	re, err := regexp.Compile(`(^|[^a-z0-9_])` + regexp.QuoteMeta(word) + `($|[^a-z0-9_])`)
	return err == nil && re.MatchString(msg)
}

func mapLookup(n *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i], n.Content[i+1]
		}
	}
	return nil, nil
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
