package main

import (
	"fmt"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/model"
)

// Template is what the fleet replays from one captured snapshot.
type Template struct {
	Snapshot *model.Snapshot
	// Healthy are the user tables the analyzer finds nothing on (no finding,
	// no schema remark) and every captured node has figures for: the scaled
	// tables copy them.
	Healthy []model.Table
	// Hot is the captured hot-key sample planted on one sidecar, with the
	// captured node that saw it; zero when the capture has none.
	Hot     []model.HotPartition
	HotNode string // host ID
}

// NewTemplate analyzes the captured snapshot as a cluster-mode partmon
// would and splits its user tables into healthy ones and problems; the
// problem tables are not replayed, except one hot key (Plant).
func NewTemplate(c *model.Snapshot) (*Template, error) {
	r := analyzer.Analyze(c, nil, analyzer.DefaultThresholds())
	troubled := map[string]bool{}
	for _, f := range append(r.Findings, r.Remarks...) {
		if f.Table != "" {
			troubled[model.TableKey(f.Keyspace, f.Table)] = true
		}
	}
	t := &Template{Snapshot: c}
	for _, ks := range c.Schema.Keyspaces {
		if ks.System {
			continue
		}
		for _, tb := range ks.Tables {
			key := model.TableKey(tb.Keyspace, tb.Name)
			if !troubled[key] && onEveryNode(c, key) {
				t.Healthy = append(t.Healthy, tb)
			}
		}
	}
	if len(t.Healthy) == 0 {
		return nil, fmt.Errorf("the captured snapshot has no healthy user table on every node to replay")
	}
	t.Hot, t.HotNode = hottestKey(c, r)
	return t, nil
}

func onEveryNode(c *model.Snapshot, key string) bool {
	for _, n := range c.Nodes {
		d := c.PerNode[n.HostID]
		if d == nil || d.Tables[key] == nil {
			return false
		}
	}
	return true
}

// hottestKey picks the analyzer's most severe hot-key finding of the
// capture and returns that key's samples on the node where it was hottest.
func hottestKey(c *model.Snapshot, r *analyzer.Report) ([]model.HotPartition, string) {
	var best *analyzer.Finding
	for i, f := range r.Findings {
		if f.Kind != analyzer.KindHotPartition || f.PartitionKey == "" {
			continue
		}
		if best == nil || f.Value > best.Value {
			best = &r.Findings[i]
		}
	}
	if best == nil {
		return nil, ""
	}
	for _, n := range c.Nodes {
		if best.Node != "" && n.Address != best.Node {
			continue
		}
		var samples []model.HotPartition
		d := c.PerNode[n.HostID]
		if d == nil {
			continue
		}
		for _, p := range d.HotPartitions {
			if p.Keyspace == best.Keyspace && p.Table == best.Table {
				samples = append(samples, p) // the table's whole sample: the share is of its total
			}
		}
		if len(samples) > 0 {
			return samples, n.HostID
		}
	}
	return nil, ""
}

// PlantedKey is the partition key the planted sample makes hot.
func (t *Template) PlantedKey() (keyspace, table, key string) {
	var top model.HotPartition
	for _, p := range t.Hot {
		if p.Count > top.Count {
			top = p
		}
	}
	return top.Keyspace, top.Table, top.Key
}

// Plant adds the captured hot table to every sidecar's schema and node
// data (from the node each replays, with no sample) and the captured
// sample to sidecar i's node only: one replica of one table with one hot key.
func (t *Template) Plant(s *model.Snapshot, own FleetNode, isPlanted bool, dcs int) {
	ks, table, _ := t.PlantedKey()
	if table == "" {
		return
	}
	key := model.TableKey(ks, table)
	t.addToSchema(&s.Schema, ks, table, dcs)
	d := s.PerNode[own.HostID]
	if d == nil {
		return
	}
	if st := t.Snapshot.PerNode[own.Template]; st != nil && st.Tables[key] != nil {
		c := *st.Tables[key]
		d.Tables[key] = &c
	}
	if isPlanted {
		if st := t.Snapshot.PerNode[t.HotNode]; st != nil && st.Tables[key] != nil {
			c := *st.Tables[key] // the traffic the sample was drawn from
			d.Tables[key] = &c
		}
		d.HotPartitions = append(d.HotPartitions, t.Hot...)
	}
}

// addToSchema adds the captured table, and its keyspace when the scaled
// tables left it out, to a fleet schema.
func (t *Template) addToSchema(s *model.Schema, ks, table string, dcs int) {
	for _, k := range t.Snapshot.Schema.Keyspaces {
		if k.Name != ks {
			continue
		}
		for _, tb := range k.Tables {
			if tb.Name != table {
				continue
			}
			for i := range s.Keyspaces {
				if s.Keyspaces[i].Name == ks {
					s.Keyspaces[i].Tables = append(s.Keyspaces[i].Tables, tb)
					return
				}
			}
			k.Tables = []model.Table{tb}
			k.Replication = rekeyReplication(k.Replication, dcs)
			s.Keyspaces = append(s.Keyspaces, k)
			return
		}
	}
}
