package exporter

import (
	"fmt"
	"math"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/model"
)

// TableFloor is the opt-in floor below which a (node, table) publishes none
// of the per-table-per-node series: at thousands of tables most are small
// and idle, and their series are most of a sidecar's output
// (docs/scale.md). The zero TableFloor publishes every table.
type TableFloor struct {
	// DiskBytes: a table node using less disk than this is small.
	DiskBytes int64 `yaml:"disk_bytes"`
	// OpsPerSecond: a table node serving fewer local reads + writes per
	// second than this is idle.
	OpsPerSecond float64 `yaml:"ops_per_second"`
}

// Validate says what is wrong with a floor: negative parts, or one part
// without the other (a floor on size alone would hide busy tables).
func (f TableFloor) Validate() error {
	switch {
	case f.DiskBytes < 0 || f.OpsPerSecond < 0 || math.IsNaN(f.OpsPerSecond) || math.IsInf(f.OpsPerSecond, 0):
		return fmt.Errorf("table_floor: disk_bytes %d and ops_per_second %g must be finite and not negative", f.DiskBytes, f.OpsPerSecond)
	case (f.DiskBytes > 0) != (f.OpsPerSecond > 0):
		return fmt.Errorf("table_floor: set both disk_bytes and ops_per_second (a table is under the floor when it is both small and idle), or neither")
	}
	return nil
}

// Enabled says whether the floor hides anything; it needs both parts.
func (f TableFloor) Enabled() bool { return f.DiskBytes > 0 && f.OpsPerSecond > 0 }

// floorFilter says which table nodes the floor hides in one report.
type floorFilter struct {
	floor   TableFloor
	th      analyzer.Thresholds
	flagged map[string]bool // table keys some finding or remark names
}

func newFloorFilter(f TableFloor, r *analyzer.Report) floorFilter {
	ff := floorFilter{floor: f, th: r.Thresholds}
	if !f.Enabled() {
		return ff
	}
	ff.flagged = map[string]bool{}
	for _, list := range [][]analyzer.Finding{r.Findings, r.Remarks} {
		for _, fd := range list {
			if fd.Table != "" {
				ff.flagged[model.TableKey(fd.Keyspace, fd.Table)] = true
			}
		}
	}
	return ff
}

// hides reports whether tn is small, idle and has nothing an alert rule or
// a finding could be about: a table with a finding, or with a series that
// reaches a threshold a shipped rule compares it against (the thresholds
// table says which), always keeps its series, so no shipped rule goes blind.
func (ff floorFilter) hides(tn *analyzer.TableNode) bool {
	if !ff.floor.Enabled() || ff.flagged[model.TableKey(tn.Keyspace, tn.Table)] {
		return false
	}
	if tn.DiskUsageBytes >= ff.floor.DiskBytes || opsPerSecond(tn.LocalReads)+opsPerSecond(tn.LocalWrites) >= ff.floor.OpsPerSecond {
		return false
	}
	return !ff.th.TableNodeReachesAlert(tn)
}

// opsPerSecond is the larger of the measured rate between two cycles (-1
// when unknown) and Cassandra's own moving rate, so a first cycle does not
// make a busy table look idle.
func opsPerSecond(o model.Ops) float64 { return math.Max(math.Max(o.Rate, o.PerSecond), 0) }
