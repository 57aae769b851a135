package web

import (
	"fmt"
	"time"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/model"
)

// ShapedReport is, for the browser tests (package web_test), the analyzed
// report of a ring of nodes × perNode tokens over dcs DCs in a real
// cluster's shape (shapedRing), with keyspace ks of table t replicated by
// replication (as system_schema.keyspaces has it), hot sampled keys in
// ks.t and a flat heatmap of six cycles.
func ShapedReport(nodes, perNode, dcs int, replication map[string]string, hot []analyzer.HeatKey) *analyzer.Report {
	taken := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	s := &model.Snapshot{Taken: taken, Cluster: "vnodes", Engine: model.EngineCassandra, Version: "5.0.8",
		Partitioner: "org.apache.cassandra.dht.Murmur3Partitioner", PerNode: map[string]*model.NodeData{}}
	for _, n := range shapedRing(nodes, perNode, dcs) {
		n.Targeted = true
		s.Nodes = append(s.Nodes, n)
		s.PerNode[n.HostID] = &model.NodeData{HostID: n.HostID, Address: n.Address, Tables: map[string]*model.TableStats{}}
	}
	s.Schema.Keyspaces = []model.Keyspace{{Name: "ks", Replication: replication, Tables: []model.Table{{Keyspace: "ks", Name: "t",
		Columns: []model.Column{{Name: "k", Kind: "partition_key", Type: "text", ClusteringOrder: "none"}}}}}}
	h := history.New(history.Limits{})
	r := analyzer.Analyze(s, h, analyzer.DefaultThresholds())
	r.Generated = taken
	m := analyzer.HeatMap{Keyspace: "ks", Table: "t", Keys: hot}
	for c := range 6 {
		start := taken.Add(time.Duration(c-6) * time.Minute).Unix()
		m.Columns = append(m.Columns, analyzer.HeatSpan{Start: start, End: start + 60})
	}
	inDC := map[string]int{}
	for _, n := range r.Nodes {
		inDC[n.DC]++
	}
	for _, n := range r.Nodes {
		hn := analyzer.HeatNode{HostID: n.HostID, Address: n.Address, DC: n.DC}
		for range m.Columns {
			cell := analyzer.HeatCell{Rate: 100, Share: 1 / float64(inDC[n.DC]), Ratio: 1}
			hn.Reads, hn.Writes = append(hn.Reads, cell), append(hn.Writes, cell)
		}
		m.Nodes = append(m.Nodes, hn)
	}
	r.Heat = &analyzer.HeatMaps{Maps: []analyzer.HeatMap{m}}
	if len(r.Placements) != 1 {
		panic(fmt.Sprintf("ShapedReport: %d placements for one keyspace", len(r.Placements)))
	}
	return r
}
