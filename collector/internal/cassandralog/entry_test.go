package cassandralog

import (
	"strings"
	"testing"
	"time"
)

func TestParseHeader(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		line    string
		loc     *time.Location
		ok      bool
		level   string
		logger  string
		message string
		when    time.Time
	}{
		{
			name: "Cassandra's shipped pattern (%F:%L)",
			line: "WARN  [ReadStage-2] 2026-12-01 12:23:35,104 ReadCommand.java:633 - Read 5 live rows",
			loc:  time.UTC, ok: true, level: "WARN", logger: "ReadCommand.java:633", message: "Read 5 live rows",
			when: time.Date(2026, 12, 1, 12, 23, 35, 104e6, time.UTC),
		},
		{
			name: "deploy/local's pattern (%logger{0})",
			line: "ERROR [Native-Transport-Requests-1] 2026-12-01 12:23:35,889 StorageProxy - Scanned over 100001 tombstones",
			loc:  time.UTC, ok: true, level: "ERROR", logger: "StorageProxy", message: "Scanned over 100001 tombstones",
			when: time.Date(2026, 12, 1, 12, 23, 35, 889e6, time.UTC),
		},
		{
			name: "thread name with a bracket, local zone",
			line: "INFO  [pool-[1]-thread] 2026-07-01 02:00:00,000 Foo.java:1 - x - y",
			loc:  berlin, ok: true, level: "INFO", logger: "Foo.java:1", message: "x - y",
			when: time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC),
		},
		{
			name: "empty message",
			line: "DEBUG [main] 2026-12-01 12:00:00,000 X.java:9 - ",
			loc:  time.UTC, ok: true, level: "DEBUG", logger: "X.java:9", message: "",
			when: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC),
		},
		{name: "stack trace line", line: "\tat org.apache.cassandra.db.ReadCommand.executeLocally(ReadCommand.java:412)", loc: time.UTC},
		{name: "impossible date", line: "WARN  [main] 2026-13-01 12:00:00,000 X.java:1 - m", loc: time.UTC},
		{name: "unknown level", line: "FATAL [main] 2026-12-01 12:00:00,000 X.java:1 - m", loc: time.UTC},
		{name: "no separator", line: "WARN  [main] 2026-12-01 12:00:00,000 X.java:1 m", loc: time.UTC},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ok := ParseHeader(tt.line, tt.loc)
			if ok != tt.ok {
				t.Fatalf("ParseHeader(%q) ok = %v, want %v", tt.line, ok, tt.ok)
			}
			if !ok {
				return
			}
			if e.Level != tt.level || e.Logger != tt.logger || e.Message != tt.message || !e.Time.Equal(tt.when) {
				t.Fatalf("ParseHeader(%q) = %+v, want %s %s %q at %s", tt.line, e, tt.level, tt.logger, tt.message, tt.when)
			}
		})
	}
}

func TestAssembler(t *testing.T) {
	lines := []string{
		"\tat orphan.Frame(X.java:1)", // the tail of an entry from before
		"DEBUG [ScheduledTasks:1] 2026-12-01 12:21:33,924 MonitoringTask.java:174 - 2 operations were slow in the last 5003 msecs:",
		"<SELECT * FROM ks.t WHERE k = 1 LIMIT 100 ALLOW FILTERING>, time 700 msec - slow timeout 500 msec",
		"<SELECT * FROM ks.t WHERE k = 2 LIMIT 100 ALLOW FILTERING>, time 650 msec - slow timeout 500 msec",
		"WARN  [ReadStage-1] 2026-12-01 12:23:35,104 ReadCommand.java:633 - one line",
	}
	a := NewAssembler(time.UTC)
	var got []Entry
	for _, l := range lines {
		if e, ok := a.Line(l); ok {
			got = append(got, e)
		}
	}
	if !a.Pending() {
		t.Fatal("the last entry should wait for continuation lines")
	}
	if e, ok := a.Flush(); ok {
		got = append(got, e)
	}
	if _, ok := a.Flush(); ok {
		t.Fatal("a second Flush returned an entry")
	}
	if a.Orphans != 1 {
		t.Errorf("orphans = %d, want 1", a.Orphans)
	}
	if len(got) != 2 {
		t.Fatalf("got %d entries, want 2: %+v", len(got), got)
	}
	if want := strings.Join(lines[1:4], "\n")[len("DEBUG [ScheduledTasks:1] 2026-12-01 12:21:33,924 MonitoringTask.java:174 - "):]; got[0].Message != want {
		t.Errorf("multi-line message = %q, want %q", got[0].Message, want)
	}
	if evs := Parse(got[0].Message); len(evs) != 2 || evs[1].Millis != 650 {
		t.Errorf("the assembled report parses to %+v, want two slow reads", evs)
	}
	if got[1].Message != "one line" || got[1].Level != "WARN" {
		t.Errorf("second entry = %+v", got[1])
	}
}

func TestAssemblerBoundsAnEntry(t *testing.T) {
	a := NewAssembler(nil)
	a.Line("ERROR [main] 2026-12-01 12:00:00,000 X.java:1 - " + strings.Repeat("m", MaxMessageBytes+100))
	for i := 0; i < 10000; i++ {
		a.Line("\tat frame.Number(X.java:1)")
	}
	e, ok := a.Flush()
	if !ok {
		t.Fatal("no entry")
	}
	if len(e.Message) != MaxMessageBytes {
		t.Fatalf("message is %d bytes, want it cut at %d", len(e.Message), MaxMessageBytes)
	}
	a.Line("ERROR [main] 2026-12-01 12:00:00,000 X.java:1 - start")
	for i := 0; i < 10000; i++ {
		a.Line("\tat frame.Number(X.java:1)")
	}
	e, _ = a.Flush()
	if n := strings.Count(e.Message, "\n"); n != maxLines-1 {
		t.Fatalf("entry kept %d continuation lines, want %d", n, maxLines-1)
	}
}
