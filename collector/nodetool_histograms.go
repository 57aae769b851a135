package collector

import (
	"context"
	"fmt"
	"strconv"
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

func (nodetoolHistogramsSource) copyOwnFields(dst, src *model.TableStats) {
	dst.MaxCellsPerPartition = src.MaxCellsPerPartition
	dst.MaxFragmentBytes = src.MaxFragmentBytes
}

func (s nodetoolHistogramsSource) Collect(ctx context.Context, in Input, out *Output) (int, error) {
	if err := nodetoolReaches(s.cfg, in, "nodetool tablehistograms is Cassandra's; ScyllaDB counts rows in system.large_partitions"); err != nil {
		return 0, err
	}
	if in.Caps != nil && majorVersion(in.Caps.Version) < 5 {
		return 0, fmt.Errorf("%w: Cassandra %s's tablehistograms prints each table of a keyspace once per table of that keyspace when asked for all (fixed in 5.0); partmon does not run a JVM per table",
			ErrUnsupported, in.Caps.Version)
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

// majorVersion is the leading number of a release version ("5.0.8" → 5);
// 0 when there is none.
func majorVersion(v string) int {
	head, _, _ := strings.Cut(v, ".")
	n, err := strconv.Atoi(head)
	if err != nil {
		return 0
	}
	return n
}
