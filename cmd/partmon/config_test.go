package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/common/version"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string // every substring must appear in the error
	}{
		{
			name: "unknown key names its line",
			yaml: "collector:\n  hosts: [127.0.0.1]\n  hostz: [x]\n",
			want: []string{"line 3", "hostz"},
		},
		{
			name: "unknown top-level section",
			yaml: "collector:\n  hosts: [127.0.0.1]\nexporters:\n  top_k: 3\n",
			want: []string{"line 3", "exporters"},
		},
		{
			name: "bad duration",
			yaml: "collector:\n  hosts: [127.0.0.1]\nalertmanager:\n  resend_interval: 5 parsecs\n",
			want: []string{"line 4", "5 parsecs"},
		},
		{
			name: "bad cron spec points at analysis.schedule",
			yaml: "collector:\n  hosts: [127.0.0.1]\nanalysis:\n  schedule: every minute please\n",
			want: []string{"line 4", "analysis", "schedule"},
		},
		{
			name: "bad mode points at collector.mode",
			yaml: "collector:\n  hosts: [127.0.0.1]\n  mode: everywhere\n",
			want: []string{"line 3", "mode", "everywhere"},
		},
		{
			name: "threshold out of order points at the thresholds section",
			yaml: "collector:\n  hosts: [127.0.0.1]\nthresholds:\n  partition_warning_bytes: 200000000\n  partition_critical_bytes: 100000000\n",
			want: []string{"thresholds", "partition_"},
		},
		{
			name: "every error is reported, not just the first",
			yaml: "collector:\n  hosts: [127.0.0.1]\nweb:\n  listen_addresses: [nowhere]\nalertmanager:\n  urls: [ftp://x]\n  min_severity: loud\n",
			want: []string{"line 4", "nowhere", "line 6", "ftp://x", "line 7", "loud"},
		},
		{
			name: "no hosts",
			yaml: "log:\n  level: info\n",
			want: []string{"hosts"},
		},
		{
			name: "bad log level",
			yaml: "collector:\n  hosts: [127.0.0.1]\nlog:\n  level: chatty\n",
			want: []string{"line 4", "chatty"},
		},
		{
			name: "a string where a number belongs names the key",
			yaml: "collector:\n  hosts: [127.0.0.1]\n  port: abc\n",
			want: []string{`line 3: collector.port: want a whole number, got "abc"`},
		},
		{
			name: "a mapping inside a list names the item",
			yaml: "collector:\n  hosts: [127.0.0.1]\nweb:\n  listen_addresses: [\":9808\", {a: b}]\n",
			want: []string{"line 4: web.listen_addresses[1]: want a string, got a mapping"},
		},
		{
			name: "a bare number is not a duration",
			yaml: "collector:\n  hosts: [127.0.0.1]\nalertmanager:\n  timeout: 5\n",
			want: []string{`line 4: alertmanager.timeout: want a duration such as 30s, 5m or 1h, got "5"`},
		},
		{
			name: "a long value is named by its key and shown whole",
			yaml: "collector:\n  hosts: [127.0.0.1]\n  tls:\n    enabled: definitely-not\n",
			want: []string{`line 4: collector.tls.enabled: want true or false, got "definitely-not"`},
		},
		{
			name: "sizes in binary units, not exponent notation",
			yaml: "collector:\n  hosts: [127.0.0.1]\nthresholds:\n  partition_warning_bytes: 204857600\n",
			want: []string{"line 4: thresholds.partition_warning_bytes: (195 MiB, 204857600 bytes) must not be above partition_critical_bytes (100 MiB, 104857600 bytes)"},
		},
		{
			name: "a bad listen address names the item",
			yaml: "collector:\n  hosts: [127.0.0.1]\nweb:\n  listen_addresses:\n    - \":9808\"\n    - nowhere\n",
			want: []string{`line 6: web.listen_addresses[1]: "nowhere" is not host:port`},
		},
		{
			name: "not YAML at all",
			yaml: "collector: [unclosed\n",
			want: []string{"invalid config test.yml:\n  line 1: did not find expected ',' or ']'"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseConfig([]byte(tc.yaml), "test.yml", nil)
			if err == nil {
				t.Fatal("want an error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

// TestCheckConfigReportsEveryError: one run of check-config lists every
// problem of the file, unknown keys and wrong types from decoding together
// with what validation finds, each with its line, in file order.
func TestCheckConfigReportsEveryError(t *testing.T) {
	type problem struct {
		line int
		text string // a substring of the message
	}
	tests := []struct {
		name string
		yaml string
		want []problem
	}{
		{
			name: "unknown key, negative threshold, bad cron spec",
			yaml: "collector:\n  hosts: [127.0.0.1]\nweb:\n  colour: blue\nthresholds:\n  partition_warning_bytes: -5\n" +
				"analysis:\n  schedule: \"every minute please\"\n",
			want: []problem{{4, "web.colour: unknown key"}, {6, "thresholds.partition_warning_bytes: must be positive"}, {8, "every minute please"}},
		},
		{
			name: "unknown keys in two sections, a bad duration and a bad severity",
			yaml: "collector:\n  hosts: [127.0.0.1]\n  hostz: [x]\nalertmanager:\n  resend_interval: 5 parsecs\n" +
				"  min_severity: loud\nlog:\n  colour: red\n",
			want: []problem{{3, "collector.hostz: unknown key"}, {5, "5 parsecs"}, {6, "loud"}, {8, "log.colour: unknown key"}},
		},
		{
			name: "errors without a line come last",
			yaml: "web:\n  colour: blue\n",
			want: []problem{{2, "web.colour: unknown key"}, {0, "hosts"}},
		},
		{
			name: "one error",
			yaml: "collector:\n  hosts: [127.0.0.1]\n  colour: blue\n",
			want: []problem{{3, "collector.colour: unknown key"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, "partmon.yml", tc.yaml)
			var out, errb bytes.Buffer
			if code := run([]string{"check-config", path}, &out, &errb); code != exitUsage {
				t.Fatalf("exit %d, want %d; stdout %q", code, exitUsage, out.String())
			}
			lines := strings.Split(strings.TrimRight(errb.String(), "\n"), "\n")
			header := "invalid config " + path + ":"
			if len(tc.want) > 1 {
				header = fmt.Sprintf("invalid config %s (%d errors):", path, len(tc.want))
			}
			if lines[0] != header {
				t.Errorf("first line %q, want %q", lines[0], header)
			}
			got := lines[1:]
			if len(got) != len(tc.want) {
				t.Fatalf("%d errors, want %d:\n%s", len(got), len(tc.want), errb.String())
			}
			for i, w := range tc.want {
				prefix := "  "
				if w.line > 0 {
					prefix = fmt.Sprintf("  line %d: ", w.line)
				}
				if !strings.HasPrefix(got[i], prefix) || !strings.Contains(got[i], w.text) {
					t.Errorf("error %d is %q, want %q...%q", i+1, got[i], prefix, w.text)
				}
				if w.line == 0 && strings.HasPrefix(got[i], "  line ") {
					t.Errorf("error %d is %q, want one without a line", i+1, got[i])
				}
			}
		})
	}
}

func TestParseConfigValid(t *testing.T) {
	cfg, err := parseConfig([]byte(`
cluster: prod
collector:
  hosts: [10.0.0.1, 10.0.0.2:9142]
  mode: cluster
thresholds:
  partition_warning_bytes: 10000000
  partition_critical_bytes: 20000000
analysis:
  schedule: "*/5 * * * *"
web:
  listen_addresses: ["127.0.0.1:9999"]
alertmanager:
  urls: [http://am:9093]
  resend_interval: 30s
state:
  file: /var/lib/partmon/state.json
log:
  level: debug
  format: console
`), "ok.yml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Cluster != "prod" || cfg.Collector.Mode != "cluster" || len(cfg.Collector.Hosts) != 2 {
		t.Errorf("collector section not read: %+v", cfg.Collector)
	}
	if cfg.Thresholds.PartitionWarningBytes != 10000000 {
		t.Errorf("threshold not read: %d", cfg.Thresholds.PartitionWarningBytes)
	}
	// Keys not given keep their defaults.
	if cfg.Thresholds.TombstonesPerReadWarning != analyzer.DefaultThresholds().TombstonesPerReadWarning {
		t.Errorf("unset threshold lost its default: %v", cfg.Thresholds.TombstonesPerReadWarning)
	}
	if cfg.Alertmanager.ResendInterval != 30*time.Second || cfg.Alertmanager.Timeout != 10*time.Second {
		t.Errorf("alertmanager durations: %+v", cfg.Alertmanager)
	}
	if cfg.Web.ListenAddresses[0] != "127.0.0.1:9999" || cfg.State.File == "" {
		t.Errorf("config not read: %+v", cfg)
	}
}

func TestFlagsOverrideConfigFile(t *testing.T) {
	path := writeFile(t, "c.yml", "collector:\n  hosts: [10.0.0.1]\n  mode: cluster\nlog:\n  level: warn\n")
	var d daemonFlags
	app := newTestApp(&d)
	if _, err := app.Parse([]string{"run", "--config.file", path, "--hosts", "127.0.0.9, 127.0.0.8", "--web.listen-address", "127.0.0.1:1234"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := d.config()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cfg.Collector.Hosts, ","); got != "127.0.0.9,127.0.0.8" {
		t.Errorf("--hosts did not override: %s", got)
	}
	if cfg.Collector.Mode != "cluster" {
		t.Errorf("mode from the file was overridden by the flag default: %s", cfg.Collector.Mode)
	}
	if cfg.Log.Level != "warn" {
		t.Errorf("log level from the file was overridden by the flag default: %s", cfg.Log.Level)
	}
	if cfg.Web.ListenAddresses[0] != "127.0.0.1:1234" {
		t.Errorf("listen address: %v", cfg.Web.ListenAddresses)
	}
}

func TestEnvironmentSetsFlags(t *testing.T) {
	t.Setenv("PARTMON_HOSTS", "127.0.0.7")
	t.Setenv("PARTMON_MODE", "cluster")
	var d daemonFlags
	app := newTestApp(&d)
	if _, err := app.Parse([]string{"run"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := d.config()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Collector.Hosts[0] != "127.0.0.7" || cfg.Collector.Mode != "cluster" {
		t.Errorf("environment ignored: %v %s", cfg.Collector.Hosts, cfg.Collector.Mode)
	}
}

func TestCheckConfigCommand(t *testing.T) {
	good := writeFile(t, "good.yml", "collector:\n  hosts: [127.0.0.1]\n")
	bad := writeFile(t, "bad.yml", "collector:\n  hosts: [127.0.0.1]\n  colour: blue\n")
	tests := []struct {
		args     []string
		code     int
		out, err string
	}{
		{[]string{"check-config", good}, exitOK, "good.yml: OK", ""},
		{[]string{"check-config", bad}, exitUsage, "", "line 3"},
		{[]string{"check-config", "/nonexistent.yml"}, exitUsage, "", "no such file"},
		// Without a file, check-config checks what run would start with: the flags.
		{[]string{"check-config"}, exitUsage, "", "flag --hosts or PARTMON_HOSTS"},
		{[]string{"check-config", "--hosts", "127.0.0.1"}, exitOK, "no config file", ""},
		{[]string{"--no-such-flag"}, exitUsage, "", "unknown long flag"},
		{[]string{"report", "--format", "yaml", "--hosts", "127.0.0.1"}, exitUsage, "", "unknown format"},
		{[]string{"report", "--min-severity", "loud", "--hosts", "127.0.0.1"}, exitUsage, "", "min-severity"},
		{[]string{"version"}, exitOK, "partmon, version", ""},
		{[]string{"--version"}, exitOK, "partmon, version", ""},
		// Help goes to stdout, so `partmon --help | less` shows it.
		{[]string{"--help"}, exitOK, "usage: partmon", ""},
		{[]string{"report", "--help"}, exitOK, "--min-severity", ""},
		{[]string{"help", "report"}, exitOK, "4 usage or configuration error", ""},
		// A first run without --hosts is told which flag is missing.
		{[]string{"report"}, exitUsage, "", "flag --hosts or PARTMON_HOSTS"},
		{[]string{"report", "--hosts", "127.0.0.1:cql"}, exitUsage, "", `port "cql" is not a number (flag --hosts`},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(tc.args, &out, &errb)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tc.code, errb.String())
			}
			if !strings.Contains(out.String(), tc.out) {
				t.Errorf("stdout %q lacks %q", out.String(), tc.out)
			}
			if !strings.Contains(errb.String(), tc.err) {
				t.Errorf("stderr %q lacks %q", errb.String(), tc.err)
			}
		})
	}
}

func TestExitCodeFor(t *testing.T) {
	f := func(sev ...finding.Severity) []finding.Finding {
		var out []finding.Finding
		for _, s := range sev {
			out = append(out, finding.Finding{Severity: s})
		}
		return out
	}
	tests := []struct {
		findings []finding.Finding
		min      finding.Severity
		want     int
	}{
		{nil, finding.SeverityWarning, exitOK},
		{f(finding.SeverityInfo), finding.SeverityWarning, exitOK},
		{f(finding.SeverityInfo), finding.SeverityInfo, exitWarning},
		{f(finding.SeverityInfo, finding.SeverityWarning), finding.SeverityWarning, exitWarning},
		{f(finding.SeverityWarning, finding.SeverityCritical), finding.SeverityWarning, exitCritical},
		{f(finding.SeverityWarning), finding.SeverityCritical, exitOK},
		{f(finding.SeverityCritical), finding.SeverityCritical, exitCritical},
	}
	for _, tc := range tests {
		if got := exitCodeFor(tc.findings, tc.min); got != tc.want {
			t.Errorf("exitCodeFor(%v, %s) = %d, want %d", tc.findings, tc.min, got, tc.want)
		}
	}
}

func newTestApp(d *daemonFlags) *kingpin.Application {
	app := kingpin.New("partmon", "test")
	app.DefaultEnvars()
	app.Terminate(nil)
	d.register(app.Command("run", "run"))
	return app
}

// TestStampVersion: a build without -ldflags still says what it is.
func TestStampVersion(t *testing.T) {
	saved, savedDate, savedRev := version.Version, version.BuildDate, version.Revision
	t.Cleanup(func() { version.Version, version.BuildDate, version.Revision = saved, savedDate, savedRev })
	tests := []struct {
		name     string
		set      string
		info     *debug.BuildInfo
		want     string
		wantDate string
		wantRev  string
	}{
		{"make build's -ldflags win", "1.4.0", &debug.BuildInfo{Main: debug.Module{Version: "v9.9.9"}}, "1.4.0", "", ""},
		{"go install @version", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3", "", ""},
		{"go install @commit", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261207143316-d1c9315a0b2c"}},
			"v0.0.0-20261207143316-d1c9315a0b2c", "", "d1c9315a0b2c"},
		{"go build in a checkout", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.time", Value: "2026-12-03T01:00:00Z"},
				{Key: "vcs.revision", Value: "d1c9315a0b2c4e5f60718293a4b5c6d7e8f90123"}, {Key: "vcs.modified", Value: "true"}}},
			"devel", "2026-12-03T01:00:00Z", "d1c9315a0b2c-dirty"},
		{"no build information", "", nil, "devel", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			version.Version, version.BuildDate, version.Revision = tc.set, "", ""
			stampVersion(func() (*debug.BuildInfo, bool) { return tc.info, tc.info != nil })
			if version.Version != tc.want || version.BuildDate != tc.wantDate || version.Revision != tc.wantRev {
				t.Errorf("version %q date %q revision %q, want %q %q %q", version.Version, version.BuildDate, version.Revision, tc.want, tc.wantDate, tc.wantRev)
			}
		})
	}
}
