package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestExporterCommandLineConventions: what a user of Prometheus exporters
// expects of the command line.
func TestExporterCommandLineConventions(t *testing.T) {
	tests := []struct {
		args     []string
		code     int
		out, err string
	}{
		{[]string{"-h"}, exitOK, "usage: partmon", ""},
		{[]string{"report", "-h"}, exitOK, "--timeout", ""},
		{[]string{"help", "nosuch"}, exitUsage, "", `no command "nosuch" (commands: run, report, collect, check-config`},
		{[]string{"report", "--timeout", "abc", "--hosts", "127.0.0.199"}, exitUsage, "", `--timeout: want a duration such as 30s, 5m or 1h, got "abc"`},
		{[]string{"collect", "--timeout=abc", "--hosts", "127.0.0.199"}, exitUsage, "", `--timeout: want a duration`},
		{[]string{"collect", "--format", "yaml", "--hosts", "127.0.0.199"}, exitUsage, "", `--format: want json or text, got "yaml"`},
		{[]string{"check-config", "--hosts", "127.0.0.199", "--log.format", "logfmt"}, exitOK, "OK", ""},
		{[]string{"check-config", "--hosts", "127.0.0.199", "--log.format", "xml"}, exitUsage, "", "want json, logfmt or console"},
		{[]string{"check-config", "--hosts", "127.0.0.199", "--web.telemetry-path", "/healthz"}, exitUsage, "", "--web.telemetry-path: want a path"},
		{[]string{"check-config", "--hosts", "127.0.0.199", "--web.telemetry-path", "/x/metrics", "--web.disable-exporter-metrics"}, exitOK, "OK", ""},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(tc.args, &out, &errb); code != tc.code {
				t.Errorf("exit %d, want %d; stderr %q", code, tc.code, errb.String())
			}
			if !strings.Contains(out.String(), tc.out) {
				t.Errorf("stdout lacks %q:\n%s", tc.out, out.String())
			}
			if !strings.Contains(errb.String(), tc.err) {
				t.Errorf("stderr lacks %q:\n%s", tc.err, errb.String())
			}
		})
	}
}
