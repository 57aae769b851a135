package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/exporter-toolkit/web"
	"github.com/robfig/cron/v3"
	"go.yaml.in/yaml/v3"
)

// maxConfigBytes bounds a config file (and stdin for `check-config -`): a
// real config is a few KiB, and yaml reads the whole input into memory.
const maxConfigBytes = 1 << 20

// stdinName is how errors name a config read from standard input.
const stdinName = "<stdin>"

// stdinArgs names a lone "-" argument stdinName: kingpin parses "-" as an
// empty argument.
func stdinArgs(args []string) []string {
	out := slices.Clone(args)
	for i, a := range out {
		if a == "-" {
			out[i] = stdinName
		}
	}
	return out
}

// readConfig reads path ("-" is standard input) up to maxConfigBytes and
// returns the data and the name errors give it.
func readConfig(path string) ([]byte, string, error) {
	var r io.Reader
	name := path
	if path == "-" || path == stdinName {
		r, name = os.Stdin, stdinName
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, name, fmt.Errorf("reading config: %w", err)
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, maxConfigBytes+1))
	if err != nil {
		return nil, name, fmt.Errorf("reading config %s: %w", name, err)
	}
	if len(data) > maxConfigBytes {
		return nil, name, fmt.Errorf("reading config %s: larger than %d bytes (1 MiB); is it the right file?", name, maxConfigBytes)
	}
	return data, name, nil
}

// secondDocument is the error for a config with more than one YAML
// document: partmon reads the first only, so the rest would be ignored.
func secondDocument(data []byte) error {
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	var first, second yaml.Node
	if err := dec.Decode(&first); err != nil {
		return nil //nolint:nilerr // the first document's own errors are reported elsewhere
	}
	if err := dec.Decode(&second); err != nil {
		if errors.Is(err, io.EOF) {
			return nil
		}
		return nil // a broken second document: refused below as well
	}
	return fmt.Errorf("line %d: a second YAML document (after ---): partmon reads one; merge them or remove the separator", second.Line)
}

var durationType = reflect.TypeFor[time.Duration]()

// fractionalIntegers finds the values yaml would truncate silently: a number
// with a fraction (top_k: 3.5) for an integer key.
func fractionalIntegers(n *yaml.Node, t reflect.Type, path string) []error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n == nil {
		return nil
	}
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil
		}
		return fractionalIntegers(n.Content[0], t, path)
	}
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	var errs []error
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return nil
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if f, ok := yamlField(t, n.Content[i].Value); ok {
				errs = append(errs, fractionalIntegers(n.Content[i+1], f.Type, join(n.Content[i].Value))...)
			}
		}
	case reflect.Map:
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				errs = append(errs, fractionalIntegers(n.Content[i+1], t.Elem(), join(n.Content[i].Value))...)
			}
		}
	case reflect.Slice, reflect.Array:
		if n.Kind == yaml.SequenceNode {
			for i, c := range n.Content {
				errs = append(errs, fractionalIntegers(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i))...)
			}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if t != durationType && n.Kind == yaml.ScalarNode && n.ShortTag() == "!!float" {
			errs = append(errs, fmt.Errorf("line %d: %s: want a whole number, got %s", n.Line, path, n.Value))
		}
	}
	return errs
}

