package cassandralog

import (
	"strings"
	"testing"
)

// want is what a test expects of one event; zero fields are not checked
// except Kind, Keyspace, Table and Key.
type want struct {
	kind               Kind
	keyspace, table    string
	key                string
	keyColumns         []string // for ResolveKey
	token              string
	value, live, limit int64
	failure            bool
	millis             int64
	sstable            string
}

func TestParse(t *testing.T) {
	long := "SELECT * FROM ks.t WHERE k = '" + strings.Repeat("x", 600) + "' LIMIT 10 ALLOW FILTERING"
	tests := []struct {
		name string
		msg  string
		want []want
	}{
		{
			name: "tombstone warning, 5.0 (demo cluster)",
			msg:  "Read 5 live rows and 19995 tombstone cells for query SELECT * FROM pm_tomb.queue WHERE queue = 'jobs' LIMIT 5000 ALLOW FILTERING; token 2302286176393429925 (see tombstone_warn_threshold)",
			want: []want{{kind: TombstoneWarning, keyspace: "pm_tomb", table: "queue", key: "jobs", keyColumns: []string{"queue"}, token: "2302286176393429925", value: 19995, live: 5}},
		},
		{
			name: "tombstone warning, 4.0 query form",
			msg:  "Read 5 live rows and 19995 tombstone cells for query SELECT * FROM pm_tomb.queue WHERE queue = jobs LIMIT 5000; token 2302286176393429925 (see tombstone_warn_threshold)",
			want: []want{{kind: TombstoneWarning, keyspace: "pm_tomb", table: "queue", key: "jobs", keyColumns: []string{"queue"}, token: "2302286176393429925", value: 19995, live: 5}},
		},
		{
			name: "tombstone warning of a range read: token only",
			msg:  "Read 0 live rows and 1500 tombstone cells for query SELECT * FROM ks.t WHERE token(k) >= token(7) LIMIT 100 ALLOW FILTERING; token -42 (see tombstone_warn_threshold)",
			want: []want{{kind: TombstoneWarning, keyspace: "ks", table: "t", key: "", keyColumns: []string{"k"}, token: "-42", value: 1500}},
		},
		{
			name: "tombstone warning with the query cut at 512 characters",
			msg:  "Read 1 live rows and 2000 tombstone cells for query " + cut512(long) + "; token 9 (see tombstone_warn_threshold)",
			want: []want{{kind: TombstoneWarning, keyspace: "ks", table: "t", key: "", keyColumns: []string{"k"}, token: "9", value: 2000, live: 1}},
		},
		{
			name: "aborted read: key from the query",
			msg:  "Scanned over 100001 tombstones during query 'SELECT * FROM pm_tomb.queue WHERE queue = 'jobs' LIMIT 5000 ALLOW FILTERING' (last scanned row token was 2302286176393429925 and partion key was ((jobs), 100000)); query aborted",
			want: []want{{kind: TombstoneAbort, keyspace: "pm_tomb", table: "queue", key: "jobs", keyColumns: []string{"queue"}, token: "2302286176393429925", value: 100001, failure: true}},
		},
		{
			name: "aborted range read: key as printed",
			msg:  "Scanned over 100001 tombstones during query 'SELECT * FROM ks.t WHERE token(k) > -100 LIMIT 5000 ALLOW FILTERING' (last scanned row token was 12 and partion key was ((alpha), 7)); query aborted",
			want: []want{{kind: TombstoneAbort, keyspace: "ks", table: "t", key: "alpha", keyColumns: []string{"k"}, token: "12", value: 100001, failure: true}},
		},
		{
			name: "guardrail partition_size warning, 5.0",
			msg:  "Guardrail partition_size violated: Partition pm_big.events:big on sstable /var/lib/cassandra/data/pm_big/events-1b2c/nb-7-big-Data.db has size 130023424, this exceeds the warning threshold of 52428800. Too large partitions can cause performance problems.",
			want: []want{{kind: PartitionSize, keyspace: "pm_big", table: "events", key: "big", value: 130023424, limit: 52428800, sstable: "/var/lib/cassandra/data/pm_big/events-1b2c/nb-7-big-Data.db"}},
		},
		{
			name: "guardrail partition_size failure, composite key",
			msg:  `Guardrail partition_size violated: Partition ks.t:acme:2026\:12 on sstable /d/nb-1-big-Data.db has size 300000000, this exceeds the failure threshold of 209715200. Too large partitions can cause performance problems.`,
			want: []want{{kind: PartitionSize, keyspace: "ks", table: "t", key: `acme:2026\:12`, value: 300000000, limit: 209715200, failure: true, sstable: "/d/nb-1-big-Data.db"}},
		},
		{
			name: "guardrail partition_tombstones warning, 5.0",
			msg:  "Guardrail partition_tombstones violated: Partition pm_tomb.queue:jobs on sstable /d/nb-3-big-Data.db has 19995 tombstones, this exceeds the warning threshold of 10000. Partitions with too many tombstones can cause performance problems.",
			want: []want{{kind: PartitionTombstones, keyspace: "pm_tomb", table: "queue", key: "jobs", value: 19995, limit: 10000, sstable: "/d/nb-3-big-Data.db"}},
		},
		{
			name: "large partition at compaction, 4.x",
			msg:  "Writing large partition pm_big/events:big (117.969MiB) to sstable /d/pm_big/events-1/nb-9-big-Data.db",
			want: []want{{kind: PartitionSize, keyspace: "pm_big", table: "events", key: "big", value: 123699462, sstable: "/d/pm_big/events-1/nb-9-big-Data.db"}},
		},
		{
			name: "large partition, decimal comma locale, key with spaces and colons",
			msg:  "Writing large partition ks/t:a b:c (1,500GiB) to sstable /d/x-Data.db",
			want: []want{{kind: PartitionSize, keyspace: "ks", table: "t", key: "a b:c", value: 1610612736, sstable: "/d/x-Data.db"}},
		},
		{
			name: "many tombstones at compaction, 4.1",
			msg:  "Writing 150000 tombstones to pm_tomb/queue:jobs in sstable /d/nb-4-big-Data.db",
			want: []want{{kind: PartitionTombstones, keyspace: "pm_tomb", table: "queue", key: "jobs", value: 150000, sstable: "/d/nb-4-big-Data.db"}},
		},
		{
			name: "slow reads report",
			msg: "3 operations were slow in the last 5003 msecs:\n" +
				"<SELECT * FROM pm_hot.kv WHERE k = 'hot' LIMIT 100 ALLOW FILTERING>, was slow 12 times: avg/min/max 640/512/910 msec - slow timeout 500 msec\n" +
				"<SELECT * FROM pm_hot.kv WHERE k = 'warm' LIMIT 100 ALLOW FILTERING>, time 700 msec - slow timeout 500 msec/cross-node\n" +
				"<SELECT * FROM pm_hot.kv WHERE token(k) > 5 LIMIT 100 ALLOW FILTERING>, time 530 msec - slow timeout 500 msec\n" +
				"... (4 were dropped)",
			want: []want{
				{kind: SlowRead, keyspace: "pm_hot", table: "kv", key: "hot", keyColumns: []string{"k"}, value: 12, millis: 910, limit: 500},
				{kind: SlowRead, keyspace: "pm_hot", table: "kv", key: "warm", keyColumns: []string{"k"}, value: 1, millis: 700, limit: 500},
				{kind: SlowRead, keyspace: "pm_hot", table: "kv", key: "", keyColumns: []string{"k"}, value: 1, millis: 530, limit: 500},
			},
		},
		{
			name: "timed out reads report",
			msg: "2 operations timed out in the last 5000 msecs:\n" +
				"<SELECT * FROM ks.t WHERE k = 1 ALLOW FILTERING>, total time 10001 msec, timeout 10000 msec\n" +
				"<SELECT * FROM ks.t WHERE k = 2 ALLOW FILTERING> timed out 3 times, avg/min/max 10002/10001/10004 msec, timeout 10000 msec/cross-node",
			want: []want{
				{kind: TimedOutRead, keyspace: "ks", table: "t", key: "1", keyColumns: []string{"k"}, value: 1, millis: 10001, limit: 10000, failure: true},
				{kind: TimedOutRead, keyspace: "ks", table: "t", key: "2", keyColumns: []string{"k"}, value: 3, millis: 10004, limit: 10000, failure: true},
			},
		},
		{name: "the INFO pointer to debug.log names nothing", msg: "Some operations were slow, details available at debug level (debug.log)"},
		{name: "batch warnings name tables, not partitions", msg: "Batch for [ks.t] is of size 6.000KiB, exceeding specified threshold of 5.000KiB by 1.000KiB."},
		{name: "client-side tombstone summary (coordinator) has no table", msg: "1 nodes scanned up to 2000 tombstones and issued tombstone warnings for query SELECT * FROM ks.t WHERE k = 1 (see tombstone_warn_threshold)"},
		{name: "other guardrails are not partition evidence", msg: "Guardrail page_size violated: Query for table ks.t with page size 10000 exceeds warning threshold of 5000."},
		{name: "broken tombstone warning", msg: "Read x live rows and 3 tombstone cells for query SELECT; token 1 (see tombstone_warn_threshold)"},
		{name: "broken large partition", msg: "Writing large partition nokeyhere (1.0MiB) to sstable /d"},
		{name: "empty", msg: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Parse(tt.msg)
			if len(got) != len(tt.want) {
				t.Fatalf("Parse gave %d events, want %d: %+v", len(got), len(tt.want), got)
			}
			for i, w := range tt.want {
				checkEvent(t, got[i], w)
			}
		})
	}
}

