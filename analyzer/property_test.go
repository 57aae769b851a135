package analyzer

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/model"
)

// Property tests: seeded random snapshots, including contradictory ones
// (a mean above the largest partition, rows no sstable can hold, an error
// bound above a sampled count, keys at the index summary's floor), and
// invariants that every finding's figures must satisfy whatever the input
// (docs/detection.md "Invariants").

const propertySeeds = 400

func TestFindingsAreMutuallyPossible(t *testing.T) {
	th := DefaultThresholds()
	seen := map[string]int{}
	for seed := int64(1); seed <= propertySeeds; seed++ {
		s, h := genSnapshot(rand.New(rand.NewSource(seed)))
		r := Analyze(s, h, th)
		ids := map[string]bool{}
		for _, list := range [][]finding.Finding{r.Findings, r.Remarks} {
			for _, f := range list {
				seen[f.Kind]++
				if ids[f.ID] {
					t.Errorf("seed %d: two findings share ID %s (%s)", seed, f.ID, f.Kind)
				}
				ids[f.ID] = true
				for _, err := range findingInvariants(f, th) {
					t.Errorf("seed %d: %s %s.%s: %v\n  %s", seed, f.Kind, f.Keyspace, f.Table, err, f.Summary)
				}
			}
		}
		for _, f := range r.Remarks {
			if f.Severity != finding.SeverityInfo {
				t.Errorf("seed %d: remark %s at %v", seed, f.Kind, f.Severity)
			}
		}
		for _, e := range r.TopPartitions {
			if e.OpsShare < 0 || e.OpsShare > 1 {
				t.Errorf("seed %d: key %s share %g", seed, e.Key, e.OpsShare)
			}
		}
		again, _ := json.Marshal(Analyze(s, h, th))
		first, _ := json.Marshal(r)
		if string(again) != string(first) {
			t.Errorf("seed %d: two analyses of one snapshot differ", seed)
		}
	}
	// The generator must reach the rules, or the invariants test nothing.
	for _, k := range []string{KindOversizedPartition, KindWidePartition, KindHotPartition, KindHotTokenRange, KindTombstoneHeavy,
		KindOwnershipSkew, KindLoadSkew, KindLowCardinalityKey, KindUnbucketedTimeSeries, KindPartitionGrowthForecast, KindStaleData,
		KindAscendingTimeOrder, KindSecondaryIndexHighCard} {
		if seen[k] == 0 {
			t.Errorf("no %s in %d random snapshots: the generator does not exercise it", k, propertySeeds)
		}
	}
	t.Logf("findings by kind over %d snapshots: %v", propertySeeds, seen)
}

// severityInvariant: a warning or critical value reached its threshold.
func severityInvariant(kind string, sev finding.Severity, value, threshold float64) error {
	if math.IsNaN(value) || math.IsInf(value, 0) || math.IsNaN(threshold) || math.IsInf(threshold, 0) {
		return fmt.Errorf("value %g, threshold %g", value, threshold)
	}
	if sev < finding.SeverityInfo || sev > finding.SeverityCritical {
		return fmt.Errorf("severity %v", sev)
	}
	if sev < finding.SeverityWarning {
		return nil
	}
	const eps = 1e-9
	if LowerIsWorse(kind) {
		if value > threshold*(1+eps) {
			return fmt.Errorf("%v with value %g above its threshold %g", sev, value, threshold)
		}
	} else if value < threshold*(1-eps) {
		return fmt.Errorf("%v with value %g under its threshold %g", sev, value, threshold)
	}
	return nil
}

func findingInvariants(f finding.Finding, th Thresholds) []error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	add(severityInvariant(f.Kind, f.Severity, f.Value, f.Threshold))
	if f.ID == "" || f.Summary == "" || f.Advice == "" || f.Unit == "" {
		add(fmt.Errorf("incomplete: ID %q unit %q, summary or advice empty", f.ID, f.Unit))
	}
	for _, n := range f.Nodes {
		if err := severityInvariant(f.Kind, n.Severity, n.Value, n.Threshold); err != nil {
			add(fmt.Errorf("node %s: %w", n.Node, err))
		}
		if n.Severity > f.Severity {
			add(fmt.Errorf("node %s is %v, the finding only %v", n.Node, n.Severity, f.Severity))
		}
	}
	if f.Unit == finding.UnitRatio && (f.Kind == KindHotPartition || f.Kind == KindTombstoneHeavy) && (f.Value < 0 || f.Value > 1) {
		add(fmt.Errorf("a share of %g", f.Value))
	}
	if g := f.Figures; g != nil {
		add(figureInvariants(f, g, th))
	}
	return errs
}

