package analyzer

import (
	"math"
	"strings"
	"testing"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/model"
)

func TestRuleLowCardinalityKey(t *testing.T) {
	status := table("orders_by_status", pk("status", "text", 0), ck("order_id", "timeuuid", 0, "asc"), col("amount", "int"))
	byCountry := table("orders_by_country", pk("country", "text", 0), ck("order_id", "bigint", 0, "asc"))
	flag := table("by_flag", pk("active", "boolean", 0), ck("id", "uuid", 0, "asc"))
	users := table("users", pk("user_id", "uuid", 0), col("email", "text"))
	latest := table("latest_videos", pk("yyyymmdd", "text", 0), ck("added_date", "timestamp", 0, "desc"), ck("videoid", "uuid", 1, "asc"), col("name", "text"))
	type node struct {
		keys, mean, disk int64
		counted          *int64 // nodetool tablestats' distinct keys; nil not read
	}
	n := func(v int64) *int64 { return &v }
	// KillrVideo's latest_videos as the truth corpus's daemon saw it: 7 day keys,
	// RF 1, today's partition flushed again and again, so the mean fragment
	// fell to ~190 KiB while each node's key estimate sits at its floor
	// (128 per sstable): the bytes bound passes the 300 limit.
	videos := func(counted ...*int64) []node {
		return []node{{6 * 128, 190 * kib, 3 * mib, counted[0]}, {4 * 128, 190 * kib, 2 * mib, counted[1]}, {3 * 128, 190 * kib, 2 * mib, counted[2]}}
	}
	three := func(keys, mean, disk int64) []node {
		return []node{{keys, mean, disk, nil}, {keys, mean, disk, nil}, {keys, mean, disk, nil}}
	}
	cases := []struct {
		name   string
		tbl    model.Table
		repl   map[string]string
		nodes  []node
		want   finding.Severity
		value  float64
		inText []string
	}{
		{name: "fresh empty table", tbl: status, nodes: three(0, 0, 0)},
		{name: "count unknown without disk usage", tbl: status, nodes: three(1, 1*mib, 0)},
		{name: "under the minimum on disk", tbl: status, nodes: three(1, 100*kib, 512*kib)},
		// Measured on the fixture: 3 keys, RF 3, one sstable per node.
		{name: "the fixture's three statuses", tbl: status, nodes: []node{{1, 943_127, 1 * mib, nil}, {128, 943_127, 1 * mib, nil}, {1, 943_127, 1 * mib, nil}},
			want: finding.SeverityInfo, value: maxCompression * meanBound * float64(mib) / 943_127,
			inText: []string{"ks.orders_by_status has at most ~14 partitions for 3 nodes (fewer than 100 per node)",
				"1.0 MiB on disk per replica ÷ mean partition 921 KiB = ~1", "the key estimate (130) is the index summary's floor", "status looks like an enum"}},
		// Truth scenario 01 (orders by country): 5 countries, RF 1, 200,000 rows; the key estimate
		// read 341 (128 on each node holding an sstable), above the 300 limit.
		{name: "truth scenario 01: five countries at the floor", tbl: byCountry, repl: simple("1"),
			nodes: []node{{128, 1_955_666, 2 * mib, nil}, {128, 1_955_666, 2 * mib, nil}, {85, 1_955_666, 1 * mib, nil}},
			want:  finding.SeverityInfo, value: maxCompression * meanBound * 5 * float64(mib) / 1_955_666,
			inText: []string{"at most ~33 partitions", "the key estimate (341) is the index summary's floor"}},
		{name: "enough partitions by both counts", tbl: status, nodes: three(100, 10*kib, 3*mib)},
		{name: "a key estimate the bytes allow", tbl: status, nodes: three(99, 10*kib, 2*mib), want: finding.SeverityInfo, value: 297,
			inText: []string{"key estimate 297"}},
		{name: "boolean key: two values at most", tbl: flag, nodes: three(1, 2*mib, 2*mib), want: finding.SeverityInfo, value: 2,
			inText: []string{"(active boolean) can take at most 2 values"}},
		{name: "boolean key, RF 1: a node holds none", tbl: flag, repl: simple("1"), nodes: three(1, 2*mib, 2*mib), want: finding.SeverityWarning, value: 2},
		{name: "much data in few partitions", tbl: status, nodes: three(128, 30*mib, 60*mib), want: finding.SeverityWarning, value: 24},
		{name: "many users", tbl: users, nodes: three(6_700, 79, 2*mib)},
		{name: "day keys in many fragments, not counted: the bytes bound passes", tbl: latest, repl: simple("1"), nodes: videos(nil, nil, nil)},
		// 3 + 2 + 2 keys, and today's partition in the first node's memtable
		// as well as on its disk: 8 counted.
		{name: "day keys in many fragments, counted by nodetool", tbl: latest, repl: simple("1"), nodes: videos(n(4), n(2), n(2)),
			want: finding.SeverityInfo, value: 8 * (1 + hllUnder),
			inText: []string{"at most ~9 partitions", "nodetool tablestats counts 8 keys over the 3 nodes holding it, each key on 1 of them",
				"the key estimate (1,664) is the index summary's floor", "a shard 0..36 chosen by a hash"}},
		{name: "one node holding some of it gave no count: the bytes bound only", tbl: latest, repl: simple("1"), nodes: videos(n(4), nil, n(2))},
		{name: "RF 3: each key counted on three nodes", tbl: latest, nodes: videos(n(7), n(7), n(7)),
			want: finding.SeverityInfo, value: 7 * (1 + hllUnder), inText: []string{"21 keys over the 3 nodes holding it, each key on 3 of them"}},
		{name: "two keys, RF 1: a node counts none", tbl: status, repl: simple("1"), nodes: []node{{128, 2 * mib, 2 * mib, n(1)}, {128, 2 * mib, 2 * mib, n(1)}, {0, 0, 0, n(0)}},
			want: finding.SeverityWarning, value: 2 * (1 + hllUnder)},
		// The counts speak over the bytes: a compression ratio past the
		// assumed 10× (LZ4 on repetitive values) makes the bytes bound wrong.
		{name: "counted many where the bytes allow few", tbl: status, nodes: []node{{128, 30 * mib, 60 * mib, n(2_000)}, {128, 30 * mib, 60 * mib, n(2_000)}, {128, 30 * mib, 60 * mib, n(2_000)}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			repl := c.repl
			if repl == nil {
				repl = simple("3")
			}
			b := newSnap().ring("dc1", 3).keyspace("ks", repl, c.tbl)
			for i, n := range c.nodes {
				b.stats(hostID(i+1), "ks", c.tbl.Name, model.TableStats{PartitionsEstimate: n.keys, MeanPartitionBytes: n.mean, DiskUsageBytes: n.disk, DistinctPartitions: n.counted})
			}
			fs := ruleLowCardinalityKey(analysisOf(t, b.s))
			if c.want == finding.SeverityNone {
				if len(fs) != 0 {
					t.Fatalf("want none, got %+v", fs)
				}
				return
			}
			if len(fs) != 1 || fs[0].Severity != c.want || fs[0].Unit != finding.UnitPartitions || fs[0].Threshold != 300 ||
				math.Abs(fs[0].Value-c.value) > 0.01 {
				t.Fatalf("got %+v, want one %v with value %g", fs, c.want, c.value)
			}
			for _, s := range c.inText {
				if !strings.Contains(fs[0].Summary+" | "+fs[0].Advice, s) {
					t.Errorf("missing %q in %q | %q", s, fs[0].Summary, fs[0].Advice)
				}
			}
		})
	}
}

