package nodetool

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/partmon/partmon/model"
)

// DistinctPartitions runs `nodetool tablestats -F json` on the requested
// tables ("ks.table") and returns each table's "Number of partitions
// (estimate)": the EstimatedPartitionCount gauge (metrics/TableMetrics.java,
// 4.0–5.0), i.e. the HyperLogLog++ (p 13, sparse p 25) key estimators of the
// node's sstables merged into one (a key held by several sstables counts
// once; io/sstable/format/SSTableReader getApproximateKeyCount) plus every
// memtable's partition count (not de-duplicated against the sstables).
// nodetool prints 0 for a table with neither (kept: the node holds none of
// the table's keys); a value that is not a non-negative integer is an
// error. A keyspace in whole is asked for by its name, the others table by
// table.
func DistinctPartitions(ctx context.Context, cfg SamplerConfig, tables []string, whole map[string]bool) (map[string]int64, error) {
	return tableCounts(ctx, cfg, tables, tableCountRun[int64]{
		command: "tablestats", output: "tablestats -F json output", reading: "partition counts",
		args:  func(wanted map[string]bool) []string { return tablestatsArgs(wanted, whole) },
		parse: ParseDistinctPartitions,
	})
}

// tablestatsArgs asks for the wanted tables in one JVM: by keyspace where
// every user table of it is wanted (whole), by name otherwise (nodetool
// reads about forty JMX attributes per table it lists, so a table not
// wanted costs the node as much as one wanted); system keyspaces are not
// asked (each of their tables is a JMX read and a Statistics.db load per
// sstable).
func tablestatsArgs(wanted, whole map[string]bool) []string {
	var names []string
	asked := map[string]bool{}
	for t := range wanted {
		ks, _, _ := strings.Cut(t, ".")
		switch {
		case !whole[ks]:
			names = append(names, t)
		case !asked[ks]:
			asked[ks] = true
			names = append(names, ks)
		}
	}
	sort.Strings(names)
	return append([]string{"tablestats", "-F", "json"}, names...)
}

// ParseDistinctPartitions reads `nodetool tablestats -F json` (the shape of
// tools/nodetool/stats/TableStatsHolder.java, the same keys in 4.0.19,
// 4.1.10 and 5.0.8): {"<keyspace>": {"tables": {"<table>":
// {"number_of_partitions_estimate": N, …}}}, "total_number_of_tables": n}.
// It decodes r as it comes, one table's object at a time (about 1.9 KB), so
// its memory is what it returns, whatever the table count. It returns the
// tables keep accepts (nil: every table), keyed "ks.table"; a table
// reporting 0 is kept (nothing on disk or in memory: the gauge's -1, which
// nodetool prints as 0).
func ParseDistinctPartitions(r io.Reader, keep func(table string) bool) (map[string]int64, error) {
	br := bufio.NewReader(r)
	if before, err := skipToObject(br); err != nil {
		return nil, fmt.Errorf("no JSON object in %q: %w", truncate(strings.TrimSpace(before), 200), err)
	}
	dec := json.NewDecoder(br)
	dec.UseNumber()
	res := map[string]int64{}
	err := readObject(dec, func(ks string) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if tok != json.Delim('{') {
			return skipRest(dec, tok) // total_number_of_tables and other scalars
		}
		return readMembers(dec, func(field string) error {
			if field != "tables" {
				return skipValue(dec)
			}
			if err := expectDelim(dec, '{'); err != nil {
				return fmt.Errorf("keyspace %s: tables: %w", ks, err)
			}
			return readMembers(dec, func(tb string) error {
				return readPartitionCount(dec, ks, tb, keep, res)
			})
		})
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// readPartitionCount decodes one table's object and stores its
// number_of_partitions_estimate in res if keep wants the table.
func readPartitionCount(dec *json.Decoder, ks, tb string, keep func(string) bool, res map[string]int64) error {
	var fields struct {
		Estimate json.RawMessage `json:"number_of_partitions_estimate"` // the only field read: the rest is scanned, not kept
	}
	if err := dec.Decode(&fields); err != nil {
		return fmt.Errorf("%s.%s: %w", ks, tb, unexpectedEOF(err))
	}
	table := model.TableKey(ks, tb)
	if keep != nil && !keep(table) {
		return nil
	}
	v := fields.Estimate
	if v == nil {
		return fmt.Errorf("%s.%s: no number_of_partitions_estimate", ks, tb)
	}
	var n json.Number
	if err := json.Unmarshal(v, &n); err != nil {
		return fmt.Errorf("%s.%s: number_of_partitions_estimate %s is not a number", ks, tb, truncate(string(v), 40))
	}
	c, err := n.Int64()
	if err != nil || c < 0 {
		return fmt.Errorf("%s.%s: number_of_partitions_estimate %s is not a count", ks, tb, n)
	}
	res[table] = c
	return nil
}

// skipToObject reads r up to its first '{' (a JVM's warnings may come
// first) and returns what it skipped, at most 4 KiB of it.
func skipToObject(r *bufio.Reader) (string, error) {
	skipped := &cappedBuffer{limit: 4 << 10}
	for {
		b, err := r.ReadByte()
		if err != nil {
			return skipped.String(), err
		}
		if b == '{' {
			return skipped.String(), r.UnreadByte()
		}
		_, _ = skipped.Write([]byte{b}) // cappedBuffer.Write never fails
	}
}