func figureInvariants(f finding.Finding, g *finding.Figures, th Thresholds) error {
	const eps = 1e-9
	switch {
	case g.Rows > 0 && g.PartitionBytes > 0 && g.Rows*minRowBytes > g.PartitionBytes:
		return fmt.Errorf("%g rows cannot fit in %g bytes (%d bytes a row at least)", g.Rows, g.PartitionBytes, minRowBytes)
	case g.MeanPartitionBytes > 0 && g.PartitionBytes > 0 && g.MeanPartitionBytes/meanBound > g.PartitionBytes:
		return fmt.Errorf("mean partition %g above the largest %g", g.MeanPartitionBytes, g.PartitionBytes)
	case g.Share < 0 || g.Share > 1 || g.FairShare < 0 || g.FairShare > 1:
		return fmt.Errorf("shares %g of a fair %g", g.Share, g.FairShare)
	case f.Kind == KindHotTokenRange && (g.FairShare <= 0 || math.Abs(f.Value-g.Share/g.FairShare) > 1e-6*f.Value):
		return fmt.Errorf("skew %g is not its share %g ÷ fair share %g", f.Value, g.Share, g.FairShare)
	case f.Kind == KindLowCardinalityKey && (g.Partitions < 1 || g.DataBytes <= 0 ||
		// A count from the bytes cannot pass what maxCompression allows; a
		// count nodetool measured can (the data compresses better than that).
		!strings.Contains(f.Source, srcKeyCount) && g.Partitions*g.MeanPartitionBytes > maxCompression*meanBound*g.DataBytes*(1+eps)):
		return fmt.Errorf("%g partitions of %g bytes cannot be the data of %g bytes on disk", g.Partitions, g.MeanPartitionBytes, g.DataBytes)
	case f.Kind == KindLowCardinalityKey && g.Partitions != f.Value:
		return fmt.Errorf("value %g, partitions %g", f.Value, g.Partitions)
	case f.Kind == KindWidePartition && (g.Rows != f.Value || g.Rows < 1):
		return fmt.Errorf("value %g, rows %g", f.Value, g.Rows)
	case f.Kind == KindPartitionGrowthForecast:
		crit := float64(th.PartitionCriticalBytes)
		if g.GrowthBytesPerSecond <= 0 || g.CurrentBytes >= crit || f.Value <= 0 ||
			math.Abs(g.CurrentBytes+g.GrowthBytesPerSecond*f.Value-crit) > 1e-6*crit {
			return fmt.Errorf("forecast %g s from %g bytes at %g B/s does not reach %g", f.Value, g.CurrentBytes, g.GrowthBytesPerSecond, crit)
		}
	}
	return nil
}

// genSnapshot builds a random cluster: 1–6 nodes in one or two DCs with
// random tokens, a few keyspaces and tables with random schema and random,
// often contradictory, figures on random nodes, and a random history.
func genSnapshot(r *rand.Rand) (*model.Snapshot, *history.History) {
	b := newSnap()
	if r.Intn(5) == 0 {
		b.s.Engine = model.EngineScyllaDB
	}
	n := 1 + r.Intn(6)
	dcs := 1 + r.Intn(2)
	for i := 1; i <= n; i++ {
		toks := make([]int64, 1+r.Intn(3))
		for j := range toks {
			toks[j] = int64(r.Uint64())
		}
		sortInt64s(toks)
		b.node(hostID(i), addr(i), fmt.Sprintf("dc%d", 1+(i-1)%dcs), fmt.Sprintf("r%d", 1+r.Intn(3)), toks...)
	}
	for k := 0; k < 1+r.Intn(3); k++ {
		ks := fmt.Sprintf("ks%d", k)
		repl := simple(fmt.Sprint(1 + r.Intn(3)))
		if r.Intn(2) == 0 {
			repl = nts("dc1", fmt.Sprint(1+r.Intn(3)), "dc2", fmt.Sprint(r.Intn(3)))
		}
		var tables []model.Table
		for ti := 0; ti < 1+r.Intn(3); ti++ {
			tables = append(tables, genTable(r, fmt.Sprintf("t%d", ti)))
		}
		b.keyspace(ks, repl, tables...)
		for _, tb := range tables {
			for i := 1; i <= n; i++ {
				if r.Intn(6) > 0 {
					b.stats(hostID(i), ks, tb.Name, genStats(r))
					genKeys(r, b.nodeData(hostID(i)), ks, tb.Name)
				}
			}
		}
	}
	for i := 1; i <= n; i++ {
		if nd := b.s.PerNode[hostID(i)]; nd != nil && r.Intn(2) == 0 {
			nd.LoadBytes = float64(1+r.Intn(400)) * gib
		}
		state, last := model.StateOK, t0
		switch r.Intn(8) {
		case 0:
			state, last = model.StateError, t0.Add(-time.Duration(r.Intn(3600))*time.Second)
		case 1:
			state, last = model.StateError, time.Time{}
		}
		b.sources(model.SourceStatus{Source: "max_partition_size", Node: addr(i), State: state, Taken: t0, LastSuccess: last})
	}
	h := history.New(history.Limits{})
	for _, ks := range b.s.Schema.Keyspaces {
		for _, tb := range ks.Tables {
			if r.Intn(2) == 0 {
				continue
			}
			start, perDay := float64(r.Intn(120))*mib, float64(r.Intn(40))*mib*float64(r.Intn(2))
			h.Sizes[model.TableKey(ks.Name, tb.Name)] = series(t0.Unix(), 6+r.Intn(60), 3600, func(age float64) float64 {
				return max(0, start-perDay*age/86400)
			})
		}
	}
	return b.s, h
}