func TestLowCardinalityWarnsWhenSomeNodesHoldNone(t *testing.T) {
	tb := table("by_flag", pk("active", "boolean", 0), ck("id", "int", 0, "asc"))
	b := newSnap().ring("dc1", 9).keyspace("ks", nts("dc1", "3"), tb)
	// A boolean key: two partitions, six replicas for nine nodes.
	for _, h := range []string{"h01", "h02", "h03", "h04", "h05", "h06"} {
		b.stats(h, "ks", "by_flag", model.TableStats{PartitionsEstimate: 128, MeanPartitionBytes: 3 * mib, DiskUsageBytes: 1 * mib})
	}
	fs := ruleLowCardinalityKey(analysisOf(t, b.s))
	if len(fs) != 1 || fs[0].Severity != finding.SeverityWarning || fs[0].Value != 2 {
		t.Fatalf("want one warning of 2 partitions, got %+v", fs)
	}
	// With the bytes alone (up to 10× compression) it cannot be sure some node holds none.
	b.s.Schema.Keyspaces[0].Tables[0] = table("by_flag", pk("region", "text", 0), ck("id", "int", 0, "asc"))
	if fs := ruleLowCardinalityKey(analysisOf(t, b.s)); len(fs) != 1 || fs[0].Severity != finding.SeverityInfo {
		t.Fatalf("want one info, got %+v", fs)
	}
}

