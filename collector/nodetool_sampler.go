package collector

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/partmon/partmon/collector/internal/cqlname"
	"github.com/partmon/partmon/model"
)

// Cassandra's hot-key samplers are reachable only over JMX (no virtual table
// exposes them, research/cql_sources.md §6), so partmon runs the real
// `nodetool profileload` and parses what it prints. Output format: Cassandra
// 5.0 tools/nodetool/ProfileLoad.java, metrics/SamplingManager.java
// (ResultBuilder) and metrics/Sampler.java (SamplerType); real outputs are in
// testdata/nodetool/.

// NodetoolSamplerConfig says how to run the sampler against one node.
type NodetoolSamplerConfig struct {
	// Command is nodetool with its connection options, before the
	// subcommand: ["nodetool", "-h", "127.0.0.1", "-p", "7199"] or, for the
	// local dev cluster, ["deploy/local/cluster", "nodetool", "1"].
	Command []string `yaml:"command"`
	// Duration is the sampling window of each table (default 10s).
	Duration time.Duration `yaml:"duration"`
	// Capacity is the size of Cassandra's stream summary (-s, default 256,
	// at most 1024); higher is more accurate and costs the node more memory.
	Capacity int `yaml:"capacity"`
	// TopK is how many keys to list per sampler (-k, default 10, below Capacity).
	TopK int `yaml:"top_k"`
	// Samplers are READS and/or WRITES (-a, default both).
	Samplers []string `yaml:"samplers"`
	// Parallel is how many tables are sampled at once, each by its own
	// nodetool JVM (default 1).
	Parallel int `yaml:"parallel"`
}

const (
	defaultSamplerDuration = 10 * time.Second
	defaultSamplerCapacity = 256
	defaultSamplerTopK     = 10
	maxSamplerCapacity     = 1024 // ProfileLoad: "Capacity (-s) cannot exceed 1024."
	maxSamplerParallel     = 8
	maxNodetoolOutput      = 4 << 20
	// nodetoolGrace is what a nodetool run needs beyond its sampling window
	// (JVM start, JMX connect); a deadline closer than that cannot succeed.
	nodetoolGrace = 2 * time.Second
	// nodetoolKillWait bounds the wait for output pipes after the process
	// group was killed.
	nodetoolKillWait = 2 * time.Second
)

// samplerOps maps the samplers partmon reads to HotPartition.Op.
var samplerOps = map[string]string{"READS": "read", "WRITES": "write"}

// WithDefaults returns the config with zero fields set to their defaults.
func (c NodetoolSamplerConfig) WithDefaults() NodetoolSamplerConfig {
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
	return c
}

// Validate checks the config as nodetool profileload would, so a bad value
// fails before a JVM is started.
func (c NodetoolSamplerConfig) Validate() error {
	if len(c.Command) == 0 || c.Command[0] == "" {
		return errors.New("nodetool sampler: command is empty")
	}
	if c.Duration < time.Millisecond || c.Duration.Milliseconds() > 1<<31-1 {
		return fmt.Errorf("nodetool sampler: duration %s must be between 1ms and 2^31-1 ms", c.Duration)
	}
	if c.Capacity < 2 || c.Capacity > maxSamplerCapacity {
		return fmt.Errorf("nodetool sampler: capacity %d must be between 2 and %d", c.Capacity, maxSamplerCapacity)
	}
	if c.TopK < 1 || c.TopK >= c.Capacity {
		return fmt.Errorf("nodetool sampler: top_k %d must be positive and below capacity %d", c.TopK, c.Capacity)
	}
	if len(c.Samplers) == 0 {
		return errors.New("nodetool sampler: no samplers")
	}
	for _, s := range c.Samplers {
		if _, ok := samplerOps[strings.ToUpper(strings.TrimSpace(s))]; !ok {
			return fmt.Errorf("nodetool sampler: sampler %q is not READS or WRITES", s)
		}
	}
	if c.Parallel < 1 || c.Parallel > maxSamplerParallel {
		return fmt.Errorf("nodetool sampler: parallel %d must be between 1 and %d", c.Parallel, maxSamplerParallel)
	}
	return nil
}

