package analyzer

import (
	"cmp"
	"math"
	"sort"

	"github.com/partmon/partmon/analyzer/internal/set"
	"github.com/partmon/partmon/model"
)

// Source names of the key lists, as PartitionEntry.Source and Finding.Source give them.
const (
	srcTopPartitions   = "system.top_partitions"
	srcLargePartitions = "system.large_partitions"
	srcLargeRows       = "system.large_rows"
	srcLargeCells      = "system.large_cells"
	srcSampler         = "toppartitions"
)

// hotKey is one sampled key at its hottest: the node and operation where it
// took the largest share of its table's sampled operations.
type hotKey struct {
	key        string
	op         string
	node       *model.Node
	count      int64
	errorBound int64
	total      float64 // the share's denominator: sampled operations on the table
	totalFrom  string  // where total came from
	upper      bool    // total is only a lower bound (a cut list's counts): share is at most
	window     float64 // seconds
	share      float64 // (count − error) ÷ total: low by the error, high when upper
	// assured is the share the sample's size vouches for (ShareAssured): the
	// rule grades it, so 15 of 60 operations is not a 25 % key.
	assured float64
	nodes   []string
	source  string
	// perNode is the key's share on each replica that sampled it above the
	// traffic floor.
	perNode []nodeShare
	enough  bool // this sample is above the traffic floor (aboveTrafficFloor)
	passes  int  // the sampler windows it was graded over (lowerOfPasses)
}

// nodeShare is one replica's sampled share of a hot key.
type nodeShare struct {
	node           *model.Node
	share, assured float64
}

// keyIndex merges every key that node-local sources name.
type keyIndex struct {
	a       *analysis
	entries map[[2]string]*PartitionEntry // (table key, partition key)
	hot     map[[2]string]*hotKey
}

// buildKeys merges top_partitions, large_partitions/rows/cells and sampled
// hot keys per (table, key), and notes on each (node, table) the largest and
// widest key that node names.
func (a *analysis) buildKeys() {
	ki := &keyIndex{a: a, entries: map[[2]string]*PartitionEntry{}, hot: map[[2]string]*hotKey{}}
	nodesOf := map[[2]string]*tableNode{} // (host ID, table key)
	for _, t := range a.tables {
		for _, tn := range t.nodes {
			nodesOf[[2]string{tn.node.HostID, t.key}] = tn
		}
	}
	system := a.sc.System
	for _, at := range a.perNode() {
		hostID, nd, addr := at.hostID, at.nd, at.addr
		tnOf := func(keyspace, table string) *tableNode {
			return nodesOf[[2]string{hostID, model.TableKey(keyspace, table)}]
		}
		for _, p := range nd.TopPartitions {
			if system[p.Keyspace] {
				continue
			}
			e := ki.entry(p.Keyspace, p.Table, p.Key, addr, srcTopPartitions)
			switch p.Type {
			case "SIZES":
				e.SizeBytes = max(e.SizeBytes, p.Value)
				noteLargest(a, tnOf(p.Keyspace, p.Table), p.Key, p.Value, srcTopPartitions)
			case "TOMBSTONES":
				e.Tombstones = max(e.Tombstones, p.Value)
			}
		}
		for _, p := range nd.LargePartitions {
			if system[p.Keyspace] {
				continue
			}
			e := ki.entry(p.Keyspace, p.Table, p.Key, addr, srcLargePartitions)
			e.SizeBytes = max(e.SizeBytes, p.SizeBytes)
			e.Rows = max(e.Rows, p.Rows)
			e.Tombstones = max(e.Tombstones, p.DeadRows+p.RangeTombstones)
			tn := tnOf(p.Keyspace, p.Table)
			noteLargest(a, tn, p.Key, p.SizeBytes, srcLargePartitions)
			if tn != nil && p.Rows > tn.widestRows {
				tn.widestKey, tn.widestRows, tn.widestBytes = p.Key, p.Rows, p.SizeBytes
			}
		}
		// A large row or cell bounds its partition's size from below.
		for _, r := range nd.LargeRows {
			if !system[r.Keyspace] {
				e := ki.entry(r.Keyspace, r.Table, r.Key, addr, srcLargeRows)
				e.SizeBytes = max(e.SizeBytes, r.SizeBytes)
			}
		}
		for _, c := range nd.LargeCells {
			if !system[c.Keyspace] {
				e := ki.entry(c.Keyspace, c.Table, c.Key, addr, srcLargeCells)
				e.SizeBytes = max(e.SizeBytes, c.SizeBytes)
			}
		}
		ki.addHot(nd, a.byHost[hostID], addr, tnOf)
	}
	for k, e := range ki.entries {
		a.keys[k[0]] = append(a.keys[k[0]], e)
	}
	a.hot = map[string][]*hotKey{}
	for k, h := range ki.hot {
		h.nodes = ki.entries[k].Nodes
		a.hot[k[0]] = append(a.hot[k[0]], h)
	}
	for _, hs := range a.hot {
		sort.Slice(hs, func(i, j int) bool {
			if hs[i].share != hs[j].share {
				return hs[i].share > hs[j].share
			}
			return hs[i].key < hs[j].key
		})
	}
}

