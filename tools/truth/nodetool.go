package truth

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// TableStat is one table on one node as `nodetool tablestats -F json`
// prints it (Cassandra 5.0 tools/nodetool/stats/TableStatsHolder.java).
type TableStat struct {
	MaxPartitionBytes     int64   `json:"max_partition_bytes"`  // compacted_partition_maximum_bytes
	MeanPartitionBytes    int64   `json:"mean_partition_bytes"` // compacted_partition_mean_bytes
	Partitions            int64   `json:"partitions"`           // number_of_partitions_estimate
	LocalReads            int64   `json:"local_reads"`
	LocalWrites           int64   `json:"local_writes"`
	SpaceLiveBytes        int64   `json:"space_live_bytes"`
	SSTables              int64   `json:"sstables"`
	MaxLiveRowsPerSlice   float64 `json:"max_live_rows_per_slice"` // the LiveScannedHistogram behind system_views.rows_per_read
	AvgLiveRowsPerSlice   float64 `json:"avg_live_rows_per_slice"`
	MaxTombstonesPerSlice float64 `json:"max_tombstones_per_slice"` // TombstoneScannedHistogram, behind tombstones_per_read
	AvgTombstonesPerSlice float64 `json:"avg_tombstones_per_slice"`
}

// parseTableStats reads `nodetool tablestats -F json KS.TABLE ...`, keyed by "ks.table".
func parseTableStats(out string) (map[string]TableStat, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		return nil, fmt.Errorf("tablestats -F json: %w", err)
	}
	res := map[string]TableStat{}
	for ks, raw := range doc {
		if ks == "total_number_of_tables" {
			continue
		}
		var k struct {
			Tables map[string]map[string]any `json:"tables"`
		}
		if err := json.Unmarshal(raw, &k); err != nil {
			return nil, fmt.Errorf("tablestats -F json, keyspace %s: %w", ks, err)
		}
		for table, f := range k.Tables {
			res[ks+"."+table] = TableStat{
				MaxPartitionBytes:     int64(number(f["compacted_partition_maximum_bytes"])),
				MeanPartitionBytes:    int64(number(f["compacted_partition_mean_bytes"])),
				Partitions:            int64(number(f["number_of_partitions_estimate"])),
				LocalReads:            int64(number(f["local_read_count"])),
				LocalWrites:           int64(number(f["local_write_count"])),
				SpaceLiveBytes:        int64(number(f["space_used_live"])),
				SSTables:              int64(number(f["sstable_count"])),
				MaxLiveRowsPerSlice:   number(f["maximum_live_cells_per_slice_last_five_minutes"]),
				AvgLiveRowsPerSlice:   number(f["average_live_cells_per_slice_last_five_minutes"]),
				MaxTombstonesPerSlice: number(f["maximum_tombstones_per_slice_last_five_minutes"]),
				AvgTombstonesPerSlice: number(f["average_tombstones_per_slice_last_five_minutes"]),
			}
		}
	}
	return res, nil
}

// number reads a tablestats JSON value, which is a number or a numeric string.
func number(v any) float64 {
	switch v := v.(type) {
	case float64:
		return v
	case string:
		f, err := strconv.ParseFloat(v, 64)
		if err == nil {
			return f
		}
	}
	return 0
}

// Histogram is one column of `nodetool tablehistograms` by percentile.
type Histogram struct {
	P50, P95, P99, Min, Max float64
}

// TableHistograms are the partition size (bytes) and cell count per
// partition histograms of one table on one node.
type TableHistograms struct {
	PartitionBytes Histogram `json:"partition_bytes"`
	Cells          Histogram `json:"cells"`
}

// parseHistograms reads the text of `nodetool tablehistograms KS TABLE`
// (Cassandra 5.0 tools/nodetool/TableHistograms.java): rows 50% .. Max with
// read and write latency, sstables, partition size and cell count.
func parseHistograms(out string) (TableHistograms, error) {
	var h TableHistograms
	if strings.Contains(out, "No SSTables exists") {
		return h, nil // the node holds none of the table yet: nothing to compare
	}
	seen := 0
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) != 6 {
			continue
		}
		size, err1 := strconv.ParseFloat(f[4], 64)
		cells, err2 := strconv.ParseFloat(f[5], 64)
		if err1 != nil || err2 != nil || math.IsNaN(size) || math.IsNaN(cells) {
			continue
		}
		var ps, cs *float64
		switch f[0] {
		case "50%":
			ps, cs = &h.PartitionBytes.P50, &h.Cells.P50
		case "95%":
			ps, cs = &h.PartitionBytes.P95, &h.Cells.P95
		case "99%":
			ps, cs = &h.PartitionBytes.P99, &h.Cells.P99
		case "Min":
			ps, cs = &h.PartitionBytes.Min, &h.Cells.Min
		case "Max":
			ps, cs = &h.PartitionBytes.Max, &h.Cells.Max
		default:
			continue
		}
		*ps, *cs = size, cells
		seen++
	}
	if seen < 5 {
		return h, fmt.Errorf("tablehistograms: found %d of the 50%%/95%%/99%%/Min/Max rows in %q", seen, firstLine(out))
	}
	return h, nil
}

