package analyzer

import (
	"fmt"
	"math"
	"strings"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/internal/format"
	"github.com/partmon/partmon/model"
)

// maxCompression is how many times smaller than its data a table is
// assumed to be on disk at most: a compression ratio of at least 0.1.
// Cassandra compresses sstables (LZ4 by default) and no CQL source gives
// the ratio; nodetool tablestats measured 0.36 for the fixture tables, and
// LZ4 on pathological data can go lower (the summary says what is assumed).
const maxCompression = 10

// meanBound: the mean partition size is a mean of bucket upper bounds, up
// to ×1.2 above the true mean, so disk ÷ mean may count 1.2× too few.
const meanBound = 1.2

// hllUnder is how far under the true count nodetool's distinct-key count
// may read: three standard errors of a HyperLogLog with 2^13 registers
// (1.04 ÷ √8192 = 1.15 %), the precision of every sstable's key estimator
// (io/sstable/metadata/MetadataCollector: HyperLogLogPlus(13, 25)). Below a
// few thousand keys its sparse form (2^25 registers) is near exact.
var hllUnder = 3 * 1.04 / math.Sqrt(1<<13)

// srcKeyCount names nodetool tablestats' distinct-key counts behind a
// low_cardinality_key bound.
const srcKeyCount = "nodetool:tablestats"

// estimateSource names the partition count and mean size estimates: the
// collector reads them from system.size_estimates on either engine (the
// primary estimates, also table_estimates' 'primary' rows on Cassandra).
func (a lowCardinality) estimateSource() string { return "system.size_estimates" }

// replicaNodes counts the nodes holding some of the keyspace.
func (a lowCardinality) replicaNodes(ks *keyspaceView) int {
	n := 0
	for i := range a.s.Nodes {
		if holds(ks, &a.s.Nodes[i]) {
			n++
		}
	}
	return n
}

// holds says whether node n holds some of keyspace ks: effective ownership
// above 0, or any ring node when the ownership is unknown.
func holds(ks *keyspaceView, n *model.Node) bool {
	if ks == nil || ks.owns == nil {
		return len(n.Tokens) > 0
	}
	return ks.owns[n.HostID] > 0
}

// copies is how many replicas a keyspace keeps of each partition, all DCs
// together (Σ effective ownership); 1 when ownership is unknown.
func (a lowCardinality) copies(ks *keyspaceView) float64 {
	if ks == nil || ks.owns == nil {
		return 1
	}
	var sum float64
	for _, o := range ks.owns {
		sum += o
	}
	return max(1, math.Round(sum))
}

// cardinality is what the sources say of a table's number of partitions,
// one replica of the data.
type cardinality struct {
	keys    float64 // the summed key estimate (estimatePartitions)
	disk    float64 // one replica on disk: Σ disk usage ÷ Σ effective ownership of the nodes reporting it
	mean    float64 // mean partition size, uncompressed
	byBytes float64 // disk ÷ mean: errs low by the compression ratio
	// upper is the most partitions the evidence allows; 0 when unknown.
	upper float64
	// keysAtFloor: the key estimate is more than the bytes can hold, i.e.
	// the index summary's floor (128 keys a sample, per sstable and range).
	keysAtFloor bool
	// contradictory: the mean partition is larger than the data on disk can hold.
	contradictory bool
	// counted is the partitions by nodetool tablestats' distinct-key counts
	// (countedKeys ÷ copies, +hllUnder); 0 when some node holding the
	// keyspace gave none.
	// countedKeys is their sum over the nodes, countedNodes how many.
	counted, countedKeys, copies float64
	countedNodes                 int
}

// tableCardinality cross-checks the two estimates of a table's partitions.
// The key estimate (table_estimates / size_estimates) counts index summary
// samples: at least 1, and 128 per sample, per sstable and range, so a
// table of a handful of keys reads as about 128 per sstable; on ScyllaDB
// before 2025.4.9 it also counts one shard only. Bytes do not have that
// floor: one replica's disk usage ÷ the mean partition size counts the
// partitions the data holds, low by the compression ratio (disk usage is
// compressed, the mean is not; the mean is a bucket bound), so at most
// maxCompression × meanBound × that many fit. That bound counts partition
// fragments, one per sstable holding the key, so it loosens as sstables
// accumulate (a day-keyed table whose today's partition is flushed again
// and again). A key estimate under that bound narrows it; nodetool's
// distinct-key counts, when every node holding the keyspace gave one, are
// the bound. Without disk usage the count is unknown.
func (a *analysis) tableCardinality(t *tableView) cardinality {
	c := cardinality{keys: t.partitions, mean: t.meanBytes}
	c.countedKeys, c.countedNodes = lowCardinality{a}.countedKeys(t)
	if c.countedKeys > 0 {
		c.copies = lowCardinality{a}.copies(t.ks)
		c.counted = c.countedKeys * (1 + hllUnder) / c.copies
	}
	var disk, owned float64
	for _, tn := range t.nodes {
		if tn.stats.DiskUsageBytes <= 0 {
			continue
		}
		o := 1.0
		if t.ks != nil && t.ks.owns != nil {
			// A node holds at most all of the data. nodetool's rounded
			// shares (ring/ownership.go) sum to a hair over 1 on a vnode ring
			// (1.000001 with 16 tokens a node): uncapped, a table at the
			// floor read as 1 byte under it.
			o = min(1, t.ks.owns[tn.node.HostID])
		}
		disk += float64(tn.stats.DiskUsageBytes)
		owned += o
	}
	if disk <= 0 || owned <= 0 || c.mean <= 0 {
		return c
	}
	c.disk = disk / owned
	c.byBytes = c.disk / c.mean
	c.upper = maxCompression * meanBound * c.byBytes
	if c.upper < 1 {
		// Not even one mean partition fits the data on disk: the figures
		// are from different moments or sstables. Unknown.
		c.contradictory, c.upper = true, 0
		return c
	}
	c.keysAtFloor = c.keys > c.upper
	if c.keys > 0 && !c.keysAtFloor {
		c.upper = max(c.keys, c.byBytes)
	}
	if c.counted > 0 {
		c.upper = c.counted
	}
	return c
}