func noteLargest(a *analysis, tn *tableNode, key string, size int64, source string) {
	if tn == nil {
		return
	}
	if size >= a.th.PartitionWarningBytes {
		tn.largeKeys++
	}
	if size > tn.largestKeyBytes || (size == tn.largestKeyBytes && key < tn.largestKey) {
		tn.largestKey, tn.largestKeyBytes, tn.largestSource = key, size, source
	}
}

func (ki *keyIndex) entry(keyspace, table, key, node, source string) *PartitionEntry {
	id := [2]string{model.TableKey(keyspace, table), key}
	e := ki.entries[id]
	if e == nil {
		e = &PartitionEntry{Keyspace: keyspace, Table: table, Key: key}
		ki.entries[id] = e
	}
	e.Nodes = set.AddSorted(e.Nodes, node)
	e.Source = joinSources(e.Source, source)
	return e
}

// addHot turns one node's sampled keys into shares. The denominator is the
// sampler's own total for the table; without one (the node's list was cut),
// the larger of the table's operation rate over the sampling window and the
// sum of the table's listed counts, which is only a lower bound of the
// window's operations: a share over it is an upper bound, said so in the
// finding ("at most"), and judged only when a rate exists (the key then
// outnumbered the rate's estimate of the whole table).
func (ki *keyIndex) addHot(nd *model.NodeData, node *model.Node, addr string, tnOf func(ks, t string) *tableNode) {
	for _, s := range lowerOfPasses(ki.sampledShares(nd.HotPartitions, tnOf)) {
		hp := s.hp
		src := srcSampler
		if hp.Source != "" {
			src += ":" + hp.Source
		}
		e := ki.entry(hp.Keyspace, hp.Table, hp.Key, addr, src)
		e.OpsShare = max(e.OpsShare, s.share)
		id := [2]string{model.TableKey(hp.Keyspace, hp.Table), hp.Key}
		n := node
		if n == nil {
			n = &model.Node{Address: addr}
		}
		cur := ki.hot[id]
		if cur == nil || (s.enough && !cur.enough) || (s.enough == cur.enough && s.assured > cur.assured) {
			var per []nodeShare
			if cur != nil {
				per = cur.perNode
			}
			cur = &hotKey{
				key: hp.Key, op: hp.Op, node: n, count: hp.Count, errorBound: hp.Error, total: s.total, totalFrom: s.from, upper: s.upper,
				window: hp.Window, share: s.share, assured: s.assured, source: src, perNode: per, enough: s.enough, passes: s.passes,
			}
			ki.hot[id] = cur
		}
		if s.enough {
			cur.perNode = addShare(cur.perNode, nodeShare{node: n, share: s.share, assured: s.assured})
		}
	}
}

// sampledShare is one sampled key's share of its table's sampled
// operations in one window on one node.
type sampledShare struct {
	hp      model.HotPartition
	total   float64 // the share's denominator
	from    string  // where total came from
	upper   bool    // total is only a lower bound: share is at most
	share   float64 // (count − error) ÷ total
	assured float64 // ShareAssured
	enough  bool    // above the traffic floor, with a total to trust
	passes  int     // the sampler windows it was graded over
}

// sampledShares are the shares of a node's sampled keys, each within its
// own window (model.HotPartition.Pass).
func (ki *keyIndex) sampledShares(hps []model.HotPartition, tnOf func(ks, t string) *tableNode) []sampledShare {
	type group struct {
		table, op string
		pass      int
	}
	sums := map[group]int64{}
	for _, hp := range hps {
		sums[group{model.TableKey(hp.Keyspace, hp.Table), hp.Op, hp.Pass}] += hp.Count
	}
	var out []sampledShare
	for _, hp := range hps {
		if ki.a.sc.System[hp.Keyspace] || hp.Count <= 0 {
			continue
		}
		s := sampledShare{hp: hp, total: float64(hp.Total), from: "sampler total", passes: 1}
		sum := float64(sums[group{model.TableKey(hp.Keyspace, hp.Table), hp.Op, hp.Pass}])
		rated := false
		if s.total <= 0 {
			// The node's list was cut: the listed counts are a lower bound of
			// the window's operations, the rate an estimate; the larger wins.
			s.total, s.from, s.upper = sum, "sum of sampled keys; the node's list was cut", true
			if tn := tnOf(hp.Keyspace, hp.Table); tn != nil && hp.Window > 0 {
				r := tn.readRate
				if hp.Op == "write" {
					r = tn.writeRate
				}
				if rated = r > 0; rated && r*hp.Window >= sum {
					s.total, s.from, s.upper = r*hp.Window, "table rate × window", false
				}
			}
		}
		s.total = max(s.total, float64(hp.Count))
		// count − error is the sampler's guaranteed count; never below 0.
		s.share = float64(max(0, hp.Count-hp.Error)) / s.total
		s.assured = ShareAssured(float64(max(0, hp.Count-hp.Error)), s.total)
		// A sample of too few operations says nothing of heat (3 of 4 writes
		// is 75 %): a key's hottest sample is its hottest one above the
		// traffic floor, and only those place it on a replica.
		// Nor does a share over listed counts alone, with no rate to say
		// how much the cut list left out.
		s.enough = ki.a.aboveTrafficFloor(hp.Count, hp.Window) && (!s.upper || rated)
		out = append(out, s)
	}
	return out
}