// StatusNode is one node line of `nodetool status [KEYSPACE]`.
type StatusNode struct {
	DC        string  `json:"dc"`
	Address   string  `json:"address"`
	State     string  `json:"state"`
	LoadBytes float64 `json:"load_bytes"`
	// Owns is the effective ownership (0..1) with a keyspace, the raw token
	// share without one; -1 when nodetool printed "?".
	Owns float64 `json:"owns"`
	Rack string  `json:"rack"`
}

// UN  127.0.0.63  104.6 KiB   1       33.3%             d81bd0d9-...  r3
var statusLine = regexp.MustCompile(`^([UD][NLJM])\s+(\S+)\s+([\d.]+ \S+|\?)\s+(\d+)\s+([\d.]+%|\?)\s+([0-9a-f-]{36})\s+(\S+)\s*$`)

var byteUnits = map[string]float64{"bytes": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
	"KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30}

func parseStatus(out string) ([]StatusNode, error) {
	var res []StatusNode
	dc := ""
	for _, line := range strings.Split(out, "\n") {
		if after, ok := strings.CutPrefix(line, "Datacenter: "); ok {
			dc = strings.TrimSpace(after)
			continue
		}
		m := statusLine.FindStringSubmatch(strings.TrimRight(line, " "))
		if m == nil {
			continue
		}
		n := StatusNode{DC: dc, State: m[1], Address: m[2], Owns: -1, Rack: m[7]}
		if m[3] != "?" {
			parts := strings.Fields(m[3])
			v, _ := strconv.ParseFloat(parts[0], 64)
			unit, ok := byteUnits[parts[1]]
			if !ok {
				return nil, fmt.Errorf("nodetool status: unknown load unit %q in %q", parts[1], line)
			}
			n.LoadBytes = v * unit
		}
		if m[5] != "?" {
			v, _ := strconv.ParseFloat(strings.TrimSuffix(m[5], "%"), 64)
			n.Owns = v / 100
		}
		res = append(res, n)
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("nodetool status: no node lines in %q", firstLine(out))
	}
	return res, nil
}

// KeyCount is one row of a `nodetool profileload` sampler section.
type KeyCount struct {
	Key   string `json:"key"`
	Count int64  `json:"count"`
	// Error is the row's "+/-": the space-saving sampler may have counted
	// up to that many operations of other keys as this one's.
	Error int64 `json:"error,omitempty"`
}

// Profile is one table's sampled operations on one node.
type Profile struct {
	// Reads and Writes list the sampled keys, most frequent first. With
	// -k capacity-1 their counts add up to nearly every sampled operation
	// (the stream summary's counters sum to the operations seen).
	Reads  []KeyCount `json:"reads"`
	Writes []KeyCount `json:"writes"`
}

// parseProfile reads one table of `nodetool profileload KS TABLE MS -a
// READS,WRITES` (the format: parseSamplerRun).
func parseProfile(out, table string) (Profile, error) {
	run := parseSamplerRun(out)
	if run.sections == 0 && !strings.Contains(out, "Nothing recorded") {
		return Profile{}, fmt.Errorf("profileload: no reads or writes section in %q", firstLine(out))
	}
	return run.Tables[table], nil
}

// Share is key's share of the sampled operations of one or both samplers.
func (p Profile) Share(key string, reads, writes bool) (share float64, total int64) {
	var hit int64
	add := func(list []KeyCount) {
		for _, kc := range list {
			total += kc.Count
			if kc.Key == key {
				hit += kc.Count
			}
		}
	}
	if reads {
		add(p.Reads)
	}
	if writes {
		add(p.Writes)
	}
	if total == 0 {
		return 0, 0
	}
	return float64(hit) / float64(total), total
}
