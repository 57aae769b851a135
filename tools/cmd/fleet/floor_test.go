package main

import (
	"strings"
	"testing"

	"github.com/partmon/partmon/exporter"
)

func TestParseFloor(t *testing.T) {
	def := exporter.DefaultTableFloor()
	custom := def
	custom.DiskBytes, custom.OpsPerSecond = 1<<20, 1
	onlyOps := def
	onlyOps.OpsPerSecond = 2
	for _, tc := range []struct {
		mode           string
		diskSet, opSet bool
		disk           int64
		ops            float64
		want           exporter.TableFloor
		err            string
	}{
		{mode: "default", want: def},
		{mode: "default", disk: 5, ops: 5, want: def}, // values of flags not given do not count
		{mode: "off", want: exporter.TableFloor{}},
		{mode: "default", diskSet: true, disk: 1 << 20, opSet: true, ops: 1, want: custom},
		{mode: "default", opSet: true, ops: 2, want: onlyOps},
		{mode: "off", diskSet: true, disk: 1, err: "--floor off has none"},
		{mode: "on", err: `--floor "on"`},
		{mode: "default", diskSet: true, disk: -1, err: "disk_bytes: must not be negative"},
	} {
		got, err := ParseFloor(tc.mode, tc.diskSet, tc.disk, tc.opSet, tc.ops)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseFloor(%+v) = %+v, %v; want an error saying %q", tc, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseFloor(%+v) = %+v, %v; want %+v", tc, got, err, tc.want)
		}
	}
	if !def.Enabled || def.MinTables == 0 {
		t.Errorf("exporter.DefaultTableFloor() = %+v: the fleet's default measures an enabled floor", def)
	}
}