// lowerOfPasses: when a node's sampler ran twice (the one-shot report does,
// collector.SampleAgain), each key is graded at the lower of its two
// windows, so one lucky window does not make it hot: a key missing from
// either window's list (its share there unknown, below the list's) is left
// out. One window: the shares as they are.
func lowerOfPasses(ss []sampledShare) []sampledShare {
	type id struct{ table, key, op string }
	second := map[id]sampledShare{}
	for _, s := range ss {
		if s.hp.Pass == 1 {
			second[id{model.TableKey(s.hp.Keyspace, s.hp.Table), s.hp.Key, s.hp.Op}] = s
		}
	}
	if len(second) == 0 {
		return ss
	}
	var out []sampledShare
	for _, s := range ss {
		if s.hp.Pass != 0 {
			continue
		}
		again, ok := second[id{model.TableKey(s.hp.Keyspace, s.hp.Table), s.hp.Key, s.hp.Op}]
		if !ok {
			continue
		}
		lower := s
		if again.assured < s.assured || again.assured == s.assured && !again.enough {
			lower = again
		}
		lower.enough = s.enough && again.enough
		lower.passes = 2
		out = append(out, lower)
	}
	return out
}

// aboveTrafficFloor: a sample of count operations over window seconds is
// at least TrafficFloorOpsPerSecond; with no window, a minute's worth of
// operations at the floor.
func (a *analysis) aboveTrafficFloor(count int64, window float64) bool {
	if window > 0 {
		return float64(count)/window >= a.th.TrafficFloorOpsPerSecond
	}
	return float64(count) >= 60*a.th.TrafficFloorOpsPerSecond
}

// addShare keeps the best-assured share per node (a node samples reads and
// writes, and a sampler may name a key twice).
func addShare(per []nodeShare, s nodeShare) []nodeShare {
	for i := range per {
		if per[i].node.Address == s.node.Address {
			if s.assured > per[i].assured {
				per[i] = s
			}
			return per
		}
	}
	return append(per, s)
}

// hotKeyZ is how many standard errors below its sampled share a key's share
// is graded at (about 98 % one-sided).
const hotKeyZ = 2

// ShareAssured is the Wilson score lower bound of count out of total at
// hotKeyZ standard errors. A sampler window is one draw of the traffic: a
// key at 23 % of a node's writes takes 15 of 60 (25 %) in four windows of
// ten, while 300 of 1,200 vouches for 22.6 % and 1 of 1 for 20 %. Wilson's
// bound stays inside [0, 1] and is sane at count = total, where the normal
// approximation says the share is certain. Exported for the truth corpus,
// which tells by it which of the one-shot's windows a key was graded at.
func ShareAssured(count, total float64) float64 {
	if total <= 0 || count <= 0 {
		return 0
	}
	p := min(1, count/total)
	z2 := float64(hotKeyZ * hotKeyZ)
	centre := p + z2/(2*total)
	spread := hotKeyZ * math.Sqrt(p*(1-p)/total+z2/(4*total*total))
	return max(0, (centre-spread)/(1+z2/total))
}

// topPartitions is Report.TopPartitions: per table the TopK largest, the TopK
// most tombstone-heavy and the TopK hottest keys, largest first.
func (a viewFigures) topPartitions() []PartitionEntry {
	var out []PartitionEntry
	for _, t := range a.tables {
		es := a.withLogKeys(t)
		keep := map[*PartitionEntry]bool{}
		for _, metric := range []func(*PartitionEntry) float64{
			func(e *PartitionEntry) float64 { return float64(e.SizeBytes) },
			func(e *PartitionEntry) float64 { return float64(e.Tombstones) },
			func(e *PartitionEntry) float64 { return e.OpsShare },
		} {
			sorted := append([]*PartitionEntry(nil), es...)
			sort.Slice(sorted, func(i, j int) bool {
				if mi, mj := metric(sorted[i]), metric(sorted[j]); mi != mj {
					return mi > mj
				}
				return sorted[i].Key < sorted[j].Key
			})
			for i := 0; i < len(sorted) && i < a.th.TopK && metric(sorted[i]) > 0; i++ {
				keep[sorted[i]] = true
			}
		}
		start := len(out)
		for e := range keep {
			out = append(out, *e)
		}
		part := out[start:]
		sort.Slice(part, func(i, j int) bool {
			x, y := &part[i], &part[j]
			return cmp.Or(
				cmp.Compare(y.SizeBytes, x.SizeBytes), // the largest first
				cmp.Compare(y.Tombstones, x.Tombstones),
				cmp.Compare(y.OpsShare, x.OpsShare),
				cmp.Compare(x.Key, y.Key),
			) < 0
		})
	}
	return out
}
