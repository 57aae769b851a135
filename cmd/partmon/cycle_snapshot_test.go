package main

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"

	"github.com/partmon/partmon/model"
)

// scaledSnapshot is the capture c scaled to nodes × tables user tables
// (keyspaces of 20, NetworkTopologyStrategy dc1:3, 16 vnodes a node, three
// racks): each node keeps the capture's system tables, settings and thread
// pools; user table j is, by j mod 20, busy (0-4: the capture's healthy
// table as captured, reads half its writes), large (5: the same at 1-5 GiB,
// five keys in top_partitions) or idle (64 KiB, no operation). Each node
// has 1,000 log entries and its share of 20,000 sampled keys.
func scaledSnapshot(c *model.Snapshot, nodes, tables int) *model.Snapshot {
	rng := rand.New(rand.NewSource(1))
	capNode := c.PerNode[c.Nodes[0].HostID]
	busy := *capNode.Tables["pm_clean.users_by_id"]
	busy.LocalReads = model.Ops{Count: busy.LocalWrites.Count / 2, Rate: -1, PerSecond: busy.LocalWrites.PerSecond / 2, P99Seconds: 0.002}
	busy.TombstonesPerRead = model.Distribution{Count: busy.LocalReads.Count}
	var tmpl model.Table
	s := &model.Snapshot{Taken: c.Taken, Cluster: "bench", Engine: c.Engine, Version: c.Version, Partitioner: c.Partitioner, PerNode: map[string]*model.NodeData{}}
	for _, ks := range c.Schema.Keyspaces {
		if ks.System || strings.HasPrefix(ks.Name, "system") {
			s.Schema.Keyspaces = append(s.Schema.Keyspaces, ks)
		}
		for _, t := range ks.Tables {
			if ks.Name == "pm_clean" && t.Name == "users_by_id" {
				tmpl = t
			}
		}
	}
	for k := 0; k*20 < tables; k++ {
		ks := model.Keyspace{Name: fmt.Sprintf("tenant%04d", k), Replication: map[string]string{"class": "org.apache.cassandra.locator.NetworkTopologyStrategy", "dc1": "3"}}
		for j := k * 20; j < min(tables, k*20+20); j++ {
			t := tmpl
			t.Keyspace, t.Name = ks.Name, fmt.Sprintf("t%05d", j)
			ks.Tables = append(ks.Tables, t)
		}
		s.Schema.Keyspaces = append(s.Schema.Keyspaces, ks)
	}
	var user []*model.Table
	for i := range s.Schema.Keyspaces {
		for j := range s.Schema.Keyspaces[i].Tables {
			if strings.HasPrefix(s.Schema.Keyspaces[i].Name, "tenant") {
				user = append(user, &s.Schema.Keyspaces[i].Tables[j])
			}
		}
	}
	for i := 0; i < nodes; i++ {
		toks := make([]int64, 16)
		for j := range toks {
			toks[j] = rng.Int63() - rng.Int63()
		}
		slices.Sort(toks)
		n := model.Node{HostID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i), Address: fmt.Sprintf("10.1.%d.%d", i/250, i%250+1),
			DC: "dc1", Rack: fmt.Sprintf("rack%d", i%3), Tokens: toks, ReleaseVersion: c.Version, Targeted: true}
		s.Nodes = append(s.Nodes, n)
		s.PerNode[n.HostID] = scaledNode(capNode, busy, n, user, nodes, i, s.Taken.Unix())
		for _, st := range c.Sources {
			if st.Node == c.Nodes[0].Address {
				st.Node = n.Address
				s.Sources = append(s.Sources, st)
			}
		}
	}
	for _, st := range c.Sources {
		if st.Node == "" {
			s.Sources = append(s.Sources, st)
		}
	}
	return s
}

func scaledNode(capNode *model.NodeData, busy model.TableStats, n model.Node, user []*model.Table, nodes, i int, now int64) *model.NodeData {
	nd := &model.NodeData{HostID: n.HostID, Address: n.Address, Tables: map[string]*model.TableStats{}, LoadBytes: 50 << 30,
		Settings: capNode.Settings, ThreadPools: capNode.ThreadPools}
	for k, st := range capNode.Tables {
		if strings.HasPrefix(k, "system") {
			c := *st
			nd.Tables[k] = &c
		}
	}
	var busyTables []*model.Table
	for j, t := range user {
		st := busy
		st.Keyspace, st.Table = t.Keyspace, t.Name
		switch j % 20 {
		case 0, 1, 2, 3, 4:
			st.LocalWrites.Count += int64(j)
			busyTables = append(busyTables, t)
		case 5:
			size := int64(1+(j/20)%5) << 30
			st.DiskUsageBytes, st.MaxSSTableBytes = size, size/4
			st.PartitionsEstimate *= size / max(busy.DiskUsageBytes, 1)
			for k := 0; k < 5; k++ {
				nd.TopPartitions = append(nd.TopPartitions, model.TopPartition{Keyspace: t.Keyspace, Table: t.Name, Type: "SIZES",
					Key: fmt.Sprintf("%s-large-%d", t.Name, k), Value: int64(1+k) << 20})
			}
		default:
			st.DiskUsageBytes, st.MaxSSTableBytes = 64<<10, 64<<10
			st.LocalReads, st.LocalWrites, st.LocalScans = model.Ops{}, model.Ops{}, model.Ops{}
			st.TombstonesPerRead, st.RowsPerRead = model.Distribution{}, model.Distribution{}
		}
		nd.Tables[model.TableKey(t.Keyspace, t.Name)] = &st
	}
	kinds := []model.LogEvidenceKind{model.LogPartitionSize, model.LogTombstoneWarning, model.LogSlowRead, model.LogPartitionTombstones}
	for j := 0; j < 1000; j++ {
		t := user[(i*37+j*7)%len(user)]
		nd.LogEvidence = append(nd.LogEvidence, model.LogEvidence{Kind: kinds[j%4], Keyspace: t.Keyspace, Table: t.Name,
			Key: fmt.Sprintf("log-%d-%d", i, j), Value: int64(10+j%100) << 20, Count: int64(1 + j%5), Where: "system_views.system_logs"})
	}
	per := 20000 / nodes
	for j := 0; j < per; j++ {
		t := busyTables[(i*per+j)%len(busyTables)]
		nd.HotPartitions = append(nd.HotPartitions, model.HotPartition{Keyspace: t.Keyspace, Table: t.Name,
			Key: fmt.Sprintf("user.%06d@example.org", i*per+j), Op: []string{"read", "write"}[j%2], Count: int64(5 + j%50), Total: 1000, Window: 10, Source: "nodetool"})
	}
	return nd
}
