package collector

import (
	"context"
	"fmt"
	"strings"

	"github.com/partmon/partmon/collector/internal/nodetool"
	"github.com/partmon/partmon/model"
)

// nodetoolHistogramsTimeout bounds one node's `nodetool tablehistograms`:
// a JVM start and JMX session, then five JMX reads per table of the node.
// One minute is too short on a loaded 2-core box where three nodes' JVMs
// start beside the sampler's, so it has the sampler's bound.
const nodetoolHistogramsTimeout = nodetoolSamplerTimeout

// nodetoolHistogramsSource reads each table's most cells per partition (and
// its largest partition fragment in bytes, not rounded to MiB) from
// `nodetool tablehistograms` (JMX only: no virtual table has the cell
// histogram), every table of the node in one run, with the sampler's
// command. The cell count is the one per-partition width Cassandra records
// whatever the reads page or limit (docs/sources.md, cells per partition).
type nodetoolHistogramsSource struct{ cfg NodetoolSamplerConfig }

func (nodetoolHistogramsSource) Name() string { return "nodetool_histograms" }
func (nodetoolHistogramsSource) Scope() Scope { return NodeScope }
func (s nodetoolHistogramsSource) Facts() Facts {
	return Facts{Reads: "nodetool tablehistograms",
		Help: "`nodetool tablehistograms` (JMX; every table in one run: the most cells one sstable holds for a partition)",
		Gate: Gate{Cassandra: "5.0", ScyllaInstead: "rows are counted in system.large_partitions",
			Why: "4.x's tablehistograms prints each table of a keyspace once per table of that keyspace when asked for all (fixed in 5.0); partmon does not run a JVM per table"},
		Schedule: everyTenMinutes, Timeout: nodetoolHistogramsTimeout,
		OffUnless: nodetoolCommandKey, configured: s.cfg.Configured(), Nodetool: true}
}

func (nodetoolHistogramsSource) copyOwnFields(dst, src *model.TableStats) {
	dst.MaxCellsPerPartition = src.MaxCellsPerPartition
	dst.MaxFragmentBytes = src.MaxFragmentBytes
}

func (s nodetoolHistogramsSource) Collect(ctx context.Context, in Input, out *Output) (int, error) {
	if err := nodetoolReaches(s.cfg, in); err != nil {
		return 0, err
	}
	tables, err := userTables(in.Schema)
	if err != nil || len(tables) == 0 {
		return 0, err
	}
	cells, err := nodetool.CellCounts(ctx, s.cfg.ForAddress(in.Address), tables)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", in.Address, err)
	}
	for t, m := range cells {
		ks, tb, _ := strings.Cut(t, ".")
		out.Node.Tables[t] = &model.TableStats{Keyspace: ks, Table: tb, MaxCellsPerPartition: m.Cells, MaxFragmentBytes: m.PartitionBytes}
	}
	return len(cells), nil
}
