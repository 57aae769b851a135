package nodetool

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/partmon/partmon/collector/internal/cqlname"
	"github.com/partmon/partmon/model"
)

// Sample samples every table of the node cfg.Command reaches in one
// `nodetool profileload` run (a duration and no table: Cassandra 4.0–5.0
// start a sampler on every table, wait, and merge them) and returns the top
// keys of the requested tables ("ks.table"). A call costs one JVM start, one
// JMX session and one sampling window, whatever the table count. ctx bounds
// it: a run still going when ctx ends has its whole process group killed.
//
// Cassandra merges the tables' lists and keeps the Capacity−1 highest counts
// of the node per sampler (StorageService.samplePartitions). When it
// listed fewer, nothing was cut and Total is the sum of the table's listed
// counts, as for one table; when the list is full, a table's keys below the
// cut are missing, so Total is 0 (unknown) and the analyzer takes the
// table's operation rate over the window instead.
func Sample(ctx context.Context, cfg SamplerConfig, tables []string) ([]model.HotPartition, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("nodetool sampler: %w", err)
	}
	samplers := make([]string, len(cfg.Samplers))
	for i, s := range cfg.Samplers {
		samplers[i] = strings.ToUpper(strings.TrimSpace(s))
	}
	wanted, err := tableSet(tables)
	if err != nil {
		return nil, fmt.Errorf("nodetool sampler: %w", err)
	}
	if len(wanted) == 0 {
		return nil, nil
	}
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < cfg.Duration+startGrace {
		return nil, fmt.Errorf("nodetool sampler: context deadline is %s away, not enough for a %s sample: %w",
			time.Until(deadline).Round(time.Millisecond), cfg.Duration, context.DeadlineExceeded)
	}
	listed := cfg.Capacity - 1 // -k: the most nodetool allows, so that the merged list is cut as late as possible
	args := append(append([]string{}, cfg.Command[1:]...),
		"profileload", strconv.FormatInt(cfg.Duration.Milliseconds(), 10),
		"-s", strconv.Itoa(cfg.Capacity), "-k", strconv.Itoa(listed), "-a", strings.Join(samplers, ","))
	// Busy: another client's window is usually as long as partmon's own;
	// wait one window and try again while the source's timeout allows.
	out, err := sampleWhileBusy(ctx, cfg.Duration, cfg.Duration+startGrace, func() (string, error) {
		return runBounded(ctx, cfg.Command[0], args)
	})
	if errors.Is(err, ErrBusy) {
		return nil, fmt.Errorf("nodetool profileload: the node's sampler is busy (another nodetool profileload or toppartitions, "+
			"a scheduled profileload --interval job, or a JMX call that did not answer); Cassandra samples a table once at a time, partmon tries again on its next run: %w", err)
	}
	if err != nil {
		return nil, fmt.Errorf("sampling with nodetool profileload: %w", err)
	}
	hot, got, err := parseProfileload(out)
	if err != nil {
		return nil, fmt.Errorf("parsing nodetool profileload output: %w", err)
	}
	for _, s := range samplers {
		if !got[samplerOps[s]] {
			return nil, fmt.Errorf("nodetool profileload output has no %s section", s)
		}
	}
	return keep(hot, wanted, listed, cfg), nil
}

// tableSet is the tables ("ks.table", quoted or not) as model.TableKey keys.
func tableSet(tables []string) (map[string]bool, error) {
	set := map[string]bool{}
	for _, t := range tables {
		ks, tb, err := cqlname.SplitTable(t)
		if err != nil {
			return nil, err
		}
		set[model.TableKey(ks, tb)] = true
	}
	return set, nil
}

// keep returns the entries of the wanted tables, at most cfg.TopK per table
// and operation (the output is sorted by count), with Total cleared where
// the node's merged list was cut (it holds `listed` entries).
func keep(hot []model.HotPartition, wanted map[string]bool, listed int, cfg SamplerConfig) []model.HotPartition {
	rowsPerOp := map[string]int{}
	for _, h := range hot {
		rowsPerOp[h.Op]++
	}
	perTable := map[string]int{}
	var out []model.HotPartition
	for _, h := range hot {
		table := model.TableKey(h.Keyspace, h.Table)
		if !wanted[table] {
			continue // system tables, and tables created since the schema was read
		}
		if perTable[h.Op+" "+table]++; perTable[h.Op+" "+table] > cfg.TopK {
			continue
		}
		if rowsPerOp[h.Op] >= listed {
			h.Total = 0
		}
		h.Window = cfg.Duration.Seconds()
		out = append(out, h)
	}
	return out
}
