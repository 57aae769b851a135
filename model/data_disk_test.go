package model

import "testing"

func TestDiskUsagePercent(t *testing.T) {
	for _, tc := range []struct {
		name         string
		disk         DataDisk
		maxSize      float64
		total, usage float64
	}{
		{"the file store's size", DataDisk{UsedBytes: 30, UsableBytes: 70}, 0, 100, 30},
		{"capped by data_disk_usage_max_disk_size", DataDisk{UsedBytes: 30, UsableBytes: 970}, 60, 60, 50},
		{"a cap above the file store counts no more", DataDisk{UsedBytes: 30, UsableBytes: 70}, 1000, 100, 30},
		{"rounded up as Cassandra rounds", DataDisk{UsedBytes: 7001, UsableBytes: 2999}, 0, 10000, 71},
		{"nothing measured", DataDisk{}, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			total := tc.disk.TotalBytes(tc.maxSize)
			if got := DiskUsagePercent(float64(tc.disk.UsedBytes), total); total != tc.total || got != tc.usage {
				t.Errorf("total %g, usage %g %%; want %g, %g %%", total, got, tc.total, tc.usage)
			}
		})
	}
	for raw, want := range map[string]float64{"64MiB": 64 << 20, "null": 0, "": 0} {
		got, _ := DataDiskMaxSize(map[string]string{DataDiskMaxSizeSetting: raw})
		if got != want {
			t.Errorf("data_disk_usage_max_disk_size %q: %g, want %g", raw, got, want)
		}
	}
}