func TestRuleUnbucketedTimeSeries(t *testing.T) {
	readings := table("readings", pk("sensor_id", "text", 0), ck("ts", "timestamp", 0, "asc"), col("value", "double"))
	withTTL := readings
	withTTL.DefaultTTLSeconds = 30 * 86400
	// The design guidance's recommended table (truth scenario 07, viewing history).
	viewing := table("viewing_history", pk("user_id", "uuid", 0), ck("watched_at", "timestamp", 0, "desc"), ck("content_id", "uuid", 1, "asc"),
		col("content_title", "text"), col("progress_seconds", "int"))
	bucketed := table("readings_by_day", pk("sensor_id", "text", 0), pk("day", "date", 1), ck("ts", "timestamp", 0, "desc"))
	bucketInt := table("readings_by_bucket", pk("sensor_id", "text", 0), pk("bucket", "int", 1), ck("ts", "timeuuid", 0, "desc"))
	noTime := table("events", pk("id", "text", 0), ck("seq", "int", 0, "asc"))
	// NoSQLBench's cql-iot table: no bucket, no TTL, hourly TWCS windows.
	twcs := readings
	twcs.Compaction = map[string]string{"class": "org.apache.cassandra.db.compaction.TimeWindowCompactionStrategy",
		"compaction_window_size": "60", "compaction_window_unit": "MINUTES"}
	twcsTTL := twcs
	twcsTTL.DefaultTTLSeconds = 86400
	const twcsNote = "unbucketed_time_series of ks.readings unknown: written, clustered by ts with no time bucket in its partition key and no default TTL; " +
		"with TimeWindowCompactionStrategy in windows of 60 minutes no background compaction merges a partition's fragments of different windows, " +
		"so max_partition_size (up to 1.0 MiB) shows at most one window's worth of a partition, and a flat history does not mean its partitions stay small"
	const flat = -1.0 // a history that does not grow
	cases := []struct {
		name      string
		tbl       model.Table
		max       int64
		mibPerDay float64 // 0: no history
		writes    int64   // local writes since the node started
		sampled   int64   // writes the sampler counted for the busiest key in 10 s (0: no sample)
		deleted   bool    // reads met tombstones lately
		want      finding.Severity
		value     float64
		unit      string // "": bytes
		inText    []string
		note      string // in the note saying growth is unknown; "": no note
	}{
		{name: "empty", tbl: readings, max: 0, writes: 100},
		{name: "small, no history, never written: the schema alone says nothing", tbl: readings, max: 1 * mib},
		{name: "small, no history, written: growth unknown, said so", tbl: readings, max: 1 * mib, writes: 100,
			note: "unbucketed_time_series of ks.readings unknown: written, clustered by ts with no time bucket in its partition key and no default TTL; " +
				"whether its partitions keep growing needs 6 points over 60 minutes of history (have one collection); its largest partition fragment is up to 1.0 MiB (max_partition_size)"},
		{name: "the guidance's viewing history, measured flat", tbl: viewing, max: 1 * mib, mibPerDay: flat, writes: 100},
		{name: "small and flat under a TTL", tbl: withTTL, max: 10*mib - 1, writes: 100},
		{name: "small, written, growing slowly", tbl: readings, max: 2 * mib, mibPerDay: 1, writes: 100},
		{name: "large, growth not measured yet", tbl: readings, max: 10 * mib, want: finding.SeverityInfo, value: 10 * testMiB,
			inText: []string{"largest partition up to 10 MiB: growth is not measured yet"}},
		{name: "large and measured flat", tbl: readings, max: 10 * mib, mibPerDay: flat},
		{name: "at the warning size", tbl: readings, max: 50 * mib, want: finding.SeverityWarning, value: 50 * testMiB},
		{name: "growing fast without TTL", tbl: readings, max: 2 * mib, mibPerDay: 16, want: finding.SeverityWarning, value: (2 + 16*7) * testMiB,
			inText: []string{"growing 16 MiB/day", "at this rate it reaches 50 MiB in 3.0 d", "no default TTL: it grows for as long as its key is written",
				"add a day bucket of ts to the partition key (sensor_id)"}},
		{name: "growing within the history's horizon", tbl: readings, max: 2 * mib, mibPerDay: 4, want: finding.SeverityInfo, value: (2 + 4*14) * testMiB,
			inText: []string{"reaches 50 MiB in 12.0 d"}},
		{name: "growing slowly", tbl: readings, max: 2 * mib, mibPerDay: 1},
		{name: "growing under a TTL that bounds it", tbl: withTTL, max: 2 * mib, mibPerDay: 1},
		{name: "growing under a TTL too long for it", tbl: withTTL, max: 2 * mib, mibPerDay: 2, want: finding.SeverityInfo, value: 60 * testMiB,
			inText: []string{"a TTL's worth of this growth is 60 MiB", "default TTL 30.0 d bounds it"}},
		// TWCS keeps one fragment of a partition per window: flat is no evidence.
		{name: "TWCS, no history", tbl: twcs, max: 1 * mib, writes: 100, note: twcsNote},
		{name: "TWCS, measured flat", tbl: twcs, max: 1 * mib, mibPerDay: flat, writes: 100, note: twcsNote},
		{name: "TWCS, growing within a window", tbl: twcs, max: 2 * mib, mibPerDay: 16, writes: 100, want: finding.SeverityWarning, value: (2 + 16*7) * testMiB},
		{name: "TWCS under a TTL, flat", tbl: twcsTTL, max: 1 * mib, mibPerDay: flat, writes: 100},
		// The sampler's write rate into one key: growth the size history cannot show yet.
		{name: "a key written fast, no size history: info from the sampler", tbl: readings, max: 1 * mib, writes: 100, sampled: 15,
			want: finding.SeverityInfo, value: (15 - 2*math.Sqrt(15)) / 10, unit: finding.UnitOpsPerSec,
			inText: []string{"largest partition up to 1.0 MiB: its busiest key s1 took 15 writes in 10 s on 10.0.0.1 (at least 0.73 writes/s by that sample)",
				"every write at a new ts adds a row that stays: at that rate it passes 100,000 rows (the wide partition warning) in 38.3 h",
				"add an hour bucket of ts to the partition key (sensor_id): at 0.73 writes/s one bucket then holds ~2,611 rows, under half the 100,000-row wide partition warning"}},
		// 6 writes in 10 s assure 0.11/s: 100,000 rows would take more than the 7-day forecast_warning.
		{name: "a key written slowly: still unknown", tbl: readings, max: 1 * mib, writes: 100, sampled: 6,
			note: "unbucketed_time_series of ks.readings unknown: written, clustered by ts with no time bucket in its partition key and no default TTL; " +
				"whether its partitions keep growing needs 6 points over 60 minutes of history (have one collection); its largest partition fragment is up to 1.0 MiB (max_partition_size)"},
		{name: "written fast under a TTL: bounded", tbl: withTTL, max: 1 * mib, writes: 100, sampled: 40},
		// A queue: the WRITES sampler counts deletes too, and reads meet their tombstones.
		{name: "written fast, reads meet tombstones: not rows that stay", tbl: readings, max: 1 * mib, writes: 100, sampled: 40, deleted: true,
			note: "unbucketed_time_series of ks.readings unknown: written, clustered by ts with no time bucket in its partition key and no default TTL; " +
				"whether its partitions keep growing needs 6 points over 60 minutes of history (have one collection); its largest partition fragment is up to 1.0 MiB (max_partition_size)"},
		{name: "large with no history, written fast: the measured size speaks", tbl: readings, max: 14 * mib, writes: 100, sampled: 40,
			want: finding.SeverityInfo, value: 14 * testMiB, inText: []string{"growth is not measured yet"}},
		{name: "written fast, measured flat: the size history speaks", tbl: readings, max: 1 * mib, mibPerDay: flat, writes: 100, sampled: 40},
		{name: "TWCS, measured flat, written fast", tbl: twcs, max: 1 * mib, mibPerDay: flat, writes: 100, sampled: 15,
			want: finding.SeverityInfo, value: (15 - 2*math.Sqrt(15)) / 10, unit: finding.UnitOpsPerSec},
		{name: "date bucket present", tbl: bucketed, max: 80 * mib},
		{name: "int bucket present", tbl: bucketInt, max: 80 * mib},
		{name: "not a time series", tbl: noTime, max: 80 * mib},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newSnap().ring("dc1", 1).keyspace("ks", simple("1"), c.tbl)
			st := model.TableStats{MaxPartitionBytes: c.max}
			st.LocalWrites.Count = c.writes
			// The first bucket's bound is 1: reads that met no tombstone read 1.
			st.TombstonesPerRead = model.Distribution{Count: 50, P50: 1, P99: 1, Max: 1}
			if c.deleted {
				st.TombstonesPerRead = model.Distribution{Count: 50, P50: 1, P99: 2, Max: 2}
			}
			b.stats("h01", "ks", c.tbl.Name, st)
			if c.sampled > 0 {
				nd := b.nodeData("h01")
				nd.HotPartitions = append(nd.HotPartitions,
					model.HotPartition{Keyspace: "ks", Table: c.tbl.Name, Key: "s1", Op: "write", Count: c.sampled, Window: 10, Source: "nodetool"},
					model.HotPartition{Keyspace: "ks", Table: c.tbl.Name, Key: "s2", Op: "write", Count: c.sampled / 2, Window: 10, Source: "nodetool"})
			}
			h := history.New(history.Limits{})
			if c.mibPerDay != 0 {
				rate := max(c.mibPerDay, 0)
				// Two days of hourly points ending at the current size.
				h.Sizes["ks."+c.tbl.Name] = series(t0.Unix(), 48, 3600, func(age float64) float64 { return float64(c.max) - rate*mib*age/86400 })
			}
			a := analysisWith(t, b.s, h, DefaultThresholds())
			fs := ruleUnbucketedTimeSeries(a)
			switch {
			case c.note == "" && len(a.notes) != 0:
				t.Errorf("want no note, got %q", a.notes)
			case c.note != "" && (len(a.notes) != 1 || a.notes[0] != c.note):
				t.Errorf("notes %q, want\n%q", a.notes, c.note)
			}
			if c.want == finding.SeverityNone {
				if len(fs) != 0 {
					t.Fatalf("want none, got %+v", fs)
				}
				return
			}
			unit, tol := finding.UnitBytes, 0.01*testMiB
			if c.unit != "" {
				unit, tol = c.unit, 1e-9
			}
			if len(fs) != 1 || fs[0].Severity != c.want || math.Abs(fs[0].Value-c.value) > tol || fs[0].Unit != unit || fs[0].Value < fs[0].Threshold {
				t.Fatalf("got %+v, want one %v of %g", fs, c.want, c.value)
			}
			for _, s := range c.inText {
				if !strings.Contains(fs[0].Summary+" | "+fs[0].Advice, s) {
					t.Errorf("missing %q in %q | %q", s, fs[0].Summary, fs[0].Advice)
				}
			}
		})
	}
}

