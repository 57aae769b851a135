package collector

import (
	"context"
	"fmt"
	"time"

	"github.com/partmon/partmon/collector/internal/nodetool"
	"github.com/partmon/partmon/model"
)

// NodetoolSamplerConfig is collector.nodetool_sampler: how to run
// `nodetool profileload` against a node (see nodetool.SamplerConfig).
type NodetoolSamplerConfig = nodetool.SamplerConfig

// nodetoolSamplerTimeout is the default bound of one node's sampler pass:
// one nodetool JVM start and JMX session (1–2 s idle, up to ~15 s on a
// loaded 2-core box), the window (10 s by default) and the JMX call that
// gathers every table's sampler. It does not grow with the table count.
const nodetoolSamplerTimeout = 2 * time.Minute

// nodetoolSource samples Cassandra's hottest keys with `nodetool profileload`
// (JMX only: no CQL table exposes the samplers), every table of the node in
// one run. Enabled when a command is configured.
type nodetoolSource struct{ cfg NodetoolSamplerConfig }

func (nodetoolSource) Name() string { return "nodetool_sampler" }
func (nodetoolSource) Scope() Scope { return NodeScope }

func (s nodetoolSource) Collect(ctx context.Context, in Input, out *Output) (int, error) {
	if in.Caps != nil && in.Caps.Engine == model.EngineScyllaDB {
		return 0, fmt.Errorf("%w: nodetool profileload is Cassandra's; ScyllaDB uses the REST toppartitions source", ErrUnsupported)
	}
	if !s.cfg.Configured() {
		return 0, fmt.Errorf("%w: collector.nodetool_sampler.command is not set", ErrUnsupported)
	}
	if !s.cfg.TargetsEveryNode() && !in.Own {
		return 0, fmt.Errorf("%w: collector.nodetool_sampler.command has no %s placeholder, so it samples only the first host", ErrUnsupported, nodetool.AddressPlaceholder)
	}
	tables, err := userTables(in.Schema)
	if err != nil || len(tables) == 0 {
		return 0, err
	}
	hot, err := nodetool.Sample(ctx, s.cfg.ForAddress(in.Address), tables)
	out.Node.HotPartitions = hot
	if err != nil {
		return len(hot), fmt.Errorf("sampling hot partitions on %s: %w", in.Address, err)
	}
	return len(hot), nil
}
