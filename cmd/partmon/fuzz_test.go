package main

// FuzzParseConfig: whatever the file holds, parseConfig returns a config or
// an error that names the file — never a panic or a hang — and a config it
// accepts passes validation again. Seeds: the shipped example configs and
// testdata/fuzz/FuzzParseConfig/ (alias bombs, deep nesting, overflowing
// durations, odd cron specs, wrong types...). Explore with
// `go test -fuzz=FuzzParseConfig ./cmd/partmon/`.

import (
	"os"
	"strings"
	"testing"
)

func FuzzParseConfig(f *testing.F) {
	for _, path := range []string{"../../deploy/partmon.yml", "../../deploy/partmon-demo.yml"} {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := parseConfig(data, "fuzz.yml", nil)
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.yml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if err := cfg.validate(nil, ""); err != nil {
			t.Fatalf("accepted config fails validation: %v", err)
		}
		if len(cfg.Collector.Hosts) == 0 || len(cfg.Web.ListenAddresses) == 0 {
			t.Fatalf("accepted config without hosts or listen addresses: %+v", cfg)
		}
	})
}
