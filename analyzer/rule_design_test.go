package analyzer

import (
	"strings"
	"testing"

	"github.com/partmon/partmon/model"
)

func TestRuleLowCardinalityKey(t *testing.T) {
	status := table("orders_by_status", pk("status", "text", 0), ck("order_id", "timeuuid", 0, "asc"), col("amount", "int"))
	flag := table("by_flag", pk("active", "boolean", 0), ck("id", "uuid", 0, "asc"))
	users := table("users", pk("user_id", "uuid", 0), col("email", "text"))
	cases := []struct {
		name       string
		tbl        model.Table
		partitions int64 // per node, 3 nodes
		mean       int64
		want       Severity
		inText     []string
	}{
		{name: "fresh empty table", tbl: status, partitions: 0, mean: 0},
		{name: "tiny table", tbl: status, partitions: 1, mean: 100 * kib},
		{name: "few partitions, little data: info", tbl: status, partitions: 2, mean: 1 * mib, want: SeverityInfo,
			inText: []string{"~6 partitions (estimated) for 3 nodes (fewer than 100 per node)", "status looks like an enum",
				"50 sub-partitions per current key bring ~6 partitions to ~300", "the table clusters by order_id, so a time bucket of it"}},
		{name: "just enough partitions", tbl: status, partitions: 100, mean: 1 * mib},
		{name: "just too few", tbl: status, partitions: 99, mean: 1 * mib, want: SeverityWarning},
		{name: "fewer partitions than nodes", tbl: flag, partitions: 0, mean: 0},
		{name: "boolean key with data", tbl: flag, partitions: 1, mean: 2 * mib, want: SeverityInfo,
			inText: []string{"(active boolean) can take at most 2 values"}},
		{name: "many users", tbl: users, partitions: 100_000, mean: 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newSnap().ring("dc1", 3).keyspace("ks", simple("3"), c.tbl)
			for i := 1; i <= 3; i++ {
				b.stats(hostID(i), "ks", c.tbl.Name, model.TableStats{PartitionsEstimate: c.partitions, MeanPartitionBytes: c.mean})
			}
			fs := ruleLowCardinalityKey(analysisOf(t, b.s))
			if c.want == SeverityNone {
				if len(fs) != 0 {
					t.Fatalf("want none, got %+v", fs)
				}
				return
			}
			if len(fs) != 1 || fs[0].Severity != c.want || fs[0].Unit != UnitPartitions || fs[0].Threshold != 300 ||
				fs[0].Value != float64(3*c.partitions) {
				t.Fatalf("got %+v, want one %v with value %d", fs, c.want, 3*c.partitions)
			}
			for _, s := range c.inText {
				if !strings.Contains(fs[0].Summary+" | "+fs[0].Advice, s) {
					t.Errorf("missing %q in %q | %q", s, fs[0].Summary, fs[0].Advice)
				}
			}
		})
	}
}

func TestLowCardinalityWarnsWhenPartitionsAreFewerThanNodes(t *testing.T) {
	tb := table("by_region", pk("region", "text", 0), ck("id", "int", 0, "asc"))
	b := newSnap().ring("dc1", 6).keyspace("ks", nts("dc1", "3"), tb)
	// Two regions, 3 MiB each: fewer partitions than the six nodes.
	b.stats("h01", "ks", "by_region", model.TableStats{PartitionsEstimate: 1, MeanPartitionBytes: 3 * mib})
	b.stats("h04", "ks", "by_region", model.TableStats{PartitionsEstimate: 1, MeanPartitionBytes: 3 * mib})
	b.stats("h02", "ks", "by_region", model.TableStats{})
	fs := ruleLowCardinalityKey(analysisOf(t, b.s))
	if len(fs) != 1 || fs[0].Severity != SeverityWarning {
		t.Fatalf("want one warning, got %+v", fs)
	}
}