// countedKeys sums nodetool tablestats' "Number of partitions (estimate)"
// over the nodes holding the keyspace: on each node its sstables' key
// estimators merged (a key in many sstables counts once) plus its
// memtables' partitions (which may also be on disk: it counts high, never
// low, but for hllUnder). Every partition has copies replicas, so the sum ÷
// copies counts each once. 0 (unknown) when a node holding some of the
// keyspace gave no count: its keys could be anywhere.
func (a lowCardinality) countedKeys(t *tableView) (float64, int) {
	byHost := map[string]int64{}
	for _, tn := range t.nodes {
		if n := tn.stats.DistinctPartitions; n != nil {
			byHost[tn.node.HostID] = *n
		}
	}
	if len(byHost) == 0 {
		return 0, 0
	}
	var sum float64
	nodes := 0
	for i := range a.s.Nodes {
		n := &a.s.Nodes[i]
		if !holds(t.ks, n) {
			continue
		}
		c, ok := byHost[n.HostID]
		if !ok {
			return 0, 0
		}
		sum += float64(c)
		nodes++
	}
	return sum, nodes
}

// ruleLowCardinalityKey: a table with data whose partitions are fewer than
// LowCardinalityPartitionsPerNode per node, by tableCardinality's upper
// bound, or whose partition key's types cannot take that many values
// (boolean, tinyint). Tables whose count is unknown (no disk usage, only in
// memtables) and tables under LowCardinalityMinTableBytes on disk are not
// judged. Warning when one replica of the data reaches the partition
// warning size, or when the partitions' replicas are fewer than the nodes
// (some nodes hold none of the table); info otherwise.
func ruleLowCardinalityKey(a *analysis) []finding.Finding {
	var out []finding.Finding
	for _, t := range a.tables {
		if t.schema == nil {
			continue
		}
		c := a.tableCardinality(t)
		if c.disk < float64(a.th.LowCardinalityMinTableBytes) {
			continue
		}
		if c.contradictory {
			a.note("low_cardinality_key of %s unknown: its mean partition (%s) is more than %d× its data on disk per replica (%s)",
				t.key, format.Bytes(c.mean), maxCompression, format.Bytes(c.disk))
			continue
		}
		nodes := max(1, lowCardinality{a}.replicaNodes(t.ks))
		limit := a.th.LowCardinalityPartitionsPerNode * float64(nodes)
		key := partitionKey(t.schema)
		typeCap := keyTypeCardinality(key)
		upper := c.upper
		if typeCap > 0 && (upper <= 0 || typeCap < upper) {
			upper = typeCap
		}
		if upper <= 0 || upper >= limit {
			continue
		}
		sev := finding.SeverityInfo
		if c.disk >= float64(a.th.PartitionWarningBytes) || upper*(lowCardinality{a}).copies(t.ks) < float64(nodes) {
			sev = finding.SeverityWarning
		}
		f := a.newFinding(KindLowCardinalityKey, sev, nil, t.keyspace, t.name)
		f.Value, f.Threshold, f.Unit = upper, limit, finding.UnitPartitions
		f.Source = joinSources(lowCardinality{a}.estimateSource(), "system_views.disk_usage", "system_schema.columns")
		if c.counted > 0 {
			f.Source = joinSources(lowCardinality{a}.estimateSource(), "system_views.disk_usage", srcKeyCount, "system_schema.columns")
		}
		f.Figures = &finding.Figures{Partitions: upper, DataBytes: c.disk, MeanPartitionBytes: c.mean}
		f.Summary = lowCardinalitySummary(t, c, key, typeCap, upper, nodes, a.th.LowCardinalityPartitionsPerNode)
		f.Advice, f.SuggestedKey = lowCardinality{a}.lowCardinalityAdvice(t, limit, upper, c)
		out = append(out, f)
	}
	return out
}

