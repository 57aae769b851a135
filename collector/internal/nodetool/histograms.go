package nodetool

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/partmon/partmon/model"
)

// CellCounts runs `nodetool tablehistograms` with no table (every table of
// the node in one JVM; tools/nodetool/TableHistograms.java) and returns, for
// the requested tables ("ks.table"), the "Cell Count" Max: the upper bound
// of the EstimatedColumnCountHistogram bucket holding the most cells one
// sstable wrote for one partition (MetadataCollector counts every cell a
// partition's rows and static row write, live or dead; TableMetrics merges
// the sstables' histograms). A table without sstables prints NaN and is left
// out; an overflowed histogram prints Long.MAX_VALUE, kept as it is.
//
// Callers must not run it on Cassandra before 5.0: there, with no table
// argument, TableHistograms iterates the keyspace multiset and prints each
// table of a keyspace once per table of that keyspace (fixed in 5.0 by
// iterating keys().elementSet()).
func CellCounts(ctx context.Context, cfg SamplerConfig, tables []string) (map[string]int64, error) {
	return tableCounts(ctx, cfg, tables, tableCountRun{
		command: "tablehistograms", output: "tablehistograms output", reading: "cells per partition",
		args:  func(map[string]bool) []string { return []string{"tablehistograms"} },
		parse: ParseCellCounts,
	})
}

// tableCountRun is one nodetool command that prints a count per table.
type tableCountRun struct {
	command, output, reading string // for messages
	args                     func(wanted map[string]bool) []string
	parse                    func(out string) (map[string]int64, error)
}

// tableCounts runs r once on the node and keeps the requested tables'
// counts ("ks.table", quoted or not, as model.TableKey keys).
func tableCounts(ctx context.Context, cfg SamplerConfig, tables []string, r tableCountRun) (map[string]int64, error) {
	if len(cfg.Command) == 0 || cfg.Command[0] == "" {
		return nil, fmt.Errorf("nodetool %s: command is empty", r.command)
	}
	wanted, err := tableSet(tables)
	if err != nil {
		return nil, fmt.Errorf("nodetool %s: %w", r.command, err)
	}
	if len(wanted) == 0 {
		return nil, nil
	}
	out, err := runBounded(ctx, cfg.Command[0], append(append([]string{}, cfg.Command[1:]...), r.args(wanted)...))
	if err != nil {
		return nil, fmt.Errorf("reading %s with nodetool %s: %w", r.reading, r.command, err)
	}
	all, err := r.parse(out)
	if err != nil {
		return nil, fmt.Errorf("parsing nodetool %s: %w", r.output, err)
	}
	got := map[string]int64{}
	for t, v := range all {
		if wanted[t] {
			got[t] = v
		}
	}
	return got, nil
}

// ParseCellCounts reads every "ks/table histograms" block of tablehistograms
// output and returns each table's Cell Count Max ("ks.table" keys). Blocks
// whose Max is NaN (no sstables) are left out.
func ParseCellCounts(out string) (map[string]int64, error) {
	res := map[string]int64{}
	table := ""
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if name, ok := strings.CutSuffix(line, " histograms"); ok && strings.Count(name, "/") == 1 {
			ks, tb, _ := strings.Cut(name, "/")
			table = model.TableKey(ks, tb)
			continue
		}
		fields := strings.Fields(line)
		if table == "" || len(fields) != 6 || fields[0] != "Max" {
			continue
		}
		v, err := strconv.ParseFloat(fields[5], 64)
		if err != nil {
			return nil, fmt.Errorf("%s: Cell Count Max %q is not a number", table, truncate(fields[5], 40))
		}
		switch {
		case math.IsNaN(v):
		case v < 0:
			return nil, fmt.Errorf("%s: negative Cell Count Max %s", table, fields[5])
		case v >= math.MaxInt64:
			res[table] = math.MaxInt64
		default:
			res[table] = int64(v)
		}
		table = ""
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(res) == 0 && !strings.Contains(out, " histograms") {
		return nil, fmt.Errorf("no \"keyspace/table histograms\" block in %q", truncate(strings.TrimSpace(out), 200))
	}
	return res, nil
}