func genTable(r *rand.Rand, name string) model.Table {
	keys := [][2]string{{"id", "text"}, {"active", "boolean"}, {"user_id", "uuid"}, {"status", "text"}, {"sensor_id", "text"}}
	k := keys[r.Intn(len(keys))]
	cols := []model.Column{pk(k[0], k[1], 0)}
	switch r.Intn(4) {
	case 0:
		cols = append(cols, ck("ts", "timestamp", 0, []string{"asc", "desc"}[r.Intn(2)]))
	case 1:
		cols = append(cols, ck("seq", "int", 0, "asc"))
	case 2:
		cols = append(cols, ck("day", "date", 0, "desc"), ck("ts", "timeuuid", 1, "asc"))
	}
	cols = append(cols, col("email", "text"), col("value", "blob"))
	tb := table(name, cols...)
	if r.Intn(3) == 0 {
		tb.DefaultTTLSeconds = 86400 * (1 + r.Intn(60))
	}
	if r.Intn(4) == 0 {
		tb.Indexes = []model.Index{{Name: name + "_email", Kind: "COMPOSITES", Options: map[string]string{"target": "email"}}}
	}
	return tb
}

// pick returns one of the values, often a bucket bound or a floor.
func pick(r *rand.Rand, vs ...float64) float64 { return vs[r.Intn(len(vs))] }

func genStats(r *rand.Rand) model.TableStats {
	bound := func() float64 { return bucketBounds[r.Intn(90)] }
	mibs := func(n int) int64 { return int64(r.Intn(n)) * mib }
	ops := func() model.Ops {
		o := model.Ops{Count: int64(r.Intn(1_000_000)), Rate: pick(r, -1, 0, 0.5, 5, 50, 500), PerSecond: pick(r, 0, 1e-6, 0.01, 20)}
		return o
	}
	dist := func() model.Distribution {
		return model.Distribution{Count: int64(r.Intn(3) * 100), P50: pick(r, 0, 1, 5_722, bound()), P99: bound(), Max: pick(r, bound(), 126_934, 1_358_102)}
	}
	var counted *int64 // nodetool tablestats' distinct keys: unread, none, few, many
	if c := pick2(r, -1, -1, 0, 3, 128, int64(r.Intn(2_000_000))); c >= 0 {
		counted = &c
	}
	return model.TableStats{
		DistinctPartitions: counted,
		MaxPartitionBytes:  pick2(r, 0, mib, mibs(300)),
		MeanPartitionBytes: pick2(r, 0, int64(bound()), mibs(200)),
		PartitionsEstimate: pick2(r, 0, 1, 128, 384, int64(r.Intn(2_000_000))),
		DiskUsageBytes:     pick2(r, 0, mib, mibs(2_000)),
		LocalReads:         ops(), LocalWrites: ops(), LocalScans: ops(),
		TombstonesPerRead: dist(), RowsPerRead: dist(),
		MaxCellsPerPartition: pick2(r, 0, 0, int64(bound()), int64(bucketBounds[r.Intn(117)]), math.MaxInt64),
	}
}

func pick2(r *rand.Rand, vs ...int64) int64 { return vs[r.Intn(len(vs))] }

func genKeys(r *rand.Rand, nd *model.NodeData, ks, tb string) {
	for i := 0; i < r.Intn(3); i++ {
		key := fmt.Sprintf("k%d", r.Intn(4))
		typ, v := "SIZES", int64(r.Intn(300))*mib
		if r.Intn(2) == 0 {
			typ, v = "TOMBSTONES", int64(r.Intn(50_000))
		}
		nd.TopPartitions = append(nd.TopPartitions, model.TopPartition{Keyspace: ks, Table: tb, Type: typ, Key: key, Value: v, LastUpdate: t0})
	}
	if r.Intn(3) == 0 {
		nd.LargePartitions = append(nd.LargePartitions, model.LargePartition{Keyspace: ks, Table: tb, Key: fmt.Sprintf("k%d", r.Intn(4)),
			SizeBytes: int64(r.Intn(2_000)) * mib, Rows: int64(r.Intn(3_000_000))})
	}
	if r.Intn(3) == 0 {
		count := int64(r.Intn(5_000))
		nd.HotPartitions = append(nd.HotPartitions, model.HotPartition{Keyspace: ks, Table: tb, Key: fmt.Sprintf("k%d", r.Intn(4)),
			Op: []string{"read", "write"}[r.Intn(2)], Count: count, Error: int64(r.Intn(2_000)),
			Total: pick2(r, 0, count, count*int64(1+r.Intn(8))), Window: pick(r, 0, 10), Source: "nodetool"})
	}
}

func sortInt64s(xs []int64) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j] < xs[j-1]; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}
