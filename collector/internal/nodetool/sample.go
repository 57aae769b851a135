package nodetool

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

// Sample samples each table ("ks.table") for cfg.Duration with
// `nodetool profileload` on the node cfg.Command reaches and returns the top
// keys of every requested sampler. Each table is one nodetool run, so a call
// lasts about ⌈tables / Parallel⌉ × (Duration + JVM start). ctx bounds it: a
// run still going when ctx ends has its whole process group killed. Tables
// that fail are reported in the joined error next to the others' results.
func Sample(ctx context.Context, cfg SamplerConfig, tables []string) ([]model.HotPartition, error) {
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
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < cfg.Duration+startGrace {
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
func profileTable(ctx context.Context, cfg SamplerConfig, samplers []string, keyspace, table string) ([]model.HotPartition, error) {
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
	cmd.WaitDelay = killWait
	stdout := &cappedBuffer{limit: maxOutput}
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
		return "", fmt.Errorf("%s printed more than %d bytes", name, maxOutput)
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
