package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// TestCheckConfigRefusesWhatRunRefuses: each configuration here is one run
// could not work with. check-config refuses it with exit 4 and a message
// naming the key. run refuses the values the same way at once (exit 4, as
// its help says for a bad configuration) instead of starting and failing
// later (exit 1 on the listen address); a source's missing file it logs
// and starts (the file may come with Cassandra), see
// TestRunWarnsOfMissingSourceFiles. --syntax-only passes the files (they
// exist only where partmon is deployed) and refuses the rest.
func TestCheckConfigRefusesWhatRunRefuses(t *testing.T) {
	dir := t.TempDir()
	sidecar := func(extra string) string {
		return writeFile(t, "partmon.yml", "collector:\n  hosts: [127.0.0.1]\n  mode: sidecar\n"+extra)
	}
	tests := []struct {
		name       string
		args       []string
		want       string
		syntaxPass bool // a file's absence: --syntax-only does not look
	}{
		{name: "a port that is no number", args: []string{"--hosts=127.0.0.1", "--web.listen-address=:notaport"},
			// The item's index: run's own test address comes first.
			want: `]: ":notaport": port "notaport" is not a port number`},
		{name: "an IPv4 address out of range", args: []string{"--hosts=127.0.0.1", "--web.listen-address=999.1.1.1:80"},
			want: "999.1.1.1 is not an IP address"},
		{name: "a URL for a host", args: []string{"--hosts=http://127.0.0.9"},
			want: `"http://127.0.0.9" is a URL: give the node's CQL address without http://`},
		{name: "a missing log file", args: []string{sidecar("  logs:\n    file: " + filepath.Join(dir, "logs", "system.log") + "\n")},
			want: "collector.logs.file: open " + filepath.Join(dir, "logs", "system.log") + ": no such file", syntaxPass: true},
		{name: "a missing data directory", args: []string{sidecar("  data_disk:\n    directories: [" + filepath.Join(dir, "data") + "]\n")},
			want: "collector.data_disk.directories[0]: stat " + filepath.Join(dir, "data") + ": no such file", syntaxPass: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(append([]string{"check-config"}, tc.args...), &out, &errb); code != exitUsage || !strings.Contains(errb.String(), tc.want) {
				t.Errorf("check-config: exit %d, want %d with %q:\n%s%s", code, exitUsage, tc.want, out.String(), errb.String())
			}
			out.Reset()
			errb.Reset()
			code := run(append([]string{"check-config", "--syntax-only"}, tc.args...), &out, &errb)
			if tc.syntaxPass && code != exitOK {
				t.Errorf("check-config --syntax-only: exit %d, want 0 (the file is not opened):\n%s", code, errb.String())
			}
			if !tc.syntaxPass && (code != exitUsage || !strings.Contains(errb.String(), tc.want)) {
				t.Errorf("check-config --syntax-only: exit %d, want %d with %q:\n%s%s", code, exitUsage, tc.want, out.String(), errb.String())
			}
			if !tc.syntaxPass {
				runRefuses(t, tc.args, tc.want)
			}
		})
	}
}

// runRefuses runs `partmon run args` in this process: it must return exit 4
// with want on stderr, before it starts (a started daemon would run on).
func runRefuses(t *testing.T, args []string, want string) {
	t.Helper()
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(append([]string{"run", "--web.listen-address=" + closedLoopback(t, "127.0.0.1"), "--log.level=error"}, runFlags(args)...), new(bytes.Buffer), &errb)
	}()
	select {
	case code := <-done:
		if code != exitUsage || !strings.Contains(errb.String(), want) {
			t.Errorf("run: exit %d, want %d with %q:\n%s", code, exitUsage, want, errb.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("run started with a configuration check-config refuses (%q)", want)
	}
}

// runFlags are check-config's arguments as run takes them: the file as
// --config.file (a test's own --web.listen-address adds to runRefuses').
func runFlags(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if !strings.HasPrefix(a, "--") {
			a = "--config.file=" + a
		}
		out[i] = a
	}
	return out
}

// TestRunWarnsOfMissingSourceFiles: run logs each node-local source's file
// that is not there, naming the key.
func TestRunWarnsOfMissingSourceFiles(t *testing.T) {
	core, logs := observer.New(zap.WarnLevel)
	cfg := defaultConfig()
	missing := filepath.Join(t.TempDir(), "system.log")
	cfg.Collector.Logs.File = missing
	warnMissingSourceFiles(cfg, zap.New(core))
	if got := logs.All(); len(got) != 1 || !strings.Contains(fmt.Sprint(got[0].ContextMap()["error"]), "collector.logs.file: open "+missing) {
		t.Errorf("logged %v, want one warning naming collector.logs.file", got)
	}
}
