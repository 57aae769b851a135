package collector

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
)

// ringLog stands in for system_views.system_logs at the row boundary: it
// answers the statement the reader sends, applying its timestamp
// bounds the way Cassandra's filtering does (checked against a real 5.0
// node by the integration test), newest first.
type ringLog struct {
	rows  []logRow
	asked int
}

func (l *ringLog) Address() string { return "10.0.0.1" }

func (l *ringLog) Select(_ context.Context, stmt string, args []any, each func(cql.Row) error) error {
	l.asked++
	var from time.Time
	switch stmt {
	case "SELECT timestamp, level, logger, message FROM system_views.system_logs":
	case "SELECT timestamp, level, logger, message FROM system_views.system_logs WHERE timestamp >= ? ALLOW FILTERING":
		from = args[0].(time.Time)
	default:
		return fmt.Errorf("unexpected statement %q", stmt)
	}
	rows := append([]logRow(nil), l.rows...)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].at.After(rows[j].at) })
	for _, r := range rows {
		if r.at.Before(from) {
			continue
		}
		if err := each(cql.Row{"timestamp": r.at, "level": r.level, "logger": r.logger, "message": r.message}); err != nil {
			return err
		}
	}
	return nil
}

var logT0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func tombstoneRow(ms int, key string, tombstones int) logRow {
	return logRow{at: logT0.Add(time.Duration(ms) * time.Millisecond), level: "WARN", logger: "org.apache.cassandra.db.ReadCommand",
		message: fmt.Sprintf("Read 5 live rows and %d tombstone cells for query SELECT * FROM ks.t WHERE id = '%s' LIMIT 5000 ALLOW FILTERING; token 1 (see tombstone_warn_threshold)", tombstones, key)}
}

func messages(rows []logRow) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.message[strings.Index(r.message, "'")+1:strings.LastIndex(r.message, "'")])
	}
	return out
}

