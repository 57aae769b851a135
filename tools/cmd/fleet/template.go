package main

import (
	"fmt"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/model"
)

// Template is what the fleet replays from one captured snapshot.
type Template struct {
	Snapshot *model.Snapshot
	// Healthy are the user tables the analyzer finds nothing on (no finding,
	// no schema remark) and every captured node has figures for: the scaled
	// tables copy them.
	Healthy []model.Table
	// Problems are the capture's keyed problems, at most one per PlantKinds
	// kind, in that order: each is replayed on one sidecar (Plant).
	Problems []Problem
}

// PlantKinds are the finding kinds the fleet plants when the capture shows
// them with a partition key: the key-level problems partmon pushes and
// alerts on, each a different source (the nodetool sampler; the largest
// partition with system.top_partitions' SIZES; the tombstones per read with
// its TOMBSTONES).
var PlantKinds = []string{analyzer.KindHotPartition, analyzer.KindOversizedPartition, analyzer.KindTombstoneHeavy}

// Problem is one of the capture's keyed problems: the analyzer's most
// severe finding of its kind that names a key, and the captured node whose
// data shows it.
type Problem struct {
	Kind     string
	Keyspace string
	Table    string
	Key      string
	Node     string // host ID of the captured node
	// Everywhere: every sidecar holds the table with its own captured
	// figures, only the planted one its keys. The hot key's table qualifies
	// (its traffic alone is no problem); a large or tombstone-heavy table
	// shows its problem in its figures, so only the planted sidecar holds it.
	Everywhere bool
}

// NewTemplate analyzes the captured snapshot as a cluster-mode partmon
// would and splits its user tables into healthy ones and problems; the
// problem tables are not replayed, except the keyed Problems (Plant).
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
	for _, kind := range PlantKinds {
		if p, ok := worstKeyed(c, r, kind); ok {
			t.Problems = append(t.Problems, p)
		}
	}
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

// worstKeyed picks the analyzer's most severe finding of kind that names a
// key, and the captured node (the finding's, else the first) whose data
// names that key.
func worstKeyed(c *model.Snapshot, r *analyzer.Report, kind string) (Problem, bool) {
	var best *finding.Finding
	for i, f := range r.Findings {
		if f.Kind != kind || f.PartitionKey == "" {
			continue
		}
		if best == nil || f.Severity > best.Severity || (f.Severity == best.Severity && f.Value > best.Value) {
			best = &r.Findings[i]
		}
	}
	if best == nil {
		return Problem{}, false
	}
	for _, n := range c.Nodes {
		if best.Node != "" && n.Address != best.Node {
			continue
		}
		if d := c.PerNode[n.HostID]; d != nil && namesKey(d, best.Keyspace, best.Table, best.PartitionKey) {
			return Problem{Kind: kind, Keyspace: best.Keyspace, Table: best.Table, Key: best.PartitionKey, Node: n.HostID,
				Everywhere: kind == analyzer.KindHotPartition}, true
		}
	}
	return Problem{}, false
}

// namesKey: the node's data names the key of the table (sampler, top
// partitions or its log).
func namesKey(d *model.NodeData, ks, table, key string) bool {
	for _, p := range d.HotPartitions {
		if p.Keyspace == ks && p.Table == table && p.Key == key {
			return true
		}
	}
	for _, p := range d.TopPartitions {
		if p.Keyspace == ks && p.Table == table && p.Key == key {
			return true
		}
	}
	for _, e := range d.LogEvidence {
		if e.Keyspace == ks && e.Table == table && e.Key == key {
			return true
		}
	}
	return false
}

// Plant adds problem p's table to every sidecar's schema and, where it
// goes, its figures: the planted sidecar gets the figures and keys of the
// captured node that showed it; with p.Everywhere, every other sidecar the
// figures (no keys) of the captured node it replays.
func (t *Template) Plant(s *model.Snapshot, own FleetNode, p Problem, isPlanted bool, dcs int) {
	key := model.TableKey(p.Keyspace, p.Table)
	t.addToSchema(&s.Schema, p.Keyspace, p.Table, dcs) // the schema is the cluster's
	d := s.PerNode[own.HostID]
	if d == nil || (!isPlanted && !p.Everywhere) {
		return
	}
	from := own.Template
	if isPlanted {
		from = p.Node
	}
	src := t.Snapshot.PerNode[from]
	if src == nil || src.Tables[key] == nil {
		return
	}
	c := *src.Tables[key]
	d.Tables[key] = &c
	if !isPlanted {
		return
	}
	for _, hp := range src.HotPartitions {
		if hp.Keyspace == p.Keyspace && hp.Table == p.Table {
			d.HotPartitions = append(d.HotPartitions, hp) // the table's whole sample: the share is of its total
		}
	}
	for _, tp := range src.TopPartitions {
		if tp.Keyspace == p.Keyspace && tp.Table == p.Table {
			d.TopPartitions = append(d.TopPartitions, tp)
		}
	}
	for _, e := range src.LogEvidence {
		if e.Keyspace == p.Keyspace && e.Table == p.Table {
			d.LogEvidence = append(d.LogEvidence, e)
		}
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
					for _, have := range s.Keyspaces[i].Tables {
						if have.Name == table {
							return
						}
					}
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
