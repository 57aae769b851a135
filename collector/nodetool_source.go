package collector

import (
	"context"
	"fmt"
	"github.com/partmon/partmon/model"
	"strings"
	"time"
)

// nodetoolAddressPlaceholder in collector.nodetool_sampler.command is
// replaced by the address of the node being sampled, so one command line
// serves every node in cluster mode (e.g. ["nodetool", "-h", "{address}"]).
const nodetoolAddressPlaceholder = "{address}"

// nodetoolSource samples Cassandra's hottest keys with `nodetool profileload`
// (JMX only: no CQL table exposes the samplers). Enabled when a command is
// configured.
type nodetoolSource struct{ cfg NodetoolSamplerConfig }

func (nodetoolSource) Name() string { return "nodetool_sampler" }
func (nodetoolSource) Scope() Scope { return NodeScope }

func (s nodetoolSource) Collect(ctx context.Context, in Input, out *Output) (int, error) {
	if in.Caps != nil && in.Caps.Engine == model.EngineScyllaDB {
		return 0, fmt.Errorf("%w: nodetool profileload is Cassandra's; ScyllaDB uses the REST toppartitions source", ErrUnsupported)
	}
	if !s.cfg.configured() {
		return 0, fmt.Errorf("%w: collector.nodetool_sampler.command is not set", ErrUnsupported)
	}
	if !s.cfg.targetsEveryNode() && !in.Own {
		return 0, fmt.Errorf("%w: collector.nodetool_sampler.command has no %s placeholder, so it samples only the first host", ErrUnsupported, nodetoolAddressPlaceholder)
	}
	tables, err := userTables(in.Schema)
	if err != nil || len(tables) == 0 {
		return 0, err
	}
	cfg := s.cfg
	cfg.Command = make([]string, len(s.cfg.Command))
	for i, a := range s.cfg.Command {
		cfg.Command[i] = strings.ReplaceAll(a, nodetoolAddressPlaceholder, in.Address)
	}
	hot, err := RunNodetoolSampler(ctx, cfg, tables)
	out.Node.HotPartitions = hot
	if err != nil {
		return len(hot), fmt.Errorf("sampling hot partitions on %s: %w", in.Address, err)
	}
	return len(hot), nil
}

func (c NodetoolSamplerConfig) configured() bool { return len(c.Command) > 0 }

// targetsEveryNode says whether the command names the node; without the
// placeholder it can only reach one node, the first host.
func (c NodetoolSamplerConfig) targetsEveryNode() bool {
	for _, a := range c.Command {
		if strings.Contains(a, nodetoolAddressPlaceholder) {
			return true
		}
	}
	return false
}

// runTimeout is the default timeout of one sampler run: every user table is
// one nodetool JVM sampling for Duration, Parallel at a time.
func (c NodetoolSamplerConfig) runTimeout() time.Duration {
	return 10 * time.Minute
}

func (c Config) validateNodetool() []error {
	var errs []error
	enabled := c.NodetoolSampler.configured()
	if sc, ok := c.Sources["nodetool_sampler"]; ok && sc.Enabled != nil {
		enabled = *sc.Enabled
	}
	if enabled && !c.NodetoolSampler.configured() {
		errs = append(errs, fmt.Errorf("collector.sources.nodetool_sampler: enabled but collector.nodetool_sampler.command is empty"))
	}
	if c.NodetoolSampler.configured() {
		if err := c.NodetoolSampler.WithDefaults().Validate(); err != nil {
			errs = append(errs, fmt.Errorf("collector.nodetool_sampler: %w", err))
		}
	}
	return errs
}
