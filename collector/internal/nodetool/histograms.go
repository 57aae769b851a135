package nodetool

import (
	"bufio"
	"context"
	"fmt"
	"io"
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
	parse                    func(r io.Reader, keep func(table string) bool) (map[string]int64, error)
}

// outputPerTable bounds what a per-table nodetool command may print per
// requested table (tablestats -F json prints about 1.9 KB of it,
// tablehistograms about 1 KB), beyond maxOutput for the rest (system
// tables, warnings). The output is parsed as it comes, so the bound is on
// time and runaway output, not on memory.
const outputPerTable = 16 << 10

// tableCounts runs r once on the node and keeps the requested tables'
// counts ("ks.table", quoted or not, as model.TableKey keys), reading the
// output as it comes.
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
	var got map[string]int64
	limit := int64(maxOutput) + int64(outputPerTable)*int64(len(wanted))
	runErr, parseErr := runParsed(ctx, cfg.Command[0], append(append([]string{}, cfg.Command[1:]...), r.args(wanted)...), limit,
		func(out io.Reader) (err error) {
			got, err = r.parse(out, func(t string) bool { return wanted[t] })
			return err
		})
	if runErr != nil {
		return nil, fmt.Errorf("reading %s with nodetool %s: %w", r.reading, r.command, runErr)
	}
	if parseErr != nil {
		return nil, fmt.Errorf("parsing nodetool %s: %w", r.output, parseErr)
	}
	return got, nil
}

// ParseCellCounts reads every "ks/table histograms" block of tablehistograms
// output from r, line by line as it comes, and returns the Cell Count Max of
// each table keep accepts (nil: every table), keyed "ks.table". Blocks
// whose Max is NaN (no sstables) are left out.
func ParseCellCounts(r io.Reader, keep func(table string) bool) (map[string]int64, error) {
	res := map[string]int64{}
	table := ""
	blocks := 0
	head := &cappedBuffer{limit: 200} // for the message when there is no block
	sc := bufio.NewScanner(io.TeeReader(r, head))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if name, ok := strings.CutSuffix(line, " histograms"); ok && strings.Count(name, "/") == 1 {
			ks, tb, _ := strings.Cut(name, "/")
			table = model.TableKey(ks, tb)
			blocks++
			continue
		}
		fields := strings.Fields(line)
		if table == "" || len(fields) != 6 || fields[0] != "Max" {
			continue
		}
		if keep == nil || keep(table) {
			if err := storeCellCount(res, table, fields[5]); err != nil {
				return nil, err
			}
		}
		table = ""
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if blocks == 0 {
		return nil, fmt.Errorf("no \"keyspace/table histograms\" block in %q", truncate(strings.TrimSpace(head.String()), 200))
	}
	return res, nil
}

// storeCellCount stores a table's Cell Count Max as printed: NaN is left
// out, an overflowed histogram's Long.MAX_VALUE kept.
func storeCellCount(res map[string]int64, table, max string) error {
	v, err := strconv.ParseFloat(max, 64)
	if err != nil {
		return fmt.Errorf("%s: Cell Count Max %q is not a number", table, truncate(max, 40))
	}
	switch {
	case math.IsNaN(v):
	case v < 0:
		return fmt.Errorf("%s: negative Cell Count Max %s", table, max)
	case v >= math.MaxInt64:
		res[table] = math.MaxInt64
	default:
		res[table] = int64(v)
	}
	return nil
}
