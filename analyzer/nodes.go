package analyzer

import (
	"strings"
	"time"

	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/ring"
)

// nodeFreshness is what the source statuses say about one node's data.
type nodeFreshness struct {
	failed []string // node-local sources whose last attempt failed
	never  []string // sources that never succeeded
	// oldest LastSuccess of any source, and of the failing ones.
	oldest, oldestFailed time.Time
	oldestSrc            string
	// neverSince is the first attempt of the sources that never succeeded.
	neverSince    time.Time
	trafficFailed bool // a source of the traffic counters failed
}

// trafficSource tells the sources that read the operation counters
// (Cassandra's local_read_latency and local_write_latency).
func trafficSource(name string) bool { return strings.Contains(name, "latency") }

// freshness groups the node-local source statuses by address. Unsupported
// and disabled sources carry no data, so they cannot be stale. A source that
// succeeded last time is current as far as its own schedule goes (some run
// every 30 minutes), so only failures make data stale.
func freshness(s *model.Snapshot) map[string]*nodeFreshness {
	out := map[string]*nodeFreshness{}
	for _, st := range s.Sources {
		if st.Node == "" || st.State == model.StateUnsupported || st.State == model.StateDisabled || st.State == model.StateBusy {
			continue
		}
		f := out[st.Node]
		if f == nil {
			f = &nodeFreshness{}
			out[st.Node] = f
		}
		failed := st.State == model.StateError
		if failed {
			f.failed = append(f.failed, st.Source)
			f.trafficFailed = f.trafficFailed || trafficSource(st.Source)
		}
		if st.LastSuccess.IsZero() {
			f.never = append(f.never, st.Source)
			first := st.FirstAttempt
			if first.IsZero() { // a snapshot from before FirstAttempt: its last attempt is all we know
				first = st.Taken
			}
			if !first.IsZero() && (f.neverSince.IsZero() || first.Before(f.neverSince)) {
				f.neverSince = first
			}
			f.trafficFailed = f.trafficFailed || trafficSource(st.Source)
			continue
		}
		if f.oldest.IsZero() || st.LastSuccess.Before(f.oldest) {
			f.oldest, f.oldestSrc = st.LastSuccess, st.Source
		}
		if failed && (f.oldestFailed.IsZero() || st.LastSuccess.Before(f.oldestFailed)) {
			f.oldestFailed = st.LastSuccess
		}
	}
	return out
}

// age is how old the node's oldest data is at time now; 0 when unknown.
func (f *nodeFreshness) age(now time.Time) float64 {
	if f == nil || f.oldest.IsZero() {
		return 0
	}
	return max(0, now.Sub(f.oldest).Seconds())
}

// failedAge is how old the data of the failing sources is; 0 when none
// failed or they never succeeded.
func (f *nodeFreshness) failedAge(now time.Time) float64 {
	if f == nil || f.oldestFailed.IsZero() {
		return 0
	}
	return max(0, now.Sub(f.oldestFailed).Seconds())
}

// neverAge is how long the sources that never succeeded have been tried
// without data; 0 when there are none.
func (f *nodeFreshness) neverAge(now time.Time) float64 {
	if f == nil || f.neverSince.IsZero() {
		return 0
	}
	return max(0, now.Sub(f.neverSince).Seconds())
}

// isStale: some node-local source could not be read (this cycle or ever).
func (f *nodeFreshness) isStale() bool {
	return f != nil && (len(f.failed) > 0 || len(f.never) > 0)
}

// staleTraffic are the host IDs whose traffic counters were not read this
// cycle: their rates would describe an earlier read.
func staleTraffic(s *model.Snapshot) map[string]bool {
	fr := freshness(s)
	out := map[string]bool{}
	for _, n := range s.Nodes {
		if f := fr[n.Address]; f != nil && f.trafficFailed {
			out[n.HostID] = true
		}
	}
	return out
}

// nodeLoad is the node's own load figure, else what another node's gossip
// says of it (Cassandra 4.1+ gossip_info); 0 when nobody knows.
func (a *analysis) nodeLoad(n *model.Node) float64 {
	if nd := a.s.PerNode[n.HostID]; nd != nil && nd.LoadBytes > 0 {
		return nd.LoadBytes
	}
	for _, hostID := range sortedKeys(a.s.PerNode) {
		if nd := a.s.PerNode[hostID]; nd != nil && nd.GossipLoad[n.Address] > 0 {
			return nd.GossipLoad[n.Address]
		}
	}
	return 0
}

// loadSkews is each node's load ÷ the mean load of its DC, over the nodes
// whose load is known; a DC with fewer than two known loads gets none.
func (a *analysis) loadSkews() (loads, skews map[string]float64) {
	loads = map[string]float64{}
	sum := map[string]float64{}
	count := map[string]int{}
	for i := range a.s.Nodes {
		n := &a.s.Nodes[i]
		if l := a.nodeLoad(n); l > 0 {
			loads[n.HostID] = l
			sum[n.DC] += l
			count[n.DC]++
		}
	}
	skews = map[string]float64{}
	for i := range a.s.Nodes {
		n := &a.s.Nodes[i]
		l, ok := loads[n.HostID]
		if !ok || count[n.DC] < 2 {
			continue
		}
		skews[n.HostID] = l / (sum[n.DC] / float64(count[n.DC]))
	}
	return loads, skews
}

// nodeSummaries fills Report.Nodes in ring order.
func (a *analysis) nodeSummaries() []NodeSummary {
	fr := freshness(a.s)
	loads, skews := a.loadSkews()
	out := make([]NodeSummary, 0, len(a.s.Nodes))
	for _, n := range a.s.Nodes {
		f := fr[n.Address]
		out = append(out, NodeSummary{
			HostID:         n.HostID,
			Address:        n.Address,
			DC:             n.DC,
			Rack:           n.Rack,
			Tokens:         len(n.Tokens),
			LoadBytes:      loads[n.HostID],
			LoadSkew:       skews[n.HostID],
			Targeted:       n.Targeted,
			Stale:          f.isStale(),
			DataAgeSeconds: f.age(a.s.Taken),
			TokenValues:    append([]int64(nil), n.Tokens...),
		})
	}
	return out
}

// ownershipFigures fills Report.Ownership: raw ("") then every keyspace.
func (a *analysis) ownershipFigures() []Ownership {
	var out []Ownership
	add := func(keyspace string, owns, skew map[string]float64) {
		for _, n := range a.s.Nodes {
			o, ok := owns[n.HostID]
			if !ok {
				continue
			}
			out = append(out, Ownership{
				Keyspace: keyspace, HostID: n.HostID, Node: n.Address, DC: n.DC, Rack: n.Rack,
				Owns: o, Skew: skew[n.HostID],
			})
		}
	}
	if a.raw != nil {
		add("", a.raw, ring.OwnershipSkew(a.s.Nodes, a.raw, ring.Replication{}))
	}
	for _, ks := range a.keyspaces {
		if ks.owns != nil {
			add(ks.ks.Name, ks.owns, ks.skew)
		}
	}
	return out
}
