package main

import (
	"strings"
	"testing"

	"github.com/partmon/partmon/exporter"
)

func TestMetricsTableFloorConfig(t *testing.T) {
	const head = "collector:\n  hosts: [127.0.0.1]\nmetrics:\n  table_floor:\n"
	tests := []struct {
		name    string
		yaml    string
		want    exporter.TableFloor
		wantErr []string // substrings of the error; nil when valid
	}{
		{"absent: off", "collector:\n  hosts: [127.0.0.1]\n", exporter.TableFloor{}, nil},
		{"both parts", head + "    disk_bytes: 104857600\n    ops_per_second: 0.5\n", exporter.TableFloor{DiskBytes: 100 << 20, OpsPerSecond: 0.5}, nil},
		{"size alone", head + "    disk_bytes: 104857600\n", exporter.TableFloor{}, []string{"metrics", "set both disk_bytes and ops_per_second"}},
		{"traffic alone", head + "    ops_per_second: 1\n", exporter.TableFloor{}, []string{"metrics", "set both"}},
		{"negative", head + "    disk_bytes: -1\n    ops_per_second: 1\n", exporter.TableFloor{}, []string{"metrics", "not negative"}},
		{"misspelt key", head + "    disk: 1\n", exporter.TableFloor{}, []string{"line 5", "disk"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := parseConfig([]byte(tc.yaml), "partmon.yml", nil)
			if tc.wantErr != nil {
				if err == nil {
					t.Fatalf("no error, want one containing %q", tc.wantErr)
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not contain %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Metrics.TableFloor != tc.want {
				t.Errorf("table_floor = %+v, want %+v", cfg.Metrics.TableFloor, tc.want)
			}
		})
	}
}