func TestReadSystemLogsIncrementally(t *testing.T) {
	l := &ringLog{rows: []logRow{tombstoneRow(0, "a", 2000), tombstoneRow(1000, "b", 2000), tombstoneRow(1000, "b", 2000), tombstoneRow(1500, "c", 2000)}}
	steps := []struct {
		name   string
		add    []logRow
		max    int
		want   []string
		cursor time.Duration // expected cursor.Last after logT0
	}{
		{name: "first read takes every row, oldest first", max: 100, want: []string{"a", "b", "b", "c"}, cursor: 1500 * time.Millisecond},
		{name: "nothing new", max: 100, want: nil, cursor: 1500 * time.Millisecond},
		{name: "a row in the same millisecond as the cursor, one arriving late behind it, and a newer one",
			add: []logRow{tombstoneRow(1500, "c", 2000), tombstoneRow(1200, "late", 2000), tombstoneRow(3000, "d", 2000)},
			max: 100, want: []string{"late", "c", "d"}, cursor: 3 * time.Second},
		{name: "the budget takes the oldest rows after the cursor", add: []logRow{tombstoneRow(4000, "e", 1), tombstoneRow(5000, "f", 1), tombstoneRow(6000, "g", 1)},
			max: 2, want: []string{"e", "f"}, cursor: 5 * time.Second},
		{name: "and the next read the rest", max: 2, want: []string{"g"}, cursor: 6 * time.Second},
	}
	var cur *systemLogsCursor
	for _, s := range steps {
		l.rows = append(l.rows, s.add...)
		asked := l.asked
		rows, next, err := readSystemLogs(context.Background(), l, cur, s.max)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if l.asked-asked != 1 {
			t.Fatalf("%s: %d statements, want one (each costs the node the whole ring)", s.name, l.asked-asked)
		}
		if got := messages(rows); strings.Join(got, ",") != strings.Join(s.want, ",") {
			t.Fatalf("%s: read %v, want %v", s.name, got, s.want)
		}
		if !next.Last.Equal(logT0.Add(s.cursor)) {
			t.Fatalf("%s: cursor at %s, want %s", s.name, next.Last, logT0.Add(s.cursor))
		}
		// The cursor survives the state file.
		data, err := json.Marshal(next)
		if err != nil {
			t.Fatal(err)
		}
		cur = &systemLogsCursor{}
		if err := json.Unmarshal(data, cur); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReadSystemLogsFirstReadTakesTheNewest(t *testing.T) {
	l := &ringLog{}
	for i := 0; i < 10; i++ {
		l.rows = append(l.rows, tombstoneRow(i*1000, fmt.Sprintf("k%d", i), 2000))
	}
	rows, next, err := readSystemLogs(context.Background(), l, nil, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(messages(rows), ","); got != "k7,k8,k9" {
		t.Fatalf("first read %s, want the newest three", got)
	}
	if !next.Last.Equal(logT0.Add(9 * time.Second)) {
		t.Fatalf("cursor %s", next.Last)
	}
}

// logSchema has ks.t with partition key id and a system keyspace.
func logSchema() *model.Schema {
	return &model.Schema{Keyspaces: []model.Keyspace{
		{Name: "ks", Tables: []model.Table{{Keyspace: "ks", Name: "t", Columns: []model.Column{{Name: "id", Kind: "partition_key"}, {Name: "seq", Kind: "clustering"}}}}},
		{Name: "system_auth", System: true, Tables: []model.Table{{Keyspace: "system_auth", Name: "roles", Columns: []model.Column{{Name: "role", Kind: "partition_key"}}}}},
	}}
}

func TestLogsSourceFromSystemLogs(t *testing.T) {
	now := logT0.Add(time.Minute)
	src := newLogsSource(LogsConfig{}, func() time.Time { return now })
	l := &ringLog{rows: []logRow{
		tombstoneRow(0, "jobs", 19995), tombstoneRow(100, "jobs", 12000),
		{at: logT0.Add(200 * time.Millisecond), level: "WARN", logger: "org.apache.cassandra.db.guardrails.Guardrail",
			message: "Guardrail partition_size violated: Partition ks.t:big on sstable /d/nb-4-big-Data.db has size 117256721, this exceeds the warning threshold of 52428800. Too large partitions can cause performance problems."},
		{at: logT0.Add(300 * time.Millisecond), level: "WARN", logger: "x", message: "Guardrail partition_size violated: Partition system_auth.roles:cassandra on sstable /d/x has size 99999999, this exceeds the warning threshold of 52428800."},
		{at: logT0.Add(400 * time.Millisecond), level: "WARN", logger: "x", message: "unrelated"},
	}}
	in := Input{Q: l, Caps: cassandra50Caps(), Address: "10.0.0.1", Schema: logSchema()}
	in.Caps.VirtualColumns[systemLogsTable] = set("timestamp", "order_in_millisecond", "level", "logger", "message")
	out := newOutput(in.Address)
	rows, err := src.Collect(context.Background(), in, out)
	if err != nil || rows != 5 {
		t.Fatalf("Collect = %d, %v; want 5 rows", rows, err)
	}
	want := []model.LogEvidence{
		{Kind: model.LogPartitionSize, Keyspace: "ks", Table: "t", Key: "big", Value: 117256721, Threshold: 52428800, Count: 1,
			First: logT0.Add(200 * time.Millisecond), Last: logT0.Add(200 * time.Millisecond), Where: systemLogsWhere},
		{Kind: model.LogTombstoneWarning, Keyspace: "ks", Table: "t", Key: "jobs", Token: "1", Value: 19995, LiveRows: 5, Count: 2,
			First: logT0, Last: logT0.Add(100 * time.Millisecond), Where: systemLogsWhere,
			Statement: "SELECT * FROM ks.t WHERE id = 'jobs' LIMIT 5000 ALLOW FILTERING"},
	}
	if got := out.Node.LogEvidence; !equalJSON(got, want) {
		t.Fatalf("evidence\n got %s\nwant %s", asJSON(got), asJSON(want))
	}

	// A second run reads nothing new and keeps the evidence.
	out = newOutput(in.Address)
	if rows, err := src.Collect(context.Background(), in, out); err != nil || rows != 0 || len(out.Node.LogEvidence) != 2 {
		t.Fatalf("second run: %d rows, %v, %d evidence", rows, err, len(out.Node.LogEvidence))
	}

	// After a restart from the saved state: nothing read twice, the evidence kept.
	saved := roundTrip(t, src.store.state())
	again := newLogsSource(LogsConfig{}, func() time.Time { return now })
	again.store.restore(saved)
	l.rows = append(l.rows, tombstoneRow(5000, "jobs", 30000))
	out = newOutput(in.Address)
	if rows, err := again.Collect(context.Background(), in, out); err != nil || rows != 1 {
		t.Fatalf("after restart: %d rows, %v", rows, err)
	}
	if e := out.Node.LogEvidence[1]; e.Count != 3 || e.Value != 30000 {
		t.Fatalf("after restart the tombstone evidence is %+v, want 3 warnings, 30000 at most", e)
	}

	// Evidence not seen again within max_age ages out.
	now = logT0.Add(25 * time.Hour)
	out = newOutput(in.Address)
	if _, err := again.Collect(context.Background(), in, out); err != nil || len(out.Node.LogEvidence) != 0 {
		t.Fatalf("a day later: %v, evidence %s", err, asJSON(out.Node.LogEvidence))
	}
}

func TestLogsSourceUnsupported(t *testing.T) {
	src := newLogsSource(LogsConfig{}, time.Now)
	c41 := cassandra40Caps()
	c41.ReleaseVersion = "4.1.10"
	cases := []struct {
		name string
		cfg  LogsConfig
		in   Input
		want string
	}{
		{name: "4.x without a log file", in: Input{Q: newFake("10.0.0.1"), Caps: c41, Address: "10.0.0.1", Own: true},
			want: "system_views.system_logs needs Cassandra 5.0 (this node runs 4.1.10) and collector.logs.file is not set"},
		{name: "ScyllaDB", in: Input{Q: newFake("10.0.0.1"), Caps: scyllaCaps(), Address: "10.0.0.1"},
			want: "is Cassandra-only (ScyllaDB: system.large_partitions names large partitions)"},
		{name: "a log file is the first host's", cfg: LogsConfig{File: "/var/log/cassandra/system.log"}, in: Input{Q: newFake("10.0.0.2"), Caps: c41, Address: "10.0.0.2"},
			want: "collector.logs.file is the first host's log"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := src
			if c.cfg.File != "" {
				s = newLogsSource(c.cfg, time.Now)
			}
			_, err := gatedCollect(context.Background(), s, c.in, newOutput(c.in.Address))
			if err == nil || !strings.Contains(err.Error(), c.want) || !errorsIsUnsupported(err) {
				t.Fatalf("err = %v, want unsupported: %q", err, c.want)
			}
		})
	}
}

func TestLogsSourceFromFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "system.log")
	write := func(s string) {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	write("WARN  [CompactionExecutor:1] 2026-12-01 12:48:36,697 BigTableWriter - Writing large partition ks/t:big (111.821MiB) to sstable /d/nb-4-big-Data.db\n" +
		"DEBUG [ScheduledTasks:1] 2026-12-01 12:48:44,646 MonitoringTask - 2 operations were slow in the last 5023 msecs:\n" +
		"<SELECT * FROM ks.t WHERE id = 'big' LIMIT 5000 ALLOW FILTERING>, time 2195 msec - slow timeout 500 msec\n" +
		"<SELECT * FROM ks.t WHERE id = 'big' AND seq > 10 LIMIT 5000 ALLOW FILTERING>, was slow 4 times: avg/min/max 900/600/1300 msec - slow timeout 500 msec\n")
	now := time.Date(2026, 12, 1, 13, 0, 0, 0, time.UTC)
	src := newLogsSource(LogsConfig{File: path, Timezone: "UTC"}, func() time.Time { return now })
	in := Input{Q: newFake("10.0.0.1"), Caps: cassandra40Caps(), Address: "10.0.0.1", Own: true, Schema: logSchema()}
	out := newOutput(in.Address)
	if n, err := src.Collect(context.Background(), in, out); err != nil || n != 2 {
		t.Fatalf("Collect = %d entries, %v; want 2", n, err)
	}
	ev := out.Node.LogEvidence
	if len(ev) != 2 || ev[0].Kind != model.LogPartitionSize || ev[0].Key != "big" || ev[0].Value != 117252816 || ev[0].Where != path ||
		ev[1].Kind != model.LogSlowRead || ev[1].Key != "big" || ev[1].Count != 5 || ev[1].MaxMillis != 2195 ||
		!ev[0].Last.Equal(time.Date(2026, 12, 1, 12, 48, 36, 697e6, time.UTC)) {
		t.Fatalf("evidence %s", asJSON(ev))
	}
	// Rotation: the new file's lines are read, the old ones not again.
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	write("ERROR [ReadStage-4] 2026-12-01 12:50:41,486 StorageProxy - Scanned over 100001 tombstones during query 'SELECT * FROM ks.t WHERE id = 'doomed' LIMIT 5000 ALLOW FILTERING' (last scanned row token was 70 and partion key was ((doomed), 100000)); query aborted\n")
	out = newOutput(in.Address)
	if n, err := src.Collect(context.Background(), in, out); err != nil || n != 1 {
		t.Fatalf("after rotation: %d entries, %v; want 1", n, err)
	}
	if ev := out.Node.LogEvidence; len(ev) != 3 || ev[2].Kind != model.LogTombstoneAbort || ev[2].Key != "doomed" || !ev[2].Failure {
		t.Fatalf("after rotation: %s", asJSON(ev))
	}
	st := roundTrip(t, src.store.state())
	if f := st.Nodes["10.0.0.1"].File; f == nil || f.Path != path || f.Offset == 0 {
		t.Fatalf("file cursor not kept: %+v", f)
	}
}

func TestLogStoreBoundsEvidence(t *testing.T) {
	s := newLogStore(LogsConfig{}.withDefaults())
	n := s.node("10.0.0.1")
	for i := 0; i < 10; i++ {
		n.evidence[evidenceKey{ident: fmt.Sprint(i)}] = &model.LogEvidence{Key: fmt.Sprint(i), Last: logT0.Add(time.Duration(i) * time.Minute)}
	}
	n.prune(logT0.Add(9*time.Minute), 24*time.Hour, 4)
	var kept []string
	for _, e := range n.sorted() {
		kept = append(kept, e.Key)
	}
	if strings.Join(kept, ",") != "6,7,8,9" {
		t.Fatalf("kept %v, want the four seen last", kept)
	}
}

func TestLogsConfigValidate(t *testing.T) {
	cases := []struct {
		cfg  LogsConfig
		mode string
		want string
	}{
		{LogsConfig{Timezone: "Mars/Olympus"}, ModeSidecar, "collector.logs.timezone"},
		{LogsConfig{File: "/var/log/cassandra/system.log"}, ModeCluster, `it needs mode "sidecar"`},
		{LogsConfig{MaxRows: 200000}, ModeSidecar, "collector.logs.max_rows"},
		{LogsConfig{MaxBytes: 10}, ModeSidecar, "collector.logs.max_bytes"},
		{LogsConfig{MaxAge: time.Second}, ModeSidecar, "collector.logs.max_age"},
		{LogsConfig{MaxKeys: -1}, ModeSidecar, "collector.logs.max_keys"},
		{LogsConfig{File: "/x", Timezone: "Europe/Berlin"}, ModeSidecar, ""},
	}
	for _, c := range cases {
		errs := c.cfg.validate(c.mode)
		got := fmt.Sprint(errs)
		if (c.want == "") != (len(errs) == 0) || !strings.Contains(got, c.want) {
			t.Errorf("validate(%+v, %s) = %v, want %q", c.cfg, c.mode, errs, c.want)
		}
	}
}

func roundTrip(t *testing.T, st *LogState) *LogState {
	t.Helper()
	data, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var out LogState
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

func asJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

func equalJSON(a, b any) bool { return asJSON(a) == asJSON(b) }

func errorsIsUnsupported(err error) bool {
	return strings.Contains(err.Error(), ErrUnsupported.Error())
}