// RunNodetoolSampler samples each table ("ks.table") for cfg.Duration with
// `nodetool profileload` on the node cfg.Command reaches and returns the top
// keys of every requested sampler. Each table is one nodetool run, so a call
// lasts about ⌈tables / Parallel⌉ × (Duration + JVM start). ctx bounds it: a
// run still going when ctx ends has its whole process group killed. Tables
// that fail are reported in the joined error next to the others' results.
func RunNodetoolSampler(ctx context.Context, cfg NodetoolSamplerConfig, tables []string) ([]model.HotPartition, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	samplers := make([]string, len(cfg.Samplers))
	for i, s := range cfg.Samplers {
		samplers[i] = strings.ToUpper(strings.TrimSpace(s))
	}
	type job struct{ keyspace, table string }
	var jobs []job
	seen := map[string]bool{}
	for _, t := range tables {
		ks, tb, err := cqlname.SplitTable(t)
		if err != nil {
			return nil, fmt.Errorf("nodetool sampler: %w", err)
		}
		if !seen[t] {
			seen[t] = true
			jobs = append(jobs, job{ks, tb})
		}
	}
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < cfg.Duration+nodetoolGrace {
		return nil, fmt.Errorf("nodetool sampler: context deadline is %s away, not enough for a %s sample: %w",
			time.Until(deadline).Round(time.Millisecond), cfg.Duration, context.DeadlineExceeded)
	}

	type result struct {
		hot []model.HotPartition
		err error
	}
	results := make([]result, len(jobs))
	sem := make(chan struct{}, cfg.Parallel)
	done := make(chan struct{})
	for i, j := range jobs {
		go func() {
			sem <- struct{}{}
			defer func() { <-sem; done <- struct{}{} }()
			hot, err := profileTable(ctx, cfg, samplers, j.keyspace, j.table)
			results[i] = result{hot, err}
		}()
	}
	for range jobs {
		<-done
	}
	var all []model.HotPartition
	var errs []error
	for _, r := range results {
		all = append(all, r.hot...)
		if r.err != nil {
			errs = append(errs, r.err)
		}
	}
	return all, errors.Join(errs...)
}

// profileTable runs one `profileload <ks> <table> <ms> -s C -k K -a S` and parses it.
func profileTable(ctx context.Context, cfg NodetoolSamplerConfig, samplers []string, keyspace, table string) ([]model.HotPartition, error) {
	args := append(append([]string{}, cfg.Command[1:]...),
		"profileload", keyspace, table, strconv.FormatInt(cfg.Duration.Milliseconds(), 10),
		"-s", strconv.Itoa(cfg.Capacity), "-k", strconv.Itoa(cfg.TopK), "-a", strings.Join(samplers, ","))
	out, err := runBounded(ctx, cfg.Command[0], args)
	if err != nil && strings.Contains(err.Error(), "ColumnFamilyStore for "+keyspace+"/"+table+" not found") {
		return nil, nil // dropped since the schema was read: nothing to sample, nothing wrong
	}
	if err != nil {
		return nil, fmt.Errorf("sampling %s.%s with nodetool profileload: %w", keyspace, table, err)
	}
	hot, got, err := parseProfileload(out)
	if err != nil {
		return nil, fmt.Errorf("parsing nodetool profileload output for %s.%s: %w", keyspace, table, err)
	}
	for _, s := range samplers {
		if !got[samplerOps[s]] {
			return nil, fmt.Errorf("nodetool profileload output for %s.%s has no %s section", keyspace, table, s)
		}
	}
	var mine []model.HotPartition
	for _, h := range hot {
		// Cassandra names the table keyspace.table; keep only the one asked for.
		if h.Keyspace == keyspace && h.Table == table {
			h.Window = cfg.Duration.Seconds()
			mine = append(mine, h)
		}
	}
	return mine, nil
}

