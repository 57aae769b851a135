package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/exporter-toolkit/web"
	"github.com/robfig/cron/v3"

	"github.com/partmon/partmon/internal/configerr"
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
			errs = append(errs, configerr.Field(key, "%v", err))
		}
	}
	if c.Collector.TLS.Enabled {
		need("collector.tls.ca_file", c.Collector.TLS.CAFile)
		need("collector.tls.cert_file", c.Collector.TLS.CertFile)
		need("collector.tls.key_file", c.Collector.TLS.KeyFile)
	}
	if p := c.Collector.PasswordFile; p != "" {
		if err := checkPasswordFile(p); err != nil {
			errs = append(errs, configerr.Field("collector.password_file", "%v", err))
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
			errs = append(errs, configerr.Field("web.config_file", "%v", err))
		} else if err := checkWebConfig(c.Web.ConfigFile); err != nil {
			errs = append(errs, configerr.Field("web.config_file", "%s: %v", c.Web.ConfigFile, err))
		}
	}
	if c.State.File != "" {
		if err := checkDirWritable(filepath.Dir(c.State.File)); err != nil {
			errs = append(errs, configerr.Field("state.file", "its directory must be writable (the history is saved there): %v", err))
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
