package logtail

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// logFile is a log a test writes to the way logback does: appends, renames
// for rotation, truncation.
type logFile struct {
	t    *testing.T
	path string
}

func newLogFile(t *testing.T) *logFile {
	return &logFile{t: t, path: filepath.Join(t.TempDir(), "system.log")}
}

func (l *logFile) append(lines ...string) {
	l.t.Helper()
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		l.t.Fatal(err)
	}
	defer f.Close()
	for _, s := range lines {
		if _, err := f.WriteString(s); err != nil {
			l.t.Fatal(err)
		}
	}
}

// rotate renames the file away (FixedWindowRollingPolicy) and starts a new one.
func (l *logFile) rotate(newLines ...string) {
	l.t.Helper()
	if err := os.Rename(l.path, l.path+".1"); err != nil {
		l.t.Fatal(err)
	}
	l.append(newLines...)
}

func (l *logFile) truncate() {
	l.t.Helper()
	if err := os.Truncate(l.path, 0); err != nil {
		l.t.Fatal(err)
	}
}

func poll(t *testing.T, tl *Tailer, budget int64) ([]string, Stats) {
	t.Helper()
	var got []string
	st, err := tl.Poll(budget, func(s string) { got = append(got, s) })
	if err != nil {
		t.Fatalf("Poll: %v", err)
	}
	return got, st
}

func line(i int) string {
	return fmt.Sprintf("INFO  [main] 2026-12-01 12:00:%02d,000 X - line %d\n", i%60, i)
}

func TestTailerFollows(t *testing.T) {
	type step struct {
		name    string
		do      func(l *logFile)
		budget  int64
		want    []string
		rotated bool
		trunc   bool
		more    bool
	}
	steps := []step{
		{name: "existing content", do: func(l *logFile) { l.append(line(1), line(2)) }, want: []string{strings.TrimSuffix(line(1), "\n"), strings.TrimSuffix(line(2), "\n")}},
		{name: "nothing new", do: func(l *logFile) {}, want: nil},
		{name: "unfinished line waits", do: func(l *logFile) { l.append("INFO  partial") }, want: nil},
		{name: "line completed", do: func(l *logFile) { l.append(" end\r\n") }, want: []string{"INFO  partial end"}},
		{name: "rotation: old tail first, then the new file", do: func(l *logFile) {
			l.append(line(3))
			l.rotate(line(4))
		}, want: []string{strings.TrimSuffix(line(3), "\n"), strings.TrimSuffix(line(4), "\n")}, rotated: true},
		{name: "rotated away, not recreated yet", do: func(l *logFile) {
			if err := os.Rename(l.path, l.path+".2"); err != nil {
				t.Fatal(err)
			}
		}, want: nil},
		{name: "recreated", do: func(l *logFile) { l.append(line(5)) }, want: []string{strings.TrimSuffix(line(5), "\n")}, rotated: true},
		{name: "copytruncate", do: func(l *logFile) {
			l.truncate()
			l.append(line(6))
		}, want: []string{strings.TrimSuffix(line(6), "\n")}, trunc: true},
		{name: "truncated and grown past the old offset", do: func(l *logFile) {
			l.truncate()
			l.append(line(7), line(8), line(9))
		}, want: []string{strings.TrimSuffix(line(7), "\n"), strings.TrimSuffix(line(8), "\n"), strings.TrimSuffix(line(9), "\n")}, trunc: true},
		{name: "budget: first line only", do: func(l *logFile) { l.append(line(10), line(11)) }, budget: int64(len(line(10))), want: []string{strings.TrimSuffix(line(10), "\n")}, more: true},
		{name: "budget: the rest", do: func(l *logFile) {}, want: []string{strings.TrimSuffix(line(11), "\n")}},
	}
	l := newLogFile(t)
	tl := New(l.path, nil, 0)
	defer tl.Close()
	for _, s := range steps {
		s.do(l)
		budget := s.budget
		if budget == 0 {
			budget = 1 << 20
		}
		got, st := poll(t, tl, budget)
		if !reflect.DeepEqual(got, s.want) {
			t.Fatalf("%s: lines %q, want %q", s.name, got, s.want)
		}
		if st.Rotated != s.rotated || st.Truncated != s.trunc || st.More != s.more {
			t.Fatalf("%s: stats %+v, want rotated=%v truncated=%v more=%v", s.name, st, s.rotated, s.trunc, s.more)
		}
	}
}

func TestTailerResumesFromCursor(t *testing.T) {
	l := newLogFile(t)
	l.append(line(1), line(2))
	first := New(l.path, nil, 0)
	got, _ := poll(t, first, 1<<20)
	if len(got) != 2 {
		t.Fatalf("first run read %q", got)
	}
	saved := first.Cursor()
	first.Close()

	l.append(line(3))
	second := New(l.path, &saved, 0)
	defer second.Close()
	got, st := poll(t, second, 1<<20)
	if !st.Resumed || st.Restarted {
		t.Fatalf("stats %+v, want resumed", st)
	}
	if want := []string{strings.TrimSuffix(line(3), "\n")}; !reflect.DeepEqual(got, want) {
		t.Fatalf("resumed run read %q, want only %q", got, want)
	}
}