// keyTypeCardinality is how many values the partition key's types allow
// together, when that is small; 0 means effectively unbounded.
func keyTypeCardinality(key []model.Column) float64 {
	if len(key) == 0 {
		return 0
	}
	n := 1.0
	for _, c := range key {
		cap := typeCardinality(c.Type)
		if cap <= 0 {
			return 0
		}
		n *= cap
	}
	return n
}

func lowCardinalitySummary(t *tableView, c cardinality, key []model.Column, typeCap, upper float64, nodes int, perNode float64) string {
	var keyDesc, enums []string
	for _, col := range key {
		keyDesc = append(keyDesc, col.Name+" "+col.Type)
		if looksEnumLike(col) {
			enums = append(enums, col.Name)
		}
	}
	s := fmt.Sprintf("%s has at most ~%s partitions for %d nodes (fewer than %s per node)", t.key, format.Count(math.Ceil(upper)), nodes, format.Count(perNode))
	switch {
	case c.counted > 0 && c.counted <= upper:
		s += fmt.Sprintf(": nodetool tablestats counts %s keys over the %d nodes holding it, each key on %s of them (per node a HyperLogLog of its sstables' keys, once however many sstables hold one, plus its memtables' partitions, which may count a flushed key again; +%.1f %% for the estimator's error)",
			format.Count(c.countedKeys), c.countedNodes, format.Count(c.copies), 100*hllUnder)
	case c.byBytes > 0:
		s += fmt.Sprintf(": %s on disk per replica ÷ mean partition %s = ~%s, and disk bytes are compressed (assumed at most %d×) while the mean may be 1.2× high",
			format.Bytes(c.disk), format.Bytes(c.mean), format.Count(math.Max(1, math.Round(c.byBytes))), maxCompression)
	}
	switch {
	case c.keysAtFloor:
		s += fmt.Sprintf("; the key estimate (%s) is the index summary's floor, about 128 per sstable and range whatever the keys, so it cannot count fewer", format.Count(c.keys))
	case c.keys > 0:
		s += fmt.Sprintf("; key estimate %s", format.Count(c.keys))
	}
	s += fmt.Sprintf("; partition key (%s)", strings.Join(keyDesc, ", "))
	if typeCap > 0 && typeCap <= upper {
		s += fmt.Sprintf(" can take at most %s values", format.Count(typeCap))
	} else if len(enums) > 0 {
		s += fmt.Sprintf(": %s looks like an enum", strings.Join(enums, ", "))
	}
	return s
}

func (a lowCardinality) lowCardinalityAdvice(t *tableView, limit, upper float64, c cardinality) (advice, key string) {
	k := max(2, int(math.Ceil(limit/max(upper, 1))))
	after := upper * float64(k)
	advice = fmt.Sprintf("add a column with many values to the partition key: %d sub-partitions per current key bring ~%s partitions to ~%s",
		k, format.Count(math.Ceil(upper)), format.Count(math.Ceil(after)))
	if c.disk > 0 {
		advice += fmt.Sprintf(" (~%s on disk each)", format.Bytes(c.disk/after))
	}
	if col, ok := timeClustering(t); ok && !hasBucket(t) {
		advice += fmt.Sprintf("; the table clusters by %s, so a time bucket of it is the natural choice", col)
		if t.maxBytes > 0 {
			split, k := bucketAdvice{a.analysis}.splitAdvice(t, float64(t.maxBytes))
			advice, key = advice+" ("+split+")", k
		}
	} else {
		advice += "; e.g. the entity id the rows belong to, or a shard 0.." + fmt.Sprint(k-1) + " chosen by a hash, with reads querying every shard"
	}
	return advice, key
}

// lowCardinality is the low_cardinality_key rule's own reasoning over the index.
type lowCardinality struct{ *analysis }

// KindLowCardinalityKey names the low_cardinality_key findings.
const KindLowCardinalityKey = "low_cardinality_key"

func init() {
	registerKind(8, KindFacts{Name: KindLowCardinalityKey, Label: "low-cardinality partition key",
		Sentence:     "The partition key has too few distinct values to spread the data over the nodes.",
		LowerIsWorse: true, RuleAlert: AlertAnalyzerFinding, TableWide: true,
		scope: scopeTable, problemOrder: 6, splitOrder: 2, rule: ruleLowCardinalityKey})
}

// The thresholds the rule reads, each declared once, here, with why
// (thresholds.go: their check, unit and series).
func init() {
	registerThresholds([]thresholdSpec{
		// With P partitions hashed over N nodes, a node's count varies by
		// about 1/√(P/N): 100 per node keeps that near 10 %, half the load
		// skew warning.
		{key: "low_cardinality_partitions_per_node", unit: thresholdCount, check: mustBePositive, def: 100, readBy: []string{KindLowCardinalityKey}},
		{key: "low_cardinality_min_table_bytes", unit: thresholdBytes, check: mustBePositive, def: 1 * mib, readBy: []string{KindLowCardinalityKey}},
	})
}
