package analyzer

import (
	"time"

	"github.com/partmon/partmon/analyzer/index"
	"github.com/partmon/partmon/model"
)

// fullReplica: a node owning this much of a keyspace holds all of it, so
// which replica serves a read is the drivers' routing choice, not data
// placement; its traffic share says nothing about hot ranges.
const fullReplica = index.FullReplica

// opsRate is a (node, table) operation rate in ops/s: the counter's delta
// over the history's traffic window, else the collector's rate between the
// last two snapshots, else the database's own moving rate; -1 when unknown
// (and for nodes whose counters were not read this cycle: they are from an
// earlier read).
func (a *analysis) opsRate(tn *tableNode, key string, write bool) float64 {
	if a.sc.StaleTraffic[tn.node.HostID] {
		return -1
	}
	ops, idx := tn.stats.LocalReads, 1
	if write {
		ops, idx = tn.stats.LocalWrites, 2
	}
	if base, ok := a.h.TrafficBase(tn.node.HostID, key, a.now); ok {
		span := a.now - base[0]
		if span >= int64(a.h.Limits.TrafficWindow/4/time.Second) && ops.Count >= base[idx] {
			return float64(ops.Count-base[idx]) / float64(span)
		}
	}
	if ops.Rate >= 0 {
		return ops.Rate
	}
	if ops.PerSecond > 0 || ops.Count == 0 {
		return ops.PerSecond
	}
	return -1
}

// buildTraffic sets every (node, table) rate, the tables' totals, and the
// read and write skews: a node's share of its group's operations on the
// table ÷ its share of the group's effective ownership.
func (a *analysis) buildTraffic() {
	for _, t := range a.tables {
		byHost := make(map[string]*tableNode, len(t.nodes))
		for _, tn := range t.nodes {
			tn.readRate = a.opsRate(tn, t.key, false)
			tn.writeRate = a.opsRate(tn, t.key, true)
			t.readRate += max(0, tn.readRate)
			t.writeRate += max(0, tn.writeRate)
			byHost[tn.node.HostID] = tn
		}
		if t.ks == nil || t.ks.owns == nil {
			continue
		}
		groups := map[string][]*model.Node{}
		for i := range a.s.Nodes {
			n := &a.s.Nodes[i]
			if t.ks.owns[n.HostID] > 0 {
				g := index.PlacementGroup(t.ks.repl, n)
				groups[g] = append(groups[g], n)
			}
		}
		for _, replicas := range groups {
			a.groupSkews(t, replicas, byHost, false)
			a.groupSkews(t, replicas, byHost, true)
		}
	}
}

// groupSkews needs every replica of the group to report a rate: a share of
// an incomplete total would be wrong. It leaves skews at 0 otherwise, and
// when the group's traffic is under the floor.
func (a *analysis) groupSkews(t *tableView, replicas []*model.Node, byHost map[string]*tableNode, write bool) {
	if len(replicas) < 2 {
		return
	}
	var total, owned float64
	for _, n := range replicas {
		tn := byHost[n.HostID]
		if tn == nil {
			return
		}
		r := tn.readRate
		if write {
			r = tn.writeRate
		}
		if r < 0 {
			return
		}
		total += r
		owned += t.ks.owns[n.HostID]
	}
	if total < a.th.TrafficFloorOpsPerSecond || owned <= 0 {
		return
	}
	for _, n := range replicas {
		tn := byHost[n.HostID]
		tn.owns, tn.groupOwns = t.ks.owns[n.HostID], owned
		if tn.owns >= fullReplica {
			continue
		}
		fair := tn.owns / owned
		if write {
			tn.groupWrite = total
			tn.writeShare = tn.writeRate / total
			tn.writeSkew = tn.writeShare / fair
		} else {
			tn.groupRead = total
			tn.readShare = tn.readRate / total
			tn.readSkew = tn.readShare / fair
		}
	}
}

// scanRate is the table's local range reads per second, all nodes: the
// collector's rate between cycles, else Cassandra's five-minute rate.
func (t *tableView) scanRate() float64 {
	var sum float64
	for _, tn := range t.nodes {
		o := tn.stats.LocalScans
		if o.Rate >= 0 && (o.Rate > 0 || o.PerSecond == 0) {
			sum += o.Rate
		} else {
			sum += max(0, o.PerSecond)
		}
	}
	return sum
}