func TestRuleUnbucketedTimeSeries(t *testing.T) {
	readings := table("readings", pk("sensor_id", "text", 0), ck("ts", "timestamp", 0, "asc"), col("value", "double"))
	withTTL := readings
	withTTL.DefaultTTLSeconds = 30 * 86400
	bucketed := table("readings_by_day", pk("sensor_id", "text", 0), pk("day", "date", 1), ck("ts", "timestamp", 0, "desc"))
	bucketInt := table("readings_by_bucket", pk("sensor_id", "text", 0), pk("bucket", "int", 1), ck("ts", "timeuuid", 0, "desc"))
	noTime := table("events", pk("id", "text", 0), ck("seq", "int", 0, "asc"))
	cases := []struct {
		name    string
		tbl     model.Table
		max     int64
		growing bool
		want    Severity
		inText  []string
	}{
		{name: "empty", tbl: readings, max: 0},
		{name: "small and flat, no TTL: the schema says it grows", tbl: readings, max: 1 * mib, want: SeverityInfo,
			inText: []string{"clusters by ts (timestamp) with no time bucket in its partition key (sensor_id)", "no default TTL"}},
		{name: "small and flat under a TTL: bounded", tbl: withTTL, max: 10*mib - 1},
		{name: "large enough to say so under a TTL", tbl: withTTL, max: 10 * mib, want: SeverityInfo},
		{name: "at the warning size", tbl: readings, max: 50 * mib, want: SeverityWarning},
		{name: "growing without TTL", tbl: readings, max: 2 * mib, growing: true, want: SeverityWarning,
			inText: []string{"growing 1.0 MiB/day", "add a week bucket of ts to the partition key (sensor_id): each bucket then holds ~7.0 MiB"}},
		{name: "growing under a TTL", tbl: withTTL, max: 2 * mib, growing: true, want: SeverityInfo,
			inText: []string{"default TTL 30.0 d bounds it"}},
		{name: "date bucket present", tbl: bucketed, max: 80 * mib},
		{name: "int bucket present", tbl: bucketInt, max: 80 * mib},
		{name: "not a time series", tbl: noTime, max: 80 * mib},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newSnap().ring("dc1", 1).keyspace("ks", simple("1"), c.tbl)
			b.stats("h01", "ks", c.tbl.Name, model.TableStats{MaxPartitionBytes: c.max})
			h := NewHistory(HistoryLimits{})
			if c.growing {
				// 1 MiB a day over two days.
				h.Sizes["ks."+c.tbl.Name] = series(t0.Unix(), 48, 3600, func(age float64) float64 { return float64(c.max) - mib*age/86400 })
			}
			fs := ruleUnbucketedTimeSeries(analysisWith(t, b.s, h, DefaultThresholds()))
			if c.want == SeverityNone {
				if len(fs) != 0 {
					t.Fatalf("want none, got %+v", fs)
				}
				return
			}
			if len(fs) != 1 || fs[0].Severity != c.want || fs[0].Value != float64(c.max) || fs[0].Unit != UnitBytes {
				t.Fatalf("got %+v, want one %v", fs, c.want)
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
		want   Severity
		inText []string
	}{
		{name: "email: id-like name", ix: legacy("users_email", "email"), want: SeverityWarning,
			inText: []string{"index users_email (legacy secondary index) on ks.users(email) covers a column that looks unique (name email)", "lookup table keyed by email"}},
		{name: "timeuuid type", ix: legacy("users_session", "values(session)"), want: SeverityWarning, inText: []string{"type timeuuid"}},
		{name: "country is low cardinality", ix: legacy("users_country", "country")},
		{name: "collection index not judged", ix: legacy("users_tags", "values(tags)")},
		{name: "SAI: info", ix: model.Index{Name: "users_email_sai", Kind: "CUSTOM",
			Options: map[string]string{"target": "email", "class_name": "org.apache.cassandra.index.sai.StorageAttachedIndex"}},
			want: SeverityInfo, inText: []string{"custom index StorageAttachedIndex"}},
		{name: "ScyllaDB global index is built for this", engine: model.EngineScyllaDB, ix: legacy("users_email", "email")},
		{name: "ScyllaDB local index", engine: model.EngineScyllaDB,
			ix: legacy("users_email_local", `{"pk":["user_id"],"ck":["email"]}`), want: SeverityWarning, inText: []string{"ScyllaDB local secondary index"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newSnap().ring("dc1", 3).keyspace("ks", simple("3"), base(c.ix))
			if c.engine != "" {
				b.s.Engine = c.engine
			}
			fs := ruleSecondaryIndexHighCardinality(analysisOf(t, b.s))
			if c.want == SeverityNone {
				if len(fs) != 0 {
					t.Fatalf("want none, got %+v", fs)
				}
				return
			}
			if len(fs) != 1 || fs[0].Severity != c.want || fs[0].Table != "users" {
				t.Fatalf("got %+v, want one %v", fs, c.want)
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
			if got := len(fs) == 1 && fs[0].Severity == SeverityInfo && fs[0].Kind == KindAscendingTimeOrder; got != c.want || len(fs) > 1 {
				t.Fatalf("got %+v, want finding %v", fs, c.want)
			}
		})
	}
}
