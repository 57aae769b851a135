package nodetool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/partmon/partmon/model"
)

// DistinctPartitions runs `nodetool tablestats -F json` on the keyspaces of
// the requested tables ("ks.table") and returns each table's "Number of
// partitions (estimate)": the EstimatedPartitionCount gauge
// (metrics/TableMetrics.java, 4.0–5.0), i.e. the HyperLogLog++ (p 13, sparse
// p 25) key estimators of the node's sstables merged into one (a key held by
// several sstables counts once; io/sstable/format/SSTableReader
// getApproximateKeyCount) plus every memtable's partition count (not
// de-duplicated against the sstables). nodetool prints 0 for a table with
// neither (kept: the node holds none of the table's keys); a value that is
// not a non-negative integer is an error.
func DistinctPartitions(ctx context.Context, cfg SamplerConfig, tables []string) (map[string]int64, error) {
	return tableCounts(ctx, cfg, tables, tableCountRun[int64]{
		command: "tablestats", output: "tablestats -F json output", reading: "partition counts",
		args:  tablestatsArgs,
		parse: ParseDistinctPartitions,
	})
}

// tablestatsArgs asks for every keyspace of the wanted tables in one JVM;
// system keyspaces are not asked (each of their tables is a JMX read and a
// Statistics.db load per sstable).
func tablestatsArgs(wanted map[string]bool) []string {
	ksSet := map[string]bool{}
	for t := range wanted {
		ks, _, _ := strings.Cut(t, ".")
		ksSet[ks] = true
	}
	keyspaces := make([]string, 0, len(ksSet))
	for ks := range ksSet {
		keyspaces = append(keyspaces, ks)
	}
	sort.Strings(keyspaces)
	return append([]string{"tablestats", "-F", "json"}, keyspaces...)
}

// ParseDistinctPartitions reads `nodetool tablestats -F json` (the shape of
// tools/nodetool/stats/TableStatsHolder.java, the same keys in 4.0.19,
// 4.1.10 and 5.0.8): {"<keyspace>": {"tables": {"<table>":
// {"number_of_partitions_estimate": N, …}}}, "total_number_of_tables": n}.
// Keys are "ks.table"; a table reporting 0 is kept (nothing on disk or in
// memory: the gauge's -1, which nodetool prints as 0).
func ParseDistinctPartitions(out string) (map[string]int64, error) {
	start := strings.IndexByte(out, '{')
	if start < 0 {
		return nil, fmt.Errorf("no JSON object in %q", truncate(strings.TrimSpace(out), 200))
	}
	var doc map[string]json.RawMessage
	dec := json.NewDecoder(strings.NewReader(out[start:]))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%w in %q", err, truncate(strings.TrimSpace(out), 200))
	}
	res := map[string]int64{}
	for ks, raw := range doc {
		if !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
			continue // total_number_of_tables and other scalars
		}
		var k struct {
			Tables map[string]map[string]json.RawMessage `json:"tables"`
		}
		if err := json.Unmarshal(raw, &k); err != nil {
			return nil, fmt.Errorf("keyspace %s: %w", ks, err)
		}
		for tb, fields := range k.Tables {
			v, ok := fields["number_of_partitions_estimate"]
			if !ok {
				return nil, fmt.Errorf("%s.%s: no number_of_partitions_estimate", ks, tb)
			}
			var n json.Number
			if err := json.Unmarshal(v, &n); err != nil {
				return nil, fmt.Errorf("%s.%s: number_of_partitions_estimate %s is not a number", ks, tb, truncate(string(v), 40))
			}
			c, err := n.Int64()
			if err != nil || c < 0 {
				return nil, fmt.Errorf("%s.%s: number_of_partitions_estimate %s is not a count", ks, tb, n)
			}
			res[model.TableKey(ks, tb)] = c
		}
	}
	return res, nil
}