// runBounded runs name args in its own process group and kills the whole
// group (a wrapper script and its JVM) when ctx ends.
func runBounded(ctx context.Context, name string, args []string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = nodetoolKillWait
	stdout := &cappedBuffer{limit: maxNodetoolOutput}
	stderr := &cappedBuffer{limit: 64 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Run()
	if ctxErr := ctx.Err(); ctxErr != nil {
		return "", fmt.Errorf("%s killed: %w", name, ctxErr)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w: %s", name, err, excerpt(stderr.String(), stdout.String()))
	}
	if stdout.overflow {
		return "", fmt.Errorf("%s printed more than %d bytes", name, maxNodetoolOutput)
	}
	return stdout.String(), nil
}

// excerpt picks the most telling output of a failed run: nodetool prints
// argument errors on stderr and some JMX errors on stdout.
func excerpt(stderr, stdout string) string {
	s := strings.TrimSpace(stderr)
	if s == "" {
		s = strings.TrimSpace(stdout)
	}
	if s == "" {
		return "(no output)"
	}
	return truncate(s, 512)
}

// cappedBuffer keeps the first limit bytes and drops the rest, so a runaway
// child cannot exhaust memory; Write never fails, so the child never blocks.
type cappedBuffer struct {
	buf      bytes.Buffer
	limit    int
	overflow bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.limit - b.buf.Len(); room < len(p) {
		b.overflow = true
		b.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	b.buf.Write(p)
	return len(p), nil
}

func (b *cappedBuffer) String() string { return b.buf.String() }

// profileloadSectionOps maps the section titles of the frequency samplers
// (Sampler.SamplerType descriptions) to HotPartition.Op.
var profileloadSectionOps = map[string]string{
	"Frequency of reads by partition":  "read",
	"Frequency of writes by partition": "write",
}

const profileloadNothing = "Nothing recorded during sampling period..."

// ParseProfileload parses the output of `nodetool profileload` (Cassandra
// 4.0–5.0). Each sampler prints a title line ending in ":" and then either
// "Nothing recorded during sampling period..." or a table whose header is
// "Table Partition Count +/-" and whose rows are
// "<keyspace.table> <partition key> <count> <error>", columns padded with
// spaces. Only the READS and WRITES sections are returned; other samplers'
// sections are skipped. The key is the text between the table and the two
// numbers, so keys with inner spaces survive (leading or trailing spaces of a
// key do not). Total is the sum of the listed counts of that table and
// operation, because profileload prints no cardinality: with TopK close to
// Capacity it approaches the operations the sampler saw (space-saving keeps
// Σcount equal to that), with a small TopK it is a lower bound.
func ParseProfileload(out string) ([]model.HotPartition, error) {
	hot, _, err := parseProfileload(out)
	return hot, err
}

// parseProfileload also says which ops had a section, even an empty one.
func parseProfileload(out string) ([]model.HotPartition, map[string]bool, error) {
	lines := strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n")
	var hot []model.HotPartition
	sections := 0
	seen := map[string]bool{}
	op := ""         // the op of the current frequency section; "" inside another sampler's section
	inOther := false // inside a section partmon does not read
	header := false  // the current section's header line was seen
	for n, line := range lines {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			continue
		}
		// Section titles start at column 0 and end in ':'; table lines are indented.
		if line[0] != ' ' && line[0] != '\t' && strings.HasSuffix(trimmed, ":") {
			title := strings.TrimSuffix(trimmed, ":")
			sections++
			op = profileloadSectionOps[title]
			inOther = op == ""
			if !inOther {
				seen[op] = true
			}
			header = false
			continue
		}
		if op == "" && !inOther {
			return nil, nil, fmt.Errorf("line %d: %q is outside any sampler section", n+1, truncate(trimmed, 120))
		}
		if inOther || trimmed == profileloadNothing {
			continue
		}
		fields := strings.Fields(trimmed)
		if !header {
			if len(fields) != 4 || fields[0] != "Table" || fields[1] != "Partition" || fields[2] != "Count" || fields[3] != "+/-" {
				return nil, nil, fmt.Errorf("line %d: %q is not the Table Partition Count +/- header", n+1, truncate(trimmed, 120))
			}
			header = true
			continue
		}
		h, err := parseProfileloadRow(trimmed, fields)
		if err != nil {
			return nil, nil, fmt.Errorf("line %d: %w", n+1, err)
		}
		h.Op = op
		hot = append(hot, h)
	}
	if sections == 0 {
		return nil, nil, errors.New("no sampler section in the output")
	}
	totals := map[string]int64{}
	for _, h := range hot {
		id := h.Op + " " + model.TableKey(h.Keyspace, h.Table)
		if totals[id] > 1<<63-1-h.Count {
			return nil, nil, fmt.Errorf("%s counts of %s overflow int64", h.Op, model.TableKey(h.Keyspace, h.Table))
		}
		totals[id] += h.Count
	}
	for i := range hot {
		hot[i].Total = totals[hot[i].Op+" "+model.TableKey(hot[i].Keyspace, hot[i].Table)]
	}
	return hot, seen, nil
}

// parseProfileloadRow reads "<ks.table> <key…> <count> <error>".
func parseProfileloadRow(line string, fields []string) (model.HotPartition, error) {
	if len(fields) < 4 {
		return model.HotPartition{}, fmt.Errorf("%q has %d columns, want table, partition, count and +/-", truncate(line, 120), len(fields))
	}
	ks, table, err := cqlname.SplitTable(fields[0])
	if err != nil {
		return model.HotPartition{}, err
	}
	count, err := strconv.ParseInt(fields[len(fields)-2], 10, 64)
	if err != nil || count < 0 {
		return model.HotPartition{}, fmt.Errorf("count %q is not a non-negative integer", fields[len(fields)-2])
	}
	errBound, err := strconv.ParseInt(fields[len(fields)-1], 10, 64)
	if err != nil || errBound < 0 {
		return model.HotPartition{}, fmt.Errorf("+/- %q is not a non-negative integer", fields[len(fields)-1])
	}
	// The key is what lies between the table column and the count column.
	key := strings.TrimSpace(strings.TrimPrefix(line, fields[0]))
	key = strings.TrimSpace(strings.TrimSuffix(key, fields[len(fields)-1]))
	key = strings.TrimSpace(strings.TrimSuffix(key, fields[len(fields)-2]))
	return model.HotPartition{Keyspace: ks, Table: table, Key: key, Count: count, Error: errBound, Source: "nodetool"}, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
