package reporttest

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/model"
)

// Large is the analyzed report of a synthetic 3-node cluster with the given
// number of tables (see LargeSnapshot), as a daemon would publish it.
func Large(tables int) *analyzer.Report {
	snap := LargeSnapshot(tables)
	h := history.New(history.Limits{})
	r := analyzer.Analyze(snap, h, analyzer.DefaultThresholds())
	r.Generated = snap.Taken.Add(time.Second)
	return r
}

// LargeSnapshot is a 3-node cluster (16 vnodes each, one DC, three racks)
// with `tables` tables in keyspaces of 50 at RF 2, so that every node owns
// part of every table and the traffic skews are defined. Every table has
// every per-node figure on every node, uneven traffic, and a few problems,
// so the exposition carries the most series the contract allows.
func LargeSnapshot(tables int) *model.Snapshot {
	const mib = 1 << 20
	rng := rand.New(rand.NewPCG(1, 2))
	taken := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s := &model.Snapshot{Taken: taken, Cluster: "bench", Engine: model.EngineCassandra, Version: "5.0.8",
		Partitioner: "org.apache.cassandra.dht.Murmur3Partitioner", PerNode: map[string]*model.NodeData{}}
	for i := range 3 {
		toks := make([]int64, 16)
		for j := range toks {
			toks[j] = rng.Int64() - rng.Int64()
		}
		slices.Sort(toks)
		s.Nodes = append(s.Nodes, model.Node{HostID: fmt.Sprintf("host-%d", i), Address: fmt.Sprintf("10.0.0.%d", i+1),
			DC: "dc1", Rack: fmt.Sprintf("r%d", i+1), Tokens: toks, Targeted: true})
	}
	for k := 0; k*50 < tables; k++ {
		ks := model.Keyspace{Name: fmt.Sprintf("ks%02d", k),
			Replication: map[string]string{"class": "org.apache.cassandra.locator.NetworkTopologyStrategy", "dc1": "2"}}
		for j := 0; j < 50 && k*50+j < tables; j++ {
			ks.Tables = append(ks.Tables, model.Table{Keyspace: ks.Name, Name: fmt.Sprintf("t%02d", j), Columns: []model.Column{
				{Name: "id", Kind: "partition_key", Type: "uuid", ClusteringOrder: "none"},
				{Name: "ts", Kind: "clustering", Type: "timestamp", ClusteringOrder: "desc"},
				{Name: "v", Kind: "regular", Type: "blob", ClusteringOrder: "none", Position: -1},
			}})
		}
		s.Schema.Keyspaces = append(s.Schema.Keyspaces, ks)
	}
	for i, n := range s.Nodes {
		nd := &model.NodeData{HostID: n.HostID, Address: n.Address, Tables: map[string]*model.TableStats{},
			LoadBytes: float64(100+20*i) * 1024 * mib}
		for _, ks := range s.Schema.Keyspaces {
			for ti, tb := range ks.Tables {
				maxSize := int64(1+rng.IntN(40)) * mib
				if ti == 7 {
					maxSize = 120 * mib // an oversized partition in every keyspace
				}
				reads := int64(1e6 + rng.IntN(1e6))
				nd.Tables[model.TableKey(ks.Name, tb.Name)] = &model.TableStats{Keyspace: ks.Name, Table: tb.Name,
					MaxPartitionBytes: maxSize, MeanPartitionBytes: 40 << 10, PartitionsEstimate: int64(10000 + rng.IntN(10000)),
					DiskUsageBytes:    int64(1+rng.IntN(10)) * 1024 * mib,
					LocalReads:        model.Ops{Count: reads, Rate: float64(10 + rng.IntN(100*(i+1))), PerSecond: 50},
					LocalWrites:       model.Ops{Count: reads / 2, Rate: float64(5 + rng.IntN(50)), PerSecond: 20},
					TombstonesPerRead: model.Distribution{Count: 1000, P50: 1, P99: float64(rng.IntN(20)), Max: 50},
					RowsPerRead:       model.Distribution{Count: 1000, P50: 10, P99: 100, Max: 500},
				}
				if ti < 2 {
					nd.TopPartitions = append(nd.TopPartitions, model.TopPartition{Keyspace: ks.Name, Table: tb.Name, Type: "SIZES",
						Key: fmt.Sprintf("key-%d", rng.IntN(5)), Value: maxSize, LastUpdate: taken})
				}
			}
		}
		s.PerNode[n.HostID] = nd
		for _, src := range []string{"max_partition_size", "size_estimates", "local_read_latency"} {
			s.Sources = append(s.Sources, model.SourceStatus{Source: src, Node: n.Address, State: model.StateOK,
				Taken: taken, LastSuccess: taken, Duration: 20 * time.Millisecond, Rows: tables})
		}
	}
	return s
}

// CountExposition counts the sample lines of a text exposition, and those of
// the per-table-per-node families (partmon_table_* with a node label).
func CountExposition(text []byte) (series, tableNode int) {
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		series++
		if strings.HasPrefix(line, "partmon_table_") && strings.Contains(line, `node="`) {
			tableNode++
		}
	}
	return series, tableNode
}