func checkEvent(t *testing.T, e Event, w want) {
	t.Helper()
	if w.keyColumns != nil {
		if ok := e.ResolveKey(w.keyColumns); ok != (w.key != "") {
			t.Errorf("ResolveKey(%v) = %v, want %v (key %q)", w.keyColumns, ok, w.key != "", e.Key)
		}
	}
	if e.Kind != w.kind || e.Keyspace != w.keyspace || e.Table != w.table || e.Key != w.key {
		t.Errorf("event %s %s.%s key %q, want %s %s.%s key %q", e.Kind, e.Keyspace, e.Table, e.Key, w.kind, w.keyspace, w.table, w.key)
	}
	if e.Value != w.value || e.Failure != w.failure {
		t.Errorf("value %d failure %v, want %d %v", e.Value, e.Failure, w.value, w.failure)
	}
	if w.token != "" && e.Token != w.token {
		t.Errorf("token %q, want %q", e.Token, w.token)
	}
	if w.live != 0 && e.LiveRows != w.live {
		t.Errorf("live rows %d, want %d", e.LiveRows, w.live)
	}
	if w.limit != 0 && e.Threshold != w.limit {
		t.Errorf("threshold %d, want %d", e.Threshold, w.limit)
	}
	if w.millis != 0 && e.Millis != w.millis {
		t.Errorf("millis %d, want %d", e.Millis, w.millis)
	}
	if w.sstable != "" && e.SSTable != w.sstable {
		t.Errorf("sstable %q, want %q", e.SSTable, w.sstable)
	}
}

// cut512 is Java's "%1.512s".
func cut512(s string) string {
	r := []rune(s)
	if len(r) > warnQueryChars {
		r = r[:warnQueryChars]
	}
	return string(r)
}

func TestParseHugeCountSaturates(t *testing.T) {
	got := Parse("Read 1 live rows and 99999999999999999999 tombstone cells for query SELECT * FROM ks.t WHERE k = 1 ALLOW FILTERING; token 1 (see tombstone_warn_threshold)")
	if len(got) != 1 || got[0].Value != 1<<63-1 {
		t.Fatalf("Parse = %+v, want one event with a saturated count", got)
	}
}
