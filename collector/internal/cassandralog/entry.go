// Package cassandralog reads what Cassandra writes in its own log: it splits
// system.log (or debug.log) text into entries and turns the warnings that name
// a partition into events. It does no I/O: the file tailer and the
// system_views.system_logs reader feed it text.
package cassandralog

import (
	"regexp"
	"strings"
	"time"
)

// Entry is one logging event: a log file line with its continuation lines
// (stack traces, multi-line messages), or one row of system_views.system_logs.
type Entry struct {
	Time    time.Time
	Level   string // ERROR, WARN, INFO, DEBUG or TRACE
	Logger  string // what the pattern printed before " - ": a logger name or File.java:line
	Message string
}

// header matches the start of an entry written by the encoder patterns
// Cassandra ships (conf/logback.xml, 4.0 to 5.0):
//
//	%-5level [%thread] %date{ISO8601} %F:%L - %msg%n
//
// and the same with %logger instead of %F:%L. The thread is matched lazily:
// a thread name may hold "]" but the date must follow it.
var header = regexp.MustCompile(`^(TRACE|DEBUG|INFO|WARN|ERROR)\s+\[(.*?)\] (\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d[,.]\d{3}) (\S*) - `)

// dateLayout is logback's %date{ISO8601}: local time, no zone.
const dateLayout = "2006-01-02 15:04:05.000"

// ParseHeader reads the header of an entry's first line; the message is the
// rest of the line. loc is the zone the node's JVM writes its dates in.
func ParseHeader(line string, loc *time.Location) (Entry, bool) {
	m := header.FindStringSubmatchIndex(line)
	if m == nil {
		return Entry{}, false
	}
	date := line[m[6]:m[7]]
	date = strings.Replace(strings.Replace(date, "T", " ", 1), ",", ".", 1)
	t, err := time.ParseInLocation(dateLayout, date, loc)
	if err != nil {
		return Entry{}, false // e.g. month 13: not a header after all
	}
	return Entry{Time: t, Level: line[m[2]:m[3]], Logger: line[m[8]:m[9]], Message: line[m[1]:]}, true
}

// Limits bound what one entry may hold, so a runaway stack trace or a
// multi-megabyte line costs a fixed amount of memory.
const (
	MaxMessageBytes = 256 << 10
	maxLines        = 4096
)

// Assembler joins lines into entries: a line that starts with a header
// starts an entry, any other line continues the current one. Lines before
// the first header (the tail of an entry cut by a restart) are counted in
// Orphans and dropped.
type Assembler struct {
	loc     *time.Location
	cur     Entry
	msg     strings.Builder
	lines   int
	pending bool
	Orphans int
}

// NewAssembler returns an assembler for dates written in loc (nil: UTC).
func NewAssembler(loc *time.Location) *Assembler {
	if loc == nil {
		loc = time.UTC
	}
	return &Assembler{loc: loc}
}

// Line feeds one line without its newline. When it starts a new entry, the
// previous one is complete and returned.
func (a *Assembler) Line(line string) (Entry, bool) {
	if e, ok := ParseHeader(line, a.loc); ok {
		done, had := a.Flush()
		msg := e.Message
		if len(msg) > MaxMessageBytes {
			msg = msg[:MaxMessageBytes]
		}
		e.Message = ""
		a.cur, a.lines, a.pending = e, 1, true
		a.msg.WriteString(msg)
		return done, had
	}
	if !a.pending {
		a.Orphans++
		return Entry{}, false
	}
	if a.lines < maxLines && a.msg.Len()+1+len(line) <= MaxMessageBytes {
		a.msg.WriteByte('\n')
		a.msg.WriteString(line)
		a.lines++
	}
	return Entry{}, false
}

// Pending says whether an entry is waiting for its continuation lines.
func (a *Assembler) Pending() bool { return a.pending }

// Flush returns the entry in progress: call it when no more lines can
// belong to it (the end of what the writer has written so far).
func (a *Assembler) Flush() (Entry, bool) {
	if !a.pending {
		return Entry{}, false
	}
	e := a.cur
	e.Message = a.msg.String()
	a.msg.Reset()
	a.cur, a.lines, a.pending = Entry{}, 0, false
	return e, true
}