// yamlField is the field of struct t that yaml key names, through inlined structs.
func yamlField(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if strings.Contains(opts, "inline") {
			if g, ok := yamlField(f.Type, key); ok {
				return g, true
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		if name == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// scheduleFloor refuses a schedule that runs more often than minSchedule
// (collector.min_schedule): each run of a source queries every node it
// reads, and robfig/cron runs "@every 0s" (or "@every 1ms") every second.
// Only "@every" can: a five-field spec runs at most once a minute.
func scheduleFloor(spec string, minSchedule time.Duration) error {
	s, err := cron.ParseStandard(spec)
	if err != nil {
		return nil //nolint:nilerr // the parse error is reported where the spec is parsed
	}
	every, ok := s.(cron.ConstantDelaySchedule)
	if !ok {
		return nil
	}
	given := every.Delay
	if d, err := time.ParseDuration(strings.TrimSpace(strings.TrimPrefix(spec, "@every"))); err == nil {
		given = d
	}
	if given < minSchedule {
		return fmt.Errorf("%q runs every %s, below the floor of %s (each run queries every node)", spec, given, minSchedule)
	}
	return nil
}

// fileScope says which files a command will open, and so must exist.
type fileScope int

const (
	filesNone   fileScope = iota // parsing only (tests, docs)
	filesReport                  // report and collect: the collector's files, the state file if there
	filesRun                     // run and check-config: every file, the state directory writable
	filesCheck                   // check-config: filesRun's and the node-local sources' (sourceFileErrors)
)

// statFile opens path for reading; replaced in the test of the shipped
// configs, whose files exist only where they are deployed.
var statFile = func(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	return nil
}

// checkPasswordFile reads a password file as the collector will: it must
// hold a password. Replaced like statFile.
var checkPasswordFile = func(path string) error {
	if err := statFile(path); err != nil {
		return err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if strings.TrimRight(string(b), "\r\n") == "" {
		return fmt.Errorf("%s is empty", path)
	}
	return nil
}

// checkDirWritable creates and removes a file in dir; replaced like statFile.
var checkDirWritable = func(dir string) error {
	f, err := os.CreateTemp(dir, ".partmon-check-*")
	if err != nil {
		return err
	}
	name := f.Name()
	_ = f.Close()
	return os.Remove(name)
}

// checkWebConfig validates an exporter-toolkit web config's contents.
var checkWebConfig = web.Validate

// fileErrors checks that every file the config names can be used by a
// command of scope: what run would otherwise find only at start-up (or at
// its first save), reported with the key's line like any bad value.
func (c *Config) fileErrors(scope fileScope) []error {
	if scope == filesNone {
		return nil
	}
	var errs []error
	need := func(key, path string) {
		if path == "" {
			return
		}
		if err := statFile(path); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", key, err))
		}
	}
	if c.Collector.TLS.Enabled {
		need("collector.tls.ca_file", c.Collector.TLS.CAFile)
		need("collector.tls.cert_file", c.Collector.TLS.CertFile)
		need("collector.tls.key_file", c.Collector.TLS.KeyFile)
	}
	if p := c.Collector.PasswordFile; p != "" {
		if err := checkPasswordFile(p); err != nil {
			errs = append(errs, fmt.Errorf("collector.password_file: %w", err))
		}
	}
	if scope == filesReport {
		if _, err := os.Stat(c.State.File); c.State.File != "" && err == nil {
			need("state.file", c.State.File)
		}
		return errs
	}
	if c.Web.ConfigFile != "" {
		if err := statFile(c.Web.ConfigFile); err != nil {
			errs = append(errs, fmt.Errorf("web.config_file: %w", err))
		} else if err := checkWebConfig(c.Web.ConfigFile); err != nil {
			errs = append(errs, fmt.Errorf("web.config_file: %s: %w", c.Web.ConfigFile, err))
		}
	}
	if c.State.File != "" {
		if err := checkDirWritable(filepath.Dir(c.State.File)); err != nil {
			errs = append(errs, fmt.Errorf("state.file: its directory must be writable (the history is saved there): %w", err))
		}
	}
	if scope == filesCheck {
		errs = append(errs, c.sourceFileErrors()...)
	}
	return append(errs, c.listenHostErrors()...)
}

// check is check-config: the configuration run would start with, from file
// (or --config.file) and the same flags and environment, with every file
// it names.
func (d *daemonFlags) check(file string, syntaxOnly bool, stdout, stderr io.Writer) int {
	if file != "" {
		if d.configFile != "" && d.configFile != file {
			fmt.Fprintf(stderr, "partmon: check-config: two config files, %s and --config.file=%s: give one\n", file, d.configFile)
			return exitUsage
		}
		d.configFile = file
	}
	cfg, err := d.checkedConfig(syntaxOnly)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	name := d.configFile
	switch name {
	case "":
		name = "flags and environment (no config file)"
	case "-":
		name = stdinName
	}
	fmt.Fprintf(stdout, "%s: OK (%s mode, hosts %s)%s\n", name, cfg.Collector.Mode, strings.Join(cfg.Collector.Hosts, ","), syntaxOnlyNote(syntaxOnly))
	if cfg.Keys.Hides() && cfg.Keys.SecretFile == "" {
		if path := cfg.Keys.Generated(cfg.State.File); path != "" {
			fmt.Fprintf(stdout, "keys: keys.secret_file not set: partmon keeps a generated secret in %s (mode 0600, created at the first start); sidecars of one cluster need the same secret_file\n", path)
		} else {
			fmt.Fprintln(stdout, "keys: keys.secret_file and state.file not set: partmon keys hidden keys with a random secret of each process; finding IDs change at each restart")
		}
	}
	return exitOK
}
