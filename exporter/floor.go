package exporter

import (
	"errors"
	"math"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/internal/configerr"
	"github.com/partmon/partmon/model"
)

// TableFloor decides which per-table-per-node series a node with many
// tables leaves out. At a thousand tables those series are nearly all of a
// sidecar's output, and most of them say "small" or "idle" (docs/scale.md):
// past MinTables tables on a node, a table node publishes its size families
// only when it is large, its traffic families only when it served
// operations, and a table its growth only while it grows. A table node that
// a finding names, or whose figure reaches a warning level a shipped rule
// compares it with, keeps every family. The zero TableFloor publishes
// everything; DefaultTableFloor is what partmon runs with.
type TableFloor struct {
	// Enabled turns the floor on (the default); false publishes every
	// family of every table node.
	Enabled bool `yaml:"enabled"`
	// MinTables: a node holding at most this many tables (Cassandra's own
	// included) publishes everything.
	MinTables int `yaml:"min_tables"`
	// DiskBytes: a table node using less disk than this publishes none of
	// the size families (largest and mean partition, partitions, disk).
	DiskBytes int64 `yaml:"disk_bytes"`
	// OpsPerSecond: a table node serving no more local reads + writes per
	// second than this publishes none of the traffic families (reads,
	// writes, tombstones per read, traffic skew). 0 means any operation
	// counts: an idle table's counters add nothing to a sum, so the
	// roll-ups and the store's traffic skew stay exact.
	OpsPerSecond float64 `yaml:"ops_per_second"`
}

// DefaultTableFloor is the floor partmon runs with unless told otherwise:
// on past 200 tables on a node, 100 MiB, any operation.
func DefaultTableFloor() TableFloor {
	return TableFloor{Enabled: true, MinTables: 200, DiskBytes: 100 << 20}
}

// Validate says what is wrong with a floor, each problem a configerr.Field
// whose path is relative to the floor's section.
func (f TableFloor) Validate() error {
	var errs []error
	if f.MinTables < 0 {
		errs = append(errs, configerr.Field("min_tables", "must not be negative, got %d", f.MinTables))
	}
	if f.DiskBytes < 0 {
		errs = append(errs, configerr.Field("disk_bytes", "must not be negative, got %d", f.DiskBytes))
	}
	if f.OpsPerSecond < 0 || math.IsNaN(f.OpsPerSecond) || math.IsInf(f.OpsPerSecond, 0) {
		errs = append(errs, configerr.Field("ops_per_second", "must be finite and not negative, got %g", f.OpsPerSecond))
	}
	return errors.Join(errs...)
}

// floorFilter says which families of which table nodes one report's
// exposition leaves out.
type floorFilter struct {
	floor   TableFloor
	th      analyzer.Thresholds
	flagged map[string]bool // table keys some finding or remark names
	// crowded: the nodes holding more than MinTables tables; tables: true
	// when the whole report holds more (the table-wide growth series).
	crowded map[string]bool
	tables  bool
}

func newFloorFilter(f TableFloor, r *analyzer.Report) floorFilter {
	ff := floorFilter{floor: f, th: r.Thresholds}
	if !f.Enabled {
		return ff
	}
	perNode := map[string]int{}
	for _, tn := range r.TableNodes {
		perNode[tn.Node]++
	}
	ff.crowded = map[string]bool{}
	for node, n := range perNode {
		if n > f.MinTables {
			ff.crowded[node] = true
		}
	}
	ff.tables = len(r.Tables) > f.MinTables
	ff.flagged = map[string]bool{}
	for _, list := range [][]finding.Finding{r.Findings, r.Remarks} {
		for _, fd := range list {
			if fd.Table != "" {
				ff.flagged[model.TableKey(fd.Keyspace, fd.Table)] = true
			}
		}
	}
	return ff
}

// tableNodeShow is what the floor lets a table node publish.
type tableNodeShow struct{ size, traffic, zeroTombstones bool }

var showAll = tableNodeShow{size: true, traffic: true, zeroTombstones: true}

// show says which families tn publishes: all of them on a node under
// MinTables, for a table a finding names, or for one with a figure that
// reaches a threshold a shipped rule compares it against (the thresholds
// table says which), so no shipped rule goes blind.
func (ff floorFilter) show(tn *analyzer.TableNode) tableNodeShow {
	if !ff.crowded[tn.Node] || ff.flagged[model.TableKey(tn.Keyspace, tn.Table)] || ff.th.TableNodeReachesAlert(tn) {
		return showAll
	}
	ops := opsPerSecond(tn.LocalReads) + opsPerSecond(tn.LocalWrites)
	return tableNodeShow{
		size:    tn.DiskUsageBytes >= ff.floor.DiskBytes,
		traffic: ops > 0 && ops >= ff.floor.OpsPerSecond,
	}
}

// showGrowth says whether a table's growth is published: past MinTables
// tables, only while it grows or shrinks (a forecast needs growth anyway).
func (ff floorFilter) showGrowth(bytesPerSecond float64) bool {
	return !ff.tables || bytesPerSecond != 0
}

// opsPerSecond is the larger of the measured rate between two cycles (-1
// when unknown) and Cassandra's own moving rate, so a first cycle does not
// make a busy table look idle.
func opsPerSecond(o model.Ops) float64 { return math.Max(math.Max(o.Rate, o.PerSecond), 0) }
