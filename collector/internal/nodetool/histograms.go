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

// HistogramMax is one table's two per-partition maxima in `nodetool
// tablehistograms`, each the upper bound of the highest non-empty bucket of
// a histogram TableMetrics merges from the table's sstables.
type HistogramMax struct {
	// Cells: "Cell Count" Max (EstimatedColumnCountHistogram): the most
	// cells one sstable wrote for one partition (MetadataCollector counts
	// every cell a partition's rows and static row write, live or dead).
	Cells int64
	// PartitionBytes: "Partition Size" Max (EstimatedPartitionSizeHistogram)
	// in bytes: the largest partition fragment one sstable wrote, the
	// figure system_views.max_partition_size rounds up to whole MiB.
	PartitionBytes int64
}

// CellCounts runs `nodetool tablehistograms` with no table (every table of
// the node in one JVM; tools/nodetool/TableHistograms.java) and returns, for
// the requested tables ("ks.table"), their HistogramMax. A table without
// sstables prints NaN and is left out; an overflowed histogram prints
// Long.MAX_VALUE, kept as it is.
//
// Callers must not run it on Cassandra before 5.0: there, with no table
// argument, TableHistograms iterates the keyspace multiset and prints each
// table of a keyspace once per table of that keyspace (fixed in 5.0 by
// iterating keys().elementSet()).
func CellCounts(ctx context.Context, cfg SamplerConfig, tables []string) (map[string]HistogramMax, error) {
	return tableCounts(ctx, cfg, tables, tableCountRun[HistogramMax]{
		command: "tablehistograms", output: "tablehistograms output", reading: "cells per partition",
		args:  func(map[string]bool) []string { return []string{"tablehistograms"} },
		parse: ParseCellCounts,
	})
}

// tableCountRun is one nodetool command that prints a count (or counts,
// V) per table.
type tableCountRun[V any] struct {
	command, output, reading string // for messages
	args                     func(wanted map[string]bool) []string
	parse                    func(r io.Reader, keep func(table string) bool) (map[string]V, error)
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
func tableCounts[V any](ctx context.Context, cfg SamplerConfig, tables []string, r tableCountRun[V]) (map[string]V, error) {
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
	var got map[string]V
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
// output from r, line by line as it comes, and returns the HistogramMax of
// each table keep accepts (nil: every table), keyed "ks.table". Blocks
// whose Cell Count Max is NaN (no sstables) are left out.
func ParseCellCounts(r io.Reader, keep func(table string) bool) (map[string]HistogramMax, error) {
	res := map[string]HistogramMax{}
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
			cells, ok, err := histogramMax(table, "Cell Count", fields[5])
			if err != nil {
				return nil, err
			}
			if ok {
				bytes, _, err := histogramMax(table, "Partition Size", fields[4])
				if err != nil {
					return nil, err
				}
				res[table] = HistogramMax{Cells: cells, PartitionBytes: bytes}
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

// histogramMax reads one Max column; ok is false for NaN (no sstables).
func histogramMax(table, column, field string) (v int64, ok bool, err error) {
	f, err := strconv.ParseFloat(field, 64)
	switch {
	case err != nil:
		return 0, false, fmt.Errorf("%s: %s Max %q is not a number", table, column, truncate(field, 40))
	case math.IsNaN(f):
		return 0, false, nil
	case f < 0:
		return 0, false, fmt.Errorf("%s: negative %s Max %s", table, column, field)
	case f >= math.MaxInt64:
		return math.MaxInt64, true, nil
	}
	return int64(f), true, nil
}
