package model

import "math"

// DataDisk is one node's data directories as Cassandra's disk-usage
// guardrail measures them (DiskUsageMonitor, 5.0; docs/sources.md#data-disk):
// the size of each data directory's tree and the usable space of the file
// stores holding them. Memtables, which Cassandra adds to the used space,
// are not on disk and not in it.
type DataDisk struct {
	// UsedBytes is the sum over the data directories of their files'
	// sizes, the whole tree (snapshots and backups included).
	UsedBytes int64 `json:"used_bytes"`
	// UsableBytes is the sum over the distinct file stores holding them
	// of the space a non-root process may still write (statfs f_bavail).
	UsableBytes int64 `json:"usable_bytes"`
	// Directories is how many data directories were measured.
	Directories int `json:"directories"`
}

// DataDiskMaxSizeSetting caps the total the disk-usage guardrail divides by.
const DataDiskMaxSizeSetting = "data_disk_usage_max_disk_size"

// DataDiskMaxSize reads data_disk_usage_max_disk_size from a node's
// settings; set false when it is null or absent (the file stores' size
// counts then).
func DataDiskMaxSize(settings map[string]string) (float64, bool) {
	raw, ok := settings[DataDiskMaxSizeSetting]
	if !ok {
		return 0, false
	}
	return ParseGuardrailValue(raw, UnitBytes)
}

// TotalBytes is what the guardrail divides by: used plus usable, capped
// by data_disk_usage_max_disk_size when maxSize > 0.
func (d DataDisk) TotalBytes(maxSize float64) float64 {
	total := float64(d.UsedBytes) + float64(d.UsableBytes)
	if maxSize > 0 && maxSize < total {
		total = maxSize
	}
	return total
}

// DiskUsagePercent is the figure the guardrail compares with its thresholds:
// the used share of the total in percent, rounded up to a whole percent
// (DiskUsageMonitor.updateLocalState's ceiling); 0 when total is 0.
func DiskUsagePercent(used, total float64) float64 {
	if total <= 0 {
		return 0
	}
	return math.Ceil(used / total * 100)
}