func TestRuleSecondaryIndexHighCardinality(t *testing.T) {
	base := func(ix ...model.Index) model.Table {
		tb := table("users", pk("user_id", "uuid", 0), col("email", "text"), col("country", "text"),
			col("session", "timeuuid"), col("tags", "set<text>"))
		tb.Indexes = ix
		return tb
	}
	legacy := func(name, target string) model.Index {
		return model.Index{Name: name, Kind: "COMPOSITES", Options: map[string]string{"target": target}}
	}
	cases := []struct {
		name   string
		engine model.Engine
		ix     model.Index
		scans  float64 // the table's range reads per second on each node
		want   finding.Severity
		remark bool
		inText []string
	}{
		{name: "email: id-like name, not known to be queried", ix: legacy("users_email", "email"), want: finding.SeverityInfo, remark: true,
			inText: []string{"index users_email (legacy secondary index) on ks.users(email) covers a column that looks unique (name email)",
				"whether it is queried is not measured", "lookup table keyed by email"}},
		{name: "email, queried", ix: legacy("users_email", "email"), scans: 2, want: finding.SeverityWarning,
			inText: []string{"the table serves 6.0 ops/s of range reads"}},
		{name: "range reads under the floor", ix: legacy("users_email", "email"), scans: 0.2, want: finding.SeverityInfo, remark: true},
		{name: "timeuuid type", ix: legacy("users_session", "values(session)"), scans: 5, want: finding.SeverityWarning, inText: []string{"type timeuuid"}},
		{name: "country is low cardinality", ix: legacy("users_country", "country"), scans: 5},
		{name: "collection index not judged", ix: legacy("users_tags", "values(tags)"), scans: 5},
		{name: "SAI, queried: info", ix: model.Index{Name: "users_email_sai", Kind: "CUSTOM",
			Options: map[string]string{"target": "email", "class_name": "org.apache.cassandra.index.sai.StorageAttachedIndex"}},
			scans: 5, want: finding.SeverityInfo, inText: []string{"custom index StorageAttachedIndex"}},
		{name: "ScyllaDB global index is built for this", engine: model.EngineScyllaDB, ix: legacy("users_email", "email")},
		// ScyllaDB gives partmon no range-read count: a remark.
		{name: "ScyllaDB local index", engine: model.EngineScyllaDB, scans: 5,
			ix: legacy("users_email_local", `{"pk":["user_id"],"ck":["email"]}`), want: finding.SeverityInfo, remark: true, inText: []string{"ScyllaDB local secondary index"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newSnap().ring("dc1", 3).keyspace("ks", simple("3"), base(c.ix))
			if c.engine != "" {
				b.s.Engine = c.engine
			}
			for i := 1; i <= 3; i++ {
				b.stats(hostID(i), "ks", "users", model.TableStats{LocalScans: model.Ops{Count: 100, Rate: c.scans}})
			}
			fs := ruleSecondaryIndexHighCardinality(analysisOf(t, b.s))
			if c.want == finding.SeverityNone {
				if len(fs) != 0 {
					t.Fatalf("want none, got %+v", fs)
				}
				return
			}
			if len(fs) != 1 || fs[0].Severity != c.want || fs[0].Table != "users" || fs[0].Remark != c.remark {
				t.Fatalf("got %+v, want one %v (remark %v)", fs, c.want, c.remark)
			}
			for _, s := range c.inText {
				if !strings.Contains(fs[0].Summary+" | "+fs[0].Advice, s) {
					t.Errorf("missing %q in %q | %q", s, fs[0].Summary, fs[0].Advice)
				}
			}
		})
	}
}

