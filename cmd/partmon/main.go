// Command partmon watches the partitions of a Cassandra or ScyllaDB cluster.
//
//	partmon run           the daemon: collect on schedules, analyze, serve /metrics, push alerts
//	partmon report        collect once, print findings with advice, exit non-zero on findings
//	partmon collect       collect once and print the raw snapshot (debugging)
//	partmon advise        judge a table's partition key and candidates from a sample of its rows
//	partmon check-config  validate a config file
//	partmon version       print version information (also --version)
//
// Help goes to stdout (so `partmon --help | less` works); errors to stderr.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/common/version"
	"github.com/robfig/cron/v3"

	"github.com/partmon/partmon/internal/configerr"
)

// Exit codes of partmon report (and of every command for usage errors);
// reportHelp and README's "One-shot report" list them.
const (
	exitOK          = 0
	exitWarning     = 1
	exitCritical    = 2
	exitCollectFail = 3
	exitUsage       = 4
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// common are the flags every command that talks to a cluster shares. A flag
// given on the command line (or by its PARTMON_* environment variable)
// overrides the config file.
type common struct {
	configFile string
	hosts      string
	mode       string
	dcs        string
	cluster    string
	logLevel   string
	logFormat  string
	set        map[string]*bool
	// extra applies a command's own flags over the file, before validation.
	extra func(*Config)
	// scope is which referenced files the command opens, checked at load.
	scope fileScope
	// envPassword is PARTMON_COLLECTOR_PASSWORD as first read (then unset).
	envPassword *string
}

func (c *common) register(cmd *kingpin.CmdClause, defaultMode, defaultLogFormat string) {
	c.set = map[string]*bool{}
	flag := func(name, help string, into *string, def string) {
		set := new(bool)
		c.set[name] = set
		f := cmd.Flag(name, help).IsSetByUser(set)
		if def != "" {
			f.Default(def)
		}
		f.StringVar(into)
	}
	flag("config.file", "YAML configuration file (see docs/configuration.md).", &c.configFile, "")
	flag("hosts", "Comma-separated CQL contact points (host or host:port). In sidecar mode the first is the node partmon speaks for.", &c.hosts, "")
	flag("mode", "sidecar (read and publish only the first host's node) or cluster (every node of the ring).", &c.mode, defaultMode)
	flag("datacenters", "Cluster mode: comma-separated DCs whose nodes this partmon reads and speaks for (default: every DC); one partmon per DC shards a large ring.", &c.dcs, "")
	flag("cluster", "Cluster name label; default: cluster_name from system.local.", &c.cluster, "")
	flag("log.level", "Log level: debug, info, warn, error.", &c.logLevel, "info")
	flag("log.format", "Log format: json, logfmt or console.", &c.logFormat, defaultLogFormat)
}

func (c *common) isSet(name string) bool { return given(name, c.set[name] != nil && *c.set[name]) }

// given tells whether a flag was set on the command line or through its
// environment variable (kingpin's IsSetByUser sees only the former).
func given(flag string, onCommandLine bool) bool {
	if onCommandLine {
		return true
	}
	_, ok := os.LookupEnv(envVar(flag))
	return ok
}

// envVar is the environment variable kingpin's DefaultEnvars reads for a flag.
func envVar(flag string) string {
	return "PARTMON_" + strings.ToUpper(strings.NewReplacer(".", "_", "-", "_").Replace(flag))
}

// keyFlags are the config keys a common flag also sets.
var keyFlags = map[string]string{"collector.hosts": "hosts", "collector.mode": "mode", "collector.datacenters": "datacenters"}

// nameFlags adds to each error about a key that a flag also sets how to set
// it there: a first run with no config file has only the flags.
func nameFlags(err error) error {
	var ce *configerr.Error
	if !errors.As(err, &ce) {
		return err
	}
	for _, e := range ce.Errs {
		var p *configerr.Problem
		if !errors.As(e, &p) {
			continue
		}
		for key, flag := range keyFlags {
			if p.Path == key || strings.HasPrefix(p.Path, key+"[") {
				p.Msg += fmt.Sprintf(" (flag --%s or %s, or %s in --config.file)", flag, envVar(flag), key)
			}
		}
	}
	return err
}

// load reads the config file and applies the flags that were given.
func (c *common) load() (Config, error) {
	cfg, err := loadConfigWith(c.configFile, func(cfg *Config) {
		if c.isSet("hosts") {
			cfg.Collector.Hosts = splitList(c.hosts)
		}
		if c.isSet("mode") || cfg.Collector.Mode == "" {
			cfg.Collector.Mode = c.mode
		}
		if c.isSet("datacenters") {
			cfg.Collector.Datacenters = splitList(c.dcs)
		}
		if c.isSet("cluster") {
			cfg.Cluster = c.cluster
		}
		if c.isSet("log.level") {
			cfg.Log.Level = c.logLevel
		}
		if c.isSet("log.format") || c.configFile == "" {
			cfg.Log.Format = c.logFormat
		}
		c.applyPasswordEnv(cfg)
		if c.extra != nil {
			c.extra(cfg)
		}
	}, c.scope)
	return cfg, nameFlags(err)
}

func run(args []string, stdout, stderr io.Writer) int {
	app := kingpin.New("partmon", "Partition health monitor for Apache Cassandra and ScyllaDB.")
	app.UsageWriter(stdout)
	app.ErrorWriter(stderr)
	app.Terminate(nil)
	app.DefaultEnvars() // every flag also reads PARTMON_<FLAG_NAME>
	app.HelpFlag.Short('h').NoEnvar()
	showVersion := app.Flag("version", "Print version information and exit.").NoEnvar().Bool()

	runCmd := app.Command("run", "Run the daemon: collect, analyze, serve /metrics and the status page, push alerts.").Default()
	var daemon daemonFlags
	daemon.register(runCmd)

	reportCmd := app.Command("report", reportHelp)
	var report reportFlags
	report.register(reportCmd)

	collectCmd := app.Command("collect", "Collect once and print the snapshot (for debugging collectors).")
	var collect collectFlags
	collect.register(collectCmd)

	checkCmd := app.Command("check-config", "Validate the configuration run would start with (the file, the same flags and PARTMON_* variables) "+
		"and every file it names; print every error with its line. Exit 0 valid, 4 not.")
	var check daemonFlags
	check.register(checkCmd)
	checkFile := checkCmd.Arg("file", "Configuration file (- reads standard input); the same as --config.file.").String()
	syntaxOnly := checkCmd.Flag("syntax-only", "Check syntax and values only: open none of the files the configuration names and resolve no host name "+
		"(in CI, away from the host it is deployed on), as promtool's --syntax-only.").NoEnvar().Bool()

	keyHashCmd := app.Command("key-hash", "Print the hashed form partmon shows for each partition key read from standard input, one a line, as partmon prints it (Cassandra's text form; a key of several columns joined by ':', e.g. tenant1:2026-12-04), to find a known key in its outputs.")
	var keyHash keyHashFlags
	keyHash.register(keyHashCmd)

	adviseCmd := app.Command("advise", adviseHelp)
	var advise adviseFlags
	advise.register(adviseCmd)

	app.Command("version", "Print version information.")

	if err := unknownHelpTopic(app, args); err != nil {
		fmt.Fprintf(stderr, "partmon: %v\n", err)
		return exitUsage
	}
	cmd, err := app.Parse(stdinArgs(args))
	if err != nil {
		fmt.Fprintf(stderr, "partmon: %v\n", err)
		return exitUsage
	}
	// With Terminate(nil) kingpin prints help and returns; the default
	// command must not then start.
	if containsHelp(args) {
		return exitOK
	}
	if *showVersion {
		cmd = "version"
	}
	switch cmd {
	case runCmd.FullCommand():
		return daemon.run(stderr)
	case reportCmd.FullCommand():
		return report.run(stdout, stderr)
	case collectCmd.FullCommand():
		return collect.run(stdout, stderr)
	case adviseCmd.FullCommand():
		return advise.run(stdout, stderr)
	case checkCmd.FullCommand():
		return check.check(*checkFile, *syntaxOnly, stdout, stderr)
	case keyHashCmd.FullCommand():
		return keyHash.run(stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, version.Print("partmon"))
		return exitOK
	}
	return exitUsage
}

// reportHelp is partmon report's help: what it does and every exit code.
const reportHelp = "Collect once, analyze, print a report with advice. Exit codes: 0 nothing at or above --min-severity, " +
	"1 warnings, 2 critical findings, 3 could not collect, 4 usage or configuration error."

func init() { stampVersion(debug.ReadBuildInfo) }

// stampVersion fills in the version when the build did not set it through
// -ldflags (make build does): a plain `go build` or `go install` otherwise
// prints an empty version. The module version is what `go install ...@v1.2.3`
// records; a build from a checkout records "(devel)" and, where the go
// command could read git, the commit.
func stampVersion(read func() (*debug.BuildInfo, bool)) {
	if version.Version != "" {
		return
	}
	version.Version = "devel"
	bi, ok := read()
	if !ok {
		return
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		version.Version = v
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.time" && version.BuildDate == "" {
			version.BuildDate = s.Value
		}
	}
	if version.Revision == "" {
		version.Revision = buildRevision(bi)
	}
}

// buildRevision is the commit a build without -ldflags came from: the go
// command's vcs.revision (a checkout), else the one a pseudo-version such as
// v0.0.0-20261207143316-d1c9315a0b2c names (`go install ...@commit`); "" for
// a tagged version, whose tag says it.
func buildRevision(bi *debug.BuildInfo) string {
	var rev, dirty string
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision":
			rev = s.Value
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = "-dirty"
		}
	}
	if rev == "" {
		if parts := strings.Split(strings.TrimSuffix(bi.Main.Version, "+incompatible"), "-"); len(parts) >= 3 && len(parts[len(parts)-1]) == 12 {
			rev = parts[len(parts)-1]
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev == "" {
		return ""
	}
	return rev + dirty
}

func containsHelp(args []string) bool {
	for _, a := range args {
		if a == "--help" || a == "-h" || a == "help" || strings.HasPrefix(a, "--help-") {
			return true
		}
	}
	return false
}

// parseCronSpec accepts what robfig/cron's standard parser accepts: five
// fields or a descriptor such as "@every 1m".
func parseCronSpec(spec string) error {
	_, err := cron.ParseStandard(spec)
	return err
}
