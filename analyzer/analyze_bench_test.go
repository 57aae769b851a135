package analyzer

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/model"
)

// syntheticCluster builds a cluster of nodes (16 vnodes each, one DC, three
// racks) with tables spread over keyspaces of 20 tables, every table
// reported by every node, a few key lists and problems, and a history of
// size points (two days, every 30 minutes) and traffic points.
func syntheticCluster(nodes, tables int) (*model.Snapshot, *history.History) {
	rng := rand.New(rand.NewSource(1))
	s := &model.Snapshot{
		Taken: t0, Cluster: "bench", Engine: model.EngineCassandra, Version: "5.0.8",
		PerNode: map[string]*model.NodeData{},
	}
	for i := 0; i < nodes; i++ {
		toks := make([]int64, 16)
		for j := range toks {
			toks[j] = rng.Int63() - rng.Int63()
		}
		sortInt64(toks)
		s.Nodes = append(s.Nodes, model.Node{HostID: fmt.Sprintf("host-%03d", i), Address: fmt.Sprintf("10.1.%d.%d", i/250, i%250+1),
			DC: "dc1", Rack: fmt.Sprintf("r%d", i%3), Tokens: toks, Targeted: true})
	}
	for k := 0; k*20 < tables; k++ {
		ks := model.Keyspace{Name: fmt.Sprintf("ks%03d", k), Replication: nts("dc1", "3")}
		for j := 0; j < 20 && k*20+j < tables; j++ {
			tb := table(fmt.Sprintf("t%02d", j), pk("id", "text", 0), ck("ts", "timestamp", 0, "desc"), col("v", "blob"), col("email", "text"))
			tb.Keyspace = ks.Name
			if j%10 == 0 {
				tb.Indexes = []model.Index{{Name: "ix", Kind: "COMPOSITES", Options: map[string]string{"target": "email"}}}
			}
			ks.Tables = append(ks.Tables, tb)
		}
		s.Schema.Keyspaces = append(s.Schema.Keyspaces, ks)
	}
	h := history.New(history.Limits{})
	for i, n := range s.Nodes {
		nd := &model.NodeData{HostID: n.HostID, Address: n.Address, Tables: map[string]*model.TableStats{}, LoadBytes: float64(100+rng.Intn(40)) * gib}
		s.PerNode[n.HostID] = nd
		h.Traffic[n.HostID] = map[string][]history.TrafficPoint{}
		for _, ks := range s.Schema.Keyspaces {
			for ti, tb := range ks.Tables {
				key := model.TableKey(ks.Name, tb.Name)
				maxSize := int64(1+rng.Intn(19)) * mib
				switch {
				case ti == 3 && i == 0:
					maxSize = 140 * mib
				case i == 0:
					maxSize = 20 * mib // the history below ends here
				}
				tombstones := float64(rng.Intn(100))
				if ti == 5 {
					tombstones = 1500
				}
				reads := int64(1e6 + rng.Intn(1e5))
				nd.Tables[key] = &model.TableStats{
					Keyspace: ks.Name, Table: tb.Name, MaxPartitionBytes: maxSize, MeanPartitionBytes: 40 * kib,
					PartitionsEstimate: int64(1000 + rng.Intn(1000)), DiskUsageBytes: 1 * gib,
					LocalReads:        model.Ops{Count: reads, Rate: -1, PerSecond: 100},
					LocalWrites:       model.Ops{Count: reads / 2, Rate: -1, PerSecond: 50},
					TombstonesPerRead: model.Distribution{Count: 1000, P50: 1, P99: tombstones, Max: 3000},
					RowsPerRead:       model.Distribution{Count: 1000, P50: 10, P99: 100, Max: 500},
				}
				h.Traffic[n.HostID][key] = []history.TrafficPoint{{t0.Unix() - 900, reads - 90000, reads/2 - 45000}}
				if ti < 2 {
					nd.TopPartitions = append(nd.TopPartitions, model.TopPartition{Keyspace: ks.Name, Table: tb.Name, Type: "SIZES",
						Key: fmt.Sprintf("key-%d", rng.Intn(5)), Value: maxSize})
				}
			}
		}
		s.Sources = append(s.Sources, model.SourceStatus{Source: "max_partition_size", Node: n.Address, State: model.StateOK, Taken: t0, LastSuccess: t0})
	}
	for _, ks := range s.Schema.Keyspaces {
		for ti, tb := range ks.Tables {
			growth := float64(ti%4) * 10 * mib / 86400 // 0 to 30 MiB a day
			h.Sizes[model.TableKey(ks.Name, tb.Name)] = series(t0.Unix(), 96, 1800, func(age float64) float64 {
				return 20*mib - growth*age
			})
		}
	}
	return s, h
}

func sortInt64(v []int64) {
	for i := 1; i < len(v); i++ {
		for j := i; j > 0 && v[j] < v[j-1]; j-- {
			v[j], v[j-1] = v[j-1], v[j]
		}
	}
}

func BenchmarkAnalyze1000Tables30Nodes(b *testing.B) {
	s, h := syntheticCluster(30, 1000)
	b.ReportAllocs()
	b.ResetTimer()
	var r *Report
	for i := 0; i < b.N; i++ {
		r = Analyze(s, h, DefaultThresholds())
	}
	b.StopTimer()
	b.ReportMetric(float64(len(r.Findings)), "findings")
	b.ReportMetric(float64(len(r.TableNodes)), "table_nodes")
}

// BenchmarkAnalyzeCycle1000Tables30Nodes is the daemon's cycle: each
// snapshot a minute after the last, so recording adds points and a heat
// column every time (Analyze of the same snapshot again records nothing).
func BenchmarkAnalyzeCycle1000Tables30Nodes(b *testing.B) {
	s, _ := syntheticCluster(30, 1000)
	h := history.New(history.Limits{})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.Taken = t0.Add(time.Duration(i) * time.Minute)
		Analyze(s, h, DefaultThresholds())
	}
}

func BenchmarkHistoryRecord1000Tables30Nodes(b *testing.B) {
	s, _ := syntheticCluster(30, 1000)
	h := history.New(history.Limits{})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.Taken = t0.Add(time.Duration(i) * time.Minute)
		record(h, s)
	}
}

// The synthetic cluster is realistic enough to exercise every figure.
func TestSyntheticClusterAnalyzes(t *testing.T) {
	s, h := syntheticCluster(6, 40)
	r := Analyze(s, h, DefaultThresholds())
	if len(r.Tables) != 40 || len(r.TableNodes) != 240 || len(r.Nodes) != 6 {
		t.Fatalf("tables %d, table nodes %d, nodes %d", len(r.Tables), len(r.TableNodes), len(r.Nodes))
	}
	kinds := map[string]int{}
	for _, f := range append(r.Findings, r.Remarks...) {
		kinds[f.Kind]++
	}
	for _, k := range []string{KindOversizedPartition, KindSecondaryIndexHighCard, KindPartitionGrowthForecast, KindTombstoneHeavy} {
		if kinds[k] == 0 {
			t.Errorf("no %s finding in the synthetic cluster: %v", k, kinds)
		}
	}
}
