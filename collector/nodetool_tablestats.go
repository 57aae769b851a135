package collector

import (
	"context"
	"fmt"
	"strings"

	"github.com/partmon/partmon/collector/internal/nodetool"
	"github.com/partmon/partmon/model"
)

// nodetoolTablestatsTimeout bounds one node's `nodetool tablestats`: a JVM
// start and JMX session like the sampler's, then a few dozen JMX reads per
// user table.
const nodetoolTablestatsTimeout = nodetoolSamplerTimeout

// nodetoolTablestatsSource reads how many distinct partition keys each user
// table has on the node, from `nodetool tablestats -F json` (JMX only: the
// one count of keys Cassandra keeps that de-duplicates across sstables; the
// CQL key estimate, table_estimates, is at least 128 per sstable whatever the
// keys). One run per node for every user keyspace, with the sampler's
// command; Cassandra 4.0–5.0.
type nodetoolTablestatsSource struct{ cfg NodetoolSamplerConfig }

func (nodetoolTablestatsSource) Name() string { return "nodetool_tablestats" }
func (nodetoolTablestatsSource) Scope() Scope { return NodeScope }

func (nodetoolTablestatsSource) copyOwnFields(dst, src *model.TableStats) {
	dst.DistinctPartitions = nil
	if src.DistinctPartitions != nil {
		n := *src.DistinctPartitions // the snapshot shares no memory with the collector
		dst.DistinctPartitions = &n
	}
}

func (s nodetoolTablestatsSource) Collect(ctx context.Context, in Input, out *Output) (int, error) {
	if err := nodetoolReaches(s.cfg, in, "partmon reads ScyllaDB's partition counts from system.size_estimates"); err != nil {
		return 0, err
	}
	tables, err := userTables(in.Schema)
	if err != nil || len(tables) == 0 {
		return 0, err
	}
	counts, err := nodetool.DistinctPartitions(ctx, s.cfg.ForAddress(in.Address), tables)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", in.Address, err)
	}
	for t, n := range counts {
		ks, tb, _ := strings.Cut(t, ".")
		out.Node.Tables[t] = &model.TableStats{Keyspace: ks, Table: tb, DistinctPartitions: &n}
	}
	return len(counts), nil
}
