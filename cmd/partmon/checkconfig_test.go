package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckConfigBrokenCases: each broken config is refused by check-config
// with exit 4 and its error at the line of the key, and run refuses it
// the same way before starting anything.
func TestCheckConfigBrokenCases(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "absent")
	notDir := writeFile(t, "plain", "") // a file where the state directory should be: refused even as root
	emptyPw := writeFile(t, "pw", "\n")
	badWeb := writeFile(t, "web.yml", "tls_server_config:\n  cert_file: /nonexistent/cert.pem\n")
	tests := []struct {
		name string
		yaml string
		line int
		text string
	}{
		{"bad schedule of the first of two sources", "collector:\n  hosts: [a]\n  sources:\n    schema:\n      schedule: bad\n    topology:\n      schedule: \"@every 1m\"\n",
			5, "collector.sources.schema.schedule"},
		{"bad schedule of the second source", "collector:\n  hosts: [a]\n  sources:\n    schema:\n      schedule: \"@every 1m\"\n    topology:\n      schedule: bad\n",
			7, "collector.sources.topology.schedule"},
		{"source every 0s", "collector:\n  hosts: [a]\n  sources:\n    schema:\n      schedule: \"@every 0s\"\n", 5, "below the floor of 10s"},
		{"source every 1ms", "collector:\n  hosts: [a]\n  sources:\n    topology:\n      schedule: \"@every 1ms\"\n", 5, "below the floor of 10s"},
		{"fractional top_k", "collector:\n  hosts: [a]\nthresholds:\n  top_k: 3.5\n", 4, "thresholds.top_k: want a whole number, got 3.5"},
		{"fractional port", "collector:\n  hosts: [a]\n  port: 9042.5\n", 3, "collector.port: want a whole number"},
		{"second document", "collector:\n  hosts: [a]\n---\nweb:\n  listen_addresses: [\":1\"]\n", 3, "second YAML document"},
		{"a source's key misspelt", "collector:\n  hosts: [a]\n  sources:\n    schema:\n      schedul: \"@every 1m\"\n", 5,
			"collector.sources.schema.schedul: unknown key (did you mean schedule? docs/configuration.md lists every key)"},
		{"an unknown source", "collector:\n  hosts: [a]\n  sources:\n    schemas:\n      schedule: \"@every 1m\"\n", 4,
			"collector.sources.schemas: unknown source (known: "},
		{"a key given twice", "collector:\n  hosts: [a]\nlog:\n  level: info\n  level: debug\n", 5,
			"log.level: given twice in one mapping (first at line 4): keep one"},
		{"hosts missing from the collector section", "collector:\n  port: 9042\n", 1, "collector.hosts: at least one host is required"},
		{"a bad log level", "collector:\n  hosts: [a]\nlog:\n  level: chatty\n", 4, `log.level: "chatty": want debug, info, warn or error`},
		{"missing password_file", "collector:\n  hosts: [a]\n  username: u\n  password_file: " + missing + "\n", 4, "collector.password_file"},
		{"empty password_file", "collector:\n  hosts: [a]\n  username: u\n  password_file: " + emptyPw + "\n", 4, "is empty"},
		{"missing tls ca_file", "collector:\n  hosts: [a]\n  tls:\n    enabled: true\n    ca_file: " + missing + "\n", 5, "collector.tls.ca_file"},
		{"missing web config_file", "collector:\n  hosts: [a]\nweb:\n  config_file: " + missing + "\n", 4, "web.config_file"},
		{"invalid web config_file", "collector:\n  hosts: [a]\nweb:\n  config_file: " + badWeb + "\n", 4, "web.config_file"},
		{"state directory missing", "collector:\n  hosts: [a]\nstate:\n  file: " + filepath.Join(missing, "s.json") + "\n", 4, "state.file: its directory must be writable"},
		{"state directory a file", "collector:\n  hosts: [a]\nstate:\n  file: " + filepath.Join(notDir, "s.json") + "\n", 4, "state.file: its directory must be writable"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, "partmon.yml", tc.yaml)
			for _, args := range [][]string{{"check-config", path}, {"run", "--config.file", path, "--web.listen-address", "127.0.0.199:1"}} {
				var out, errb bytes.Buffer
				if code := run(args, &out, &errb); code != exitUsage {
					t.Fatalf("%v: exit %d, want %d; stderr %q", args[0], code, exitUsage, errb.String())
				}
				want := fmt.Sprintf("line %d: ", tc.line)
				if !containsLine(errb.String(), want, tc.text) {
					t.Errorf("%v: no error %q...%q in:\n%s", args[0], want, tc.text, errb.String())
				}
			}
		})
	}
}

func containsLine(s, prefix, text string) bool {
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, prefix) && strings.Contains(l, text) {
			return true
		}
	}
	return false
}

