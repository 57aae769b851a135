package collector

import (
	"sort"

	"github.com/partmon/partmon/model"
)

// Snapshot merges the latest good output of every source into a new
// Snapshot. It shares no memory with the collector or with earlier
// snapshots, so callers may keep it as long as they like. Its Taken is the
// start of the most recent source run; each status says when its own data
// was last read (LastSuccess) and last attempted (Taken).
func (c *Collector) Snapshot() *model.Snapshot {
	targets := c.targetAddresses()

	c.mu.Lock()
	defer c.mu.Unlock()
	snap := &model.Snapshot{PerNode: map[string]*model.NodeData{}}
	order := map[string]int{}
	sources := map[string]Source{}
	for i, r := range c.regs {
		order[r.src.Name()] = i
		sources[r.src.Name()] = r.src
	}
	keys := make([]resultKey, 0, len(c.results))
	for k := range c.results {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if oi, oj := order[keys[i].source], order[keys[j].source]; oi != oj {
			return oi < oj
		}
		return keys[i].node < keys[j].node
	})

	for _, k := range keys {
		res := c.results[k]
		snap.Sources = append(snap.Sources, res.status)
		if res.status.Taken.After(snap.Taken) {
			snap.Taken = res.status.Taken
		}
		if res.out == nil {
			continue
		}
		if k.node == "" {
			mergeCluster(snap, res.out.Cluster)
			continue
		}
		if res.hostID == "" {
			continue
		}
		nd, ok := snap.PerNode[res.hostID]
		if !ok {
			nd = &model.NodeData{HostID: res.hostID, Address: k.node, Tables: map[string]*model.TableStats{}}
			snap.PerNode[res.hostID] = nd
		}
		mergeNode(nd, res.out.Node, sources[k.source])
	}
	for _, r := range c.regs {
		if !c.eff[r.src.Name()].enabled {
			snap.Sources = append(snap.Sources, model.SourceStatus{Source: r.src.Name(), State: model.StateDisabled})
		}
	}
	for i := range snap.Nodes {
		snap.Nodes[i].Targeted = targets[snap.Nodes[i].Address]
	}
	return snap
}

// targetAddresses are the nodes this collector speaks for, without
// resolving names again: the addresses it has read node sources from.
func (c *Collector) targetAddresses() map[string]bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]bool{}
	for k := range c.results {
		if k.node != "" {
			out[k.node] = true
		}
	}
	return out
}

// mergeCluster copies what a cluster-wide source read into dst: the
// collector fills Taken, PerNode and Sources itself.
func mergeCluster(dst, src *model.Snapshot) {
	mergeFields(dst, src, replaceLists, "Taken", "PerNode", "Sources")
}

// tableFieldOwner is implemented by sources that own TableStats fields: they
// copy their fields whatever the value, so a real zero is kept.
type tableFieldOwner interface {
	copyOwnFields(dst, src *model.TableStats)
}

// mergeNode copies what one source read into dst. Sources own disjoint
// fields; those that do not say which copy their set ones. LoadBytes is the
// one field two sources set (disk usage, then gossip load, which wins). The
// collector fills the node's identity itself.
func mergeNode(dst, src *model.NodeData, from Source) {
	for _, ts := range src.Tables {
		d := dst.Tables[model.TableKey(ts.Keyspace, ts.Table)]
		if d == nil {
			d = &model.TableStats{Keyspace: ts.Keyspace, Table: ts.Table}
			// Rates are unknown (-1) until a latency source says otherwise.
			d.LocalReads.Rate, d.LocalWrites.Rate, d.LocalScans.Rate = -1, -1, -1
			dst.Tables[model.TableKey(ts.Keyspace, ts.Table)] = d
		}
		if m, ok := from.(tableFieldOwner); ok {
			m.copyOwnFields(d, ts)
		} else {
			mergeFields(d, ts, replaceLists)
		}
	}
	mergeFields(dst, src, appendLists, "HostID", "Address", "Tables")
}
