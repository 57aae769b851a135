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
		{"absent: the default", "collector:\n  hosts: [127.0.0.1]\n", exporter.DefaultTableFloor(), nil},
		{"off", head + "    enabled: false\n", exporter.TableFloor{MinTables: 200, DiskBytes: 100 << 20}, nil},
		{"parts", head + "    disk_bytes: 1048576\n    ops_per_second: 0.5\n    min_tables: 10\n",
			exporter.TableFloor{Enabled: true, MinTables: 10, DiskBytes: 1 << 20, OpsPerSecond: 0.5}, nil},
		{"negative", head + "    disk_bytes: -1\n", exporter.TableFloor{}, []string{"line 5: metrics.table_floor.disk_bytes: must not be negative, got -1"}},
		{"negative min_tables", head + "    min_tables: -1\n", exporter.TableFloor{}, []string{"line 5: metrics.table_floor.min_tables: must not be negative, got -1"}},
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

// TestAllTablesFlag: --metrics.all-tables turns the floor off whatever the file says.
func TestAllTablesFlag(t *testing.T) {
	for _, all := range []bool{false, true} {
		d := daemonFlags{allTables: all}
		cfg := defaultConfig()
		d.applyFlags(&cfg)
		if cfg.Metrics.TableFloor.Enabled == all {
			t.Errorf("--metrics.all-tables=%v: floor enabled %v", all, cfg.Metrics.TableFloor.Enabled)
		}
	}
}
