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
func (s nodetoolTablestatsSource) Facts() Facts {
	return Facts{Reads: "nodetool tablestats",
		Help:     "`nodetool tablestats -F json` on the user keyspaces (JMX; one run: each table's distinct partition keys, HyperLogLog over the node's sstables plus memtable partitions)",
		Gate:     cassandraOnly(oldestCassandra, "", "partition counts come from system.size_estimates"),
		Schedule: everyTenMinutes, Timeout: nodetoolTablestatsTimeout,
		OffUnless: nodetoolCommandKey, configured: s.cfg.Configured(), Nodetool: true}
}

func (nodetoolTablestatsSource) copyOwnFields(dst, src *model.TableStats) {
	dst.DistinctPartitions = nil
	if src.DistinctPartitions != nil {
		n := *src.DistinctPartitions // the snapshot shares no memory with the collector
		dst.DistinctPartitions = &n
	}
}

// readsHoldingOnly: the collector sets Input.Holding for this source.
func (nodetoolTablestatsSource) readsHoldingOnly() {}

func (s nodetoolTablestatsSource) Collect(ctx context.Context, in Input, out *Output) (int, error) {
	if err := nodetoolReaches(s.cfg, in); err != nil {
		return 0, err
	}
	tables, err := userTables(in.Schema)
	if err != nil || len(tables) == 0 {
		return 0, err
	}
	asked, empty, whole := splitByHolding(tables, in.Holding)
	counts, err := nodetool.DistinctPartitions(ctx, s.cfg.ForAddress(in.Address), asked, whole)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", in.Address, err)
	}
	if counts == nil {
		counts = map[string]int64{}
	}
	for _, t := range empty {
		counts[t] = 0 // what nodetool prints for a table with no sstable and an empty memtable
	}
	for t, n := range counts {
		ks, tb, _ := strings.Cut(t, ".")
		out.Node.Tables[t] = &model.TableStats{Keyspace: ks, Table: tb, DistinctPartitions: &n}
	}
	return len(counts), nil
}

// splitByHolding splits the user tables into those nodetool is asked about
// and those the node's own figures show empty (holding set: not in it);
// whole are the keyspaces every table of which is asked. With no holding
// set (its figures missing or stale) every table is asked. At 10,000 tables
// of which 600 hold data, asking all of them ran past the source's 2-minute
// timeout; nodetool spends about forty JMX reads on each table it lists,
// empty or not.
func splitByHolding(tables []string, holding map[string]bool) (asked, empty []string, whole map[string]bool) {
	whole = map[string]bool{}
	for _, t := range tables {
		ks, _, _ := strings.Cut(t, ".")
		if _, seen := whole[ks]; !seen {
			whole[ks] = true
		}
		if holding != nil && !holding[t] {
			empty = append(empty, t)
			whole[ks] = false
			continue
		}
		asked = append(asked, t)
	}
	return asked, empty, whole
}
