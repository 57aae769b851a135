package collector

import (
	"context"
	"fmt"
	"time"

	"github.com/partmon/partmon/collector/internal/scyllarest"
)

// scyllaTopPartitionsSource samples the node's hottest keys through
// /storage_service/toppartitions/ (the call blocks for the sample window).
type scyllaTopPartitionsSource struct {
	rest     *scyllarest.Clients
	window   time.Duration // collector.scylla_rest.sample_duration
	listSize int           // collector.scylla_rest.list_size
}

func (scyllaTopPartitionsSource) Name() string { return "scylla_top_partitions" }
func (scyllaTopPartitionsSource) Scope() Scope { return NodeScope }
func (s scyllaTopPartitionsSource) Facts() Facts {
	return Facts{Reads: "REST /storage_service/toppartitions/", Help: "REST `/storage_service/toppartitions/`",
		Gate: Gate{ScyllaDB: true}, Schedule: everyFiveMinutes, Timeout: s.window + 30*time.Second,
		Sampler: true, Window: s.window, WindowKey: "collector.scylla_rest.sample_duration"}
}

func (s scyllaTopPartitionsSource) Collect(ctx context.Context, in Input, out *Output) (int, error) {
	tables, err := userTables(in.Schema)
	if err != nil || len(tables) == 0 {
		return 0, err
	}
	hot, err := s.rest.For(in.Address).TopPartitions(ctx, tables, s.window, s.listSize)
	if err != nil {
		return 0, fmt.Errorf("sampling top partitions on %s: %w", in.Address, err)
	}
	out.Node.HotPartitions = hot
	return len(hot), nil
}