// TestCheckConfigTakesRunsFlags: the shipped ConfigMap names no host (the
// pod's args do); check-config reads --hosts and PARTMON_HOSTS as run does.
func TestCheckConfigTakesRunsFlags(t *testing.T) {
	path := writeFile(t, "partmon.yml", "collector:\n  username: partmon\nweb:\n  listen_addresses: [\":9808\"]\n")
	var out, errb bytes.Buffer
	if code := run([]string{"check-config", path}, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), "--hosts or PARTMON_HOSTS") {
		t.Errorf("without hosts: exit %d, stderr %q; want 4 naming --hosts", code, errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"check-config", "--hosts=127.0.0.1", "--mode=sidecar", path}, &out, &errb); code != exitOK {
		t.Errorf("--hosts: exit %d, stderr %q", code, errb.String())
	}
	t.Setenv("PARTMON_HOSTS", "127.0.0.2")
	out.Reset()
	if code := run([]string{"check-config", path}, &out, &errb); code != exitOK || !strings.Contains(out.String(), "127.0.0.2") {
		t.Errorf("PARTMON_HOSTS: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

// TestCheckConfigInputBounds: an oversized file and an endless one end with
// a clear error; "-" reads standard input.
func TestCheckConfigInputBounds(t *testing.T) {
	big := writeFile(t, "big.yml", "collector:\n  hosts: [a]\n#"+strings.Repeat("x", maxConfigBytes)+"\n")
	for _, path := range []string{big, "/dev/zero"} {
		var out, errb bytes.Buffer
		if code := run([]string{"check-config", path}, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), "larger than 1048576 bytes") {
			t.Errorf("%s: exit %d, stderr %q", path, code, errb.String())
		}
	}
	for _, tc := range []struct {
		in   string
		code int
		out  string
	}{
		{"collector:\n  hosts: [127.0.0.1]\n", exitOK, "<stdin>: OK"},
		{"collector:\n  hosts: [127.0.0.1]\n  colour: blue\n", exitUsage, "line 3: collector.colour: unknown key"},
	} {
		stdin := writeFile(t, "stdin.yml", tc.in)
		f, err := os.Open(stdin)
		if err != nil {
			t.Fatal(err)
		}
		saved := os.Stdin
		os.Stdin = f
		var out, errb bytes.Buffer
		code := run([]string{"check-config", "-"}, &out, &errb)
		os.Stdin = saved
		f.Close()
		if code != tc.code || !strings.Contains(out.String()+errb.String(), tc.out) {
			t.Errorf("stdin %q: exit %d, output %q %q; want %d and %q", tc.in, code, out.String(), errb.String(), tc.code, tc.out)
		}
	}
}

// TestReportExitsFourOnMissingFile: report refuses a missing password file
// as a config error (4), not a collection failure (3).
func TestReportExitsFourOnMissingFile(t *testing.T) {
	path := writeFile(t, "partmon.yml", "collector:\n  hosts: [127.0.0.199]\n  username: u\n  password_file: /nonexistent/pw\n")
	var out, errb bytes.Buffer
	if code := run([]string{"report", "--config.file", path}, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), "line 4: collector.password_file") {
		t.Errorf("exit %d, stderr %q; want 4 with the line", code, errb.String())
	}
}

// TestRunExitsFourOnConfigErrorAtStart: a configuration error found only
// when the daemon starts (the password file removed after the check) exits
// 4, not 1.
func TestRunExitsFourOnConfigErrorAtStart(t *testing.T) {
	cfg := defaultConfig()
	cfg.Collector.Hosts = []string{"127.0.0.199"}
	cfg.Collector.Mode = "cluster"
	cfg.Collector.Username = "u"
	cfg.Collector.PasswordFile = filepath.Join(t.TempDir(), "removed")
	cfg.Web.ListenAddresses = []string{closedLoopback(t, "127.0.0.193")}
	var d daemonFlags
	var errb bytes.Buffer
	log, err := newLoggerTo("info", "json", &errb)
	if err != nil {
		t.Fatal(err)
	}
	if code := d.serve(cfg, log, nil, &errb); code != exitUsage || !strings.Contains(errb.String(), "password_file") {
		t.Errorf("exit %d, want %d; log %s", code, exitUsage, errb.String())
	}
}

// Keys hidden without keys.secret_file: check-config says where the
// generated secret is kept (and creates nothing), or that the process keys
// them alone; hashed without a secret file nor a state file is refused.
func TestCheckConfigSaysWhereTheKeySecretIs(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")
	cases := []struct {
		yaml string
		code int
		want string
	}{
		{"collector:\n  hosts: [a]\nkeys:\n  mode: omitted\nstate:\n  file: " + state + "\n", exitOK, filepath.Join(dir, "partmon-keys.secret") + " (mode 0600"},
		{"collector:\n  hosts: [a]\nkeys:\n  mode: omitted\n", exitOK, "random secret of each process"},
		{"collector:\n  hosts: [a]\nkeys:\n  mode: hashed\n", exitUsage, "line 4: keys.mode: hashed needs keys.secret_file, or state.file"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := run([]string{"check-config", writeFile(t, "partmon.yml", c.yaml)}, &out, &errb)
		if code != c.code || !strings.Contains(out.String()+errb.String(), c.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d and %q", c.yaml, code, out.String(), errb.String(), c.code, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "partmon-keys.secret")); err == nil {
		t.Error("check-config wrote the secret")
	}
}

// A start with keys hidden and no keys.secret_file writes the secret beside
// the state file (0600) once, and later starts read the same one: hashed
// keys and finding IDs stay the same across restarts.
func TestStartGeneratesTheKeySecretOnce(t *testing.T) {
	dir := t.TempDir()
	cfg := defaultConfig()
	cfg.Keys.Mode, cfg.State.File = "hashed", filepath.Join(dir, "state.json")
	var ids []string
	for range 2 {
		var errb bytes.Buffer
		_, _, k, ok := configAndLogger(func() (Config, error) { return cfg, nil }, &errb)
		if !ok {
			t.Fatalf("start: %s", errb.String())
		}
		ids = append(ids, k.ID("finding"))
	}
	fi, err := os.Stat(filepath.Join(dir, "partmon-keys.secret"))
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Size() < 32 {
		t.Fatalf("generated secret: %v %v", fi, err)
	}
	if ids[0] != ids[1] {
		t.Errorf("finding IDs of two starts differ: %v", ids)
	}
}
