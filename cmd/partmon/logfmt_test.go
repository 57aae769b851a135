package main

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
)

// parseLogfmt reads one logfmt line as the logfmt convention defines it:
// key=value pairs separated by spaces, a value quoted Go-style when it has
// a space, an equals sign or a quote.
func parseLogfmt(t *testing.T, line string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for line != "" {
		key, rest, ok := strings.Cut(line, "=")
		if !ok || key == "" || strings.ContainsAny(key, " \"") {
			t.Fatalf("not a key=value pair at %q", line)
		}
		var val string
		if strings.HasPrefix(rest, `"`) {
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				t.Fatalf("bad quoted value at %q: %v", rest, err)
			}
			val, _ = strconv.Unquote(q)
			rest = rest[len(q):]
		} else {
			val, rest, _ = strings.Cut(rest, " ")
			rest = " " + rest
		}
		out[key] = val
		line = strings.TrimPrefix(rest, " ")
	}
	return out
}

func TestLogfmtFormat(t *testing.T) {
	var buf bytes.Buffer
	log, err := newLoggerTo("info", "logfmt", &buf)
	if err != nil {
		t.Fatal(err)
	}
	log.Named("web").Warn("source failed", zap.String("node", "127.0.0.199"), zap.Error(errors.New(`dial "x": refused`)),
		zap.Duration("took", 1500*time.Millisecond), zap.Int("rows", 3), zap.Strings("hosts", []string{"a", "b"}), zap.String("empty", ""))
	log.Debug("not shown")
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 1 {
		t.Fatalf("%d lines, want 1:\n%s", len(lines), buf.String())
	}
	got := parseLogfmt(t, lines[0])
	want := map[string]string{"level": "warn", "logger": "web", "msg": "source failed", "node": "127.0.0.199",
		"error": `dial "x": refused`, "took": "1.5s", "rows": "3", "hosts": `["a","b"]`, "empty": ""}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s=%q, want %q (line %s)", k, got[k], v, lines[0])
		}
	}
	if _, err := time.Parse(time.RFC3339Nano, got["time"]); err != nil {
		t.Errorf("time=%q: %v", got["time"], err)
	}
	if !strings.HasPrefix(lines[0], "time=") {
		t.Errorf("the line does not start with time=: %s", lines[0])
	}
}
