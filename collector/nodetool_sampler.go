package collector

import (
	"context"
	"fmt"
	"time"

	"github.com/partmon/partmon/collector/internal/nodetool"
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
func (s nodetoolSource) Facts() Facts {
	return Facts{Reads: "nodetool profileload", Help: "`nodetool profileload` (JMX)",
		Gate:     cassandraOnly(oldestCassandra, "", "the scylla_top_partitions source samples hot keys"),
		Schedule: everyTenMinutes, Timeout: nodetoolSamplerTimeout,
		OffUnless: nodetoolCommandKey, configured: s.cfg.Configured(), Nodetool: true, Sampler: true}
}

// nodetoolCommandKey is the config key the nodetool sources need.
const nodetoolCommandKey = "collector.nodetool_sampler.command"

func (s nodetoolSource) Collect(ctx context.Context, in Input, out *Output) (int, error) {
	if err := nodetoolReaches(s.cfg, in); err != nil {
		return 0, err
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

// nodetoolReaches checks the config of the sources that run the nodetool
// command: they need the command, and reach another node than the first
// host only through its {address}.
func nodetoolReaches(cfg NodetoolSamplerConfig, in Input) error {
	if !cfg.Configured() {
		return fmt.Errorf("%w: collector.nodetool_sampler.command is not set", ErrUnsupported)
	}
	if !cfg.TargetsEveryNode() && !in.Own {
		return fmt.Errorf("%w: collector.nodetool_sampler.command has no %s placeholder, so it reaches only the first host", ErrUnsupported, nodetool.AddressPlaceholder)
	}
	return nil
}