func TestRuleAscendingTimeOrder(t *testing.T) {
	cases := []struct {
		name string
		tbl  model.Table
		max  int64
		want bool
	}{
		{"ascending timestamp with data", table("r", pk("s", "text", 0), ck("ts", "timestamp", 0, "asc")), 1 * mib, true},
		{"descending", table("r", pk("s", "text", 0), ck("ts", "timestamp", 0, "desc")), 1 * mib, false},
		{"time not first", table("r", pk("s", "text", 0), ck("kind", "text", 0, "asc"), ck("ts", "timestamp", 1, "asc")), 1 * mib, false},
		{"empty table", table("r", pk("s", "text", 0), ck("ts", "timeuuid", 0, "asc")), 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newSnap().ring("dc1", 1).keyspace("ks", simple("1"), c.tbl)
			b.stats("h01", "ks", "r", model.TableStats{MaxPartitionBytes: c.max})
			fs := ruleAscendingTimeOrder(analysisOf(t, b.s))
			if got := len(fs) == 1 && fs[0].Severity == finding.SeverityInfo && fs[0].Kind == KindAscendingTimeOrder && fs[0].Remark; got != c.want || len(fs) > 1 {
				t.Fatalf("got %+v, want finding %v", fs, c.want)
			}
		})
	}
}

// On a vnode ring nodetool's rounded shares add up to a hair over 1: a
// real 2-node 4.1.10 ring of 16 allocated tokens a node, RF 2, showed
// 1.000001 for each node. The fixture's three statuses (1 MiB on each
// node's disk, the rule's floor) must still be judged.
func TestLowCardinalityOwnershipRoundedOverOne(t *testing.T) {
	status := table("orders_by_status", pk("status", "text", 0), ck("order_id", "timeuuid", 0, "asc"))
	b := newSnap().ring("dc1", 2).keyspace("ks", simple("2"), status)
	for i, keys := range []int64{12, 137} {
		b.stats(hostID(i+1), "ks", status.Name, model.TableStats{PartitionsEstimate: keys, MeanPartitionBytes: 943_127, DiskUsageBytes: 1 * mib})
	}
	a := analysisOf(t, b.s)
	for _, tv := range a.tables {
		for h := range tv.ks.owns {
			tv.ks.owns[h] = 1.0000010000000001
		}
	}
	fs := ruleLowCardinalityKey(a)
	if len(fs) != 1 || fs[0].Figures.DataBytes != float64(mib) {
		t.Fatalf("want one finding on 1 MiB a replica, got %+v", fs)
	}
}