func TestTailerSavedCursorOfARotatedFile(t *testing.T) {
	l := newLogFile(t)
	l.append(line(1), line(2))
	first := New(l.path, nil, 0)
	poll(t, first, 1<<20)
	saved := first.Cursor()
	first.Close()

	// Rotated while nobody read it: the cursor's file is system.log.1 now.
	l.rotate(line(3))
	second := New(l.path, &saved, 0)
	defer second.Close()
	got, st := poll(t, second, 1<<20)
	if !st.Restarted || st.Resumed {
		t.Fatalf("stats %+v, want restarted", st)
	}
	if want := []string{strings.TrimSuffix(line(3), "\n")}; !reflect.DeepEqual(got, want) {
		t.Fatalf("read %q, want the new file from its start: %q", got, want)
	}
}

func TestTailerSavedCursorOfARewrittenFile(t *testing.T) {
	l := newLogFile(t)
	l.append(line(1), line(2))
	first := New(l.path, nil, 0)
	poll(t, first, 1<<20)
	saved := first.Cursor()
	first.Close()

	// Same inode, other content of at least the saved length.
	l.truncate()
	l.append(line(30), line(31), line(32))
	second := New(l.path, &saved, 0)
	defer second.Close()
	got, st := poll(t, second, 1<<20)
	if !st.Restarted {
		t.Fatalf("stats %+v, want restarted", st)
	}
	if len(got) != 3 {
		t.Fatalf("read %q, want the 3 new lines", got)
	}
}

func TestTailerCursorForAnotherPathIsIgnored(t *testing.T) {
	l := newLogFile(t)
	l.append(line(1))
	c := Cursor{Path: "/elsewhere/system.log", Offset: 5}
	tl := New(l.path, &c, 0)
	defer tl.Close()
	got, st := poll(t, tl, 1<<20)
	if st.Resumed || st.Restarted || len(got) != 1 {
		t.Fatalf("got %q %+v, want the file from its start", got, st)
	}
}

func TestTailerLongLines(t *testing.T) {
	l := newLogFile(t)
	long := strings.Repeat("x", MaxLineBytes+200_000)
	l.append("short one\n", long+"\n", "after\n")
	tl := New(l.path, nil, 0)
	defer tl.Close()
	got, st := poll(t, tl, 1<<30)
	if len(got) != 3 || got[0] != "short one" || got[2] != "after" {
		t.Fatalf("lines %d: first %q last %q", len(got), got[0], got[len(got)-1])
	}
	if len(got[1]) != MaxLineBytes || st.LongLines != 1 {
		t.Fatalf("long line kept %d bytes (stats %+v), want %d", len(got[1]), st, MaxLineBytes)
	}
	if c := tl.Cursor(); c.Offset != int64(len("short one\n")+len(long)+1+len("after\n")) {
		t.Fatalf("cursor %d, want the end of the file", c.Offset)
	}
}

func TestTailerMissingFile(t *testing.T) {
	tl := New(filepath.Join(t.TempDir(), "nope.log"), nil, 0)
	if _, err := tl.Poll(1<<20, func(string) {}); err == nil || !strings.Contains(err.Error(), "nope.log") {
		t.Fatalf("Poll of a missing file: %v, want an error naming it", err)
	}
}

func TestTailerLineWrittenInPieces(t *testing.T) {
	l := newLogFile(t)
	head := strings.Repeat("a", 100_000) // longer than the read buffer
	l.append(head)
	tl := New(l.path, nil, 0)
	defer tl.Close()
	if got, _ := poll(t, tl, 1<<20); len(got) != 0 {
		t.Fatalf("an unfinished line was passed: %d lines", len(got))
	}
	l.append("bbb\n", line(1))
	got, _ := poll(t, tl, 1<<20)
	if len(got) != 2 || got[0] != head+"bbb" {
		t.Fatalf("got %d lines, first %d bytes; want the whole line, then line 1", len(got), len(got[0]))
	}
}

func TestTailerFirstRunStartsNearTheEnd(t *testing.T) {
	l := newLogFile(t)
	for i := 0; i < 100; i++ {
		l.append(line(i))
	}
	within := int64(len(line(99))*3 + 10) // three lines and a bit
	tl := New(l.path, nil, within)
	defer tl.Close()
	got, st := poll(t, tl, 1<<20)
	want := []string{strings.TrimSuffix(line(97), "\n"), strings.TrimSuffix(line(98), "\n"), strings.TrimSuffix(line(99), "\n")}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("first run read %q, want the last three whole lines %q", got, want)
	}
	var before int64
	for i := 0; i < 97; i++ {
		before += int64(len(line(i)))
	}
	if st.Skipped != before {
		t.Fatalf("skipped %d bytes, want %d", st.Skipped, before)
	}
	// A rotation afterwards reads the new file from its start, whatever its size.
	var big []string
	for i := 0; i < 10; i++ {
		big = append(big, line(200+i))
	}
	l.rotate(big...)
	got, st = poll(t, tl, 1<<20)
	if len(got) != 10 || !st.Rotated {
		t.Fatalf("after rotation read %d lines (%+v), want all 10", len(got), st)
	}
}
