// Package nodetool runs Cassandra's `nodetool profileload` and parses what
// it prints. Cassandra's hot-key samplers are reachable only over JMX: no
// virtual table exposes them (docs/sources.md, hot keys). One run samples
// every table of a node: Cassandra 4.0–5.0 tools/nodetool/ProfileLoad.java
// with only a duration calls service/StorageService.samplePartitions. Output
// format: metrics/SamplingManager.java (ResultBuilder, 5.0; ProfileLoad's own
// in 4.x) and metrics/Sampler.java (SamplerType); real outputs of 5.0.8,
// 4.1.10 and 4.0.19 are in testdata/.
package nodetool

import (
	"fmt"
	"strings"
	"time"

	"github.com/partmon/partmon/internal/configerr"
)

// SamplerConfig says how to run the sampler against one node.
type SamplerConfig struct {
	// Command is nodetool with its connection options, before the
	// subcommand: ["nodetool", "-h", "127.0.0.1", "-p", "7199"] or, for the
	// local dev cluster, ["deploy/local/cluster", "nodetool", "1"].
	Command []string `yaml:"command"`
	// Duration is the sampling window of the node's one run (default 10s).
	Duration time.Duration `yaml:"duration"`
	// Capacity is the size of Cassandra's stream summary per table and
	// sampler (-s, default 256, at most 1024); higher is more accurate and
	// costs the node more heap while it samples. nodetool lists the
	// Capacity−1 highest counts of the node (-k).
	Capacity int `yaml:"capacity"`
	// TopK is how many keys partmon keeps per table and sampler from that
	// list (default 10, below Capacity).
	TopK int `yaml:"top_k"`
	// Samplers are READS and/or WRITES (-a, default both).
	Samplers []string `yaml:"samplers"`
	// Parallel has no effect: one nodetool run samples every table of a
	// node. It was the number of per-table runs at once and is still
	// accepted (and checked) so that existing files load.
	Parallel int `yaml:"parallel"`
	// MaxConcurrentRuns bounds the nodetool commands (each a JVM) partmon
	// runs at once, over every node and every source that runs this
	// command (default 2, at most 64).
	MaxConcurrentRuns int `yaml:"max_concurrent_runs"`
}

const (
	defaultSamplerDuration = 10 * time.Second
	defaultSamplerCapacity = 256
	defaultSamplerTopK     = 10
	maxSamplerCapacity     = 1024 // ProfileLoad: "Capacity (-s) cannot exceed 1024."
	maxSamplerParallel     = 8
	defaultMaxRuns         = 2
	maxMaxRuns             = 64
	maxOutput              = 4 << 20
	// startGrace is what a nodetool run needs beyond its sampling window
	// (JVM start, JMX connect); a deadline closer than that cannot succeed.
	startGrace = 2 * time.Second
	// killWait bounds the wait for output pipes after the process
	// group was killed.
	killWait = 2 * time.Second
)

// samplerOps maps the samplers partmon reads to HotPartition.Op.
var samplerOps = map[string]string{"READS": "read", "WRITES": "write"}

// WithDefaults returns the config with zero fields set to their defaults.
func (c SamplerConfig) WithDefaults() SamplerConfig {
	if c.Duration == 0 {
		c.Duration = defaultSamplerDuration
	}
	if c.Capacity == 0 {
		c.Capacity = defaultSamplerCapacity
	}
	if c.TopK == 0 {
		c.TopK = min(defaultSamplerTopK, c.Capacity-1)
	}
	if len(c.Samplers) == 0 {
		c.Samplers = []string{"READS", "WRITES"}
	}
	if c.Parallel == 0 {
		c.Parallel = 1
	}
	if c.MaxConcurrentRuns == 0 {
		c.MaxConcurrentRuns = defaultMaxRuns
	}
	return c
}

// Validate checks the config as nodetool profileload would, so a bad value
// fails before a JVM is started. Its first problem is a configerr.Field
// whose path is relative to the sampler's section.
func (c SamplerConfig) Validate() error {
	if len(c.Command) == 0 || c.Command[0] == "" {
		return configerr.Field("command", "empty: give nodetool and its connection options")
	}
	for _, a := range c.Command[1:] {
		// A password on nodetool's command line shows in ps and
		// /proc/PID/cmdline, of nodetool and of partmon's config.
		if a == "-pw" || a == "--password" || strings.HasPrefix(a, "--password=") {
			return configerr.Field("command", "gives the JMX password on the command line (-pw), visible in ps: use -pwf FILE (--password-file) instead")
		}
	}
	if c.Duration < time.Millisecond || c.Duration.Milliseconds() > 1<<31-1 {
		return configerr.Field("duration", "%s must be between 1ms and 2^31-1 ms", c.Duration)
	}
	if c.Capacity < 2 || c.Capacity > maxSamplerCapacity {
		return configerr.Field("capacity", "%d must be between 2 and %d", c.Capacity, maxSamplerCapacity)
	}
	if c.TopK < 1 || c.TopK >= c.Capacity {
		return configerr.Field("top_k", "%d must be positive and below capacity %d", c.TopK, c.Capacity)
	}
	if len(c.Samplers) == 0 {
		return configerr.Field("samplers", "none: give READS, WRITES or both")
	}
	for i, s := range c.Samplers {
		if _, ok := samplerOps[strings.ToUpper(strings.TrimSpace(s))]; !ok {
			return configerr.Field(fmt.Sprintf("samplers[%d]", i), "%q is not READS or WRITES", s)
		}
	}
	if c.Parallel < 1 || c.Parallel > maxSamplerParallel {
		return configerr.Field("parallel", "%d must be between 1 and %d", c.Parallel, maxSamplerParallel)
	}
	if c.MaxConcurrentRuns < 1 || c.MaxConcurrentRuns > maxMaxRuns {
		return configerr.Field("max_concurrent_runs", "%d must be between 1 and %d", c.MaxConcurrentRuns, maxMaxRuns)
	}
	return nil
}

// AddressPlaceholder in the command is replaced by the address of the node
// being sampled, so one command line serves every node in cluster mode
// (e.g. ["nodetool", "-h", "{address}"]).
const AddressPlaceholder = "{address}"

// Configured says whether a command is set; without one there is no sampler.
func (c SamplerConfig) Configured() bool { return len(c.Command) > 0 }

// TargetsEveryNode says whether the command names the node; without the
// placeholder it can only reach one node, the first host.
func (c SamplerConfig) TargetsEveryNode() bool {
	for _, a := range c.Command {
		if strings.Contains(a, AddressPlaceholder) {
			return true
		}
	}
	return false
}

// ForAddress is c with AddressPlaceholder replaced by address in every
// argument of the command.
func (c SamplerConfig) ForAddress(address string) SamplerConfig {
	cmd := make([]string, len(c.Command))
	for i, a := range c.Command {
		cmd[i] = strings.ReplaceAll(a, AddressPlaceholder, address)
	}
	c.Command = cmd
	return c
}
