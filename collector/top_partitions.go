package collector

import (
	"context"
	"fmt"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
)

// topPartitionsSource reads Cassandra's system.top_partitions (4.1+): the
// largest and most tombstone-heavy keys per table, filled only by full or
// validating repairs (docs/sources.md, system.top_partitions).
type topPartitionsSource struct{}

func (topPartitionsSource) Name() string { return "top_partitions" }
func (topPartitionsSource) Scope() Scope { return NodeScope }
func (topPartitionsSource) Facts() Facts {
	return Facts{Reads: "system.top_partitions",
		Gate:     cassandraOnly("4.1", "system.top_partitions", "system.large_partitions"),
		Schedule: everyTenMinutes, Grants: []string{ksSystem}}
}

const topPartitionsQuery = "SELECT keyspace_name, table_name, top_type, top, last_update FROM system.top_partitions"

func (topPartitionsSource) Collect(ctx context.Context, in Input, out *Output) (int, error) {
	n, err := cql.SelectAll(ctx, in.Q, topPartitionsQuery, nil, func(row *cql.Decoder) error {
		ks, tbl := tableOf(row)
		typ, top, last := row.String("top_type"), row.OptKeyCounts("top"), row.OptTime("last_update")
		for _, kc := range top {
			out.Node.TopPartitions = append(out.Node.TopPartitions, model.TopPartition{
				Keyspace: ks, Table: tbl, Type: typ, Key: kc.Key, Value: kc.Value, LastUpdate: last,
			})
		}
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("reading system.top_partitions on %s: %w", in.Address, err)
	}
	return n, nil
}
