package cassandralog

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind is what a message says about a partition.
type Kind string

const (
	// TombstoneWarning: a read scanned more tombstones than
	// tombstone_warn_threshold (ReadCommand, WARN, 4.0-5.0).
	TombstoneWarning Kind = "tombstone_warning"
	// TombstoneAbort: a read hit tombstone_failure_threshold and was
	// aborted (TombstoneOverwhelmingException, ERROR, 4.0-5.0).
	TombstoneAbort Kind = "tombstone_abort"
	// PartitionSize: an sstable writer wrote a partition over the size
	// threshold (guardrail partition_size, 5.0; "Writing large partition", 4.x).
	PartitionSize Kind = "partition_size"
	// PartitionTombstones: an sstable writer wrote a partition with more
	// tombstones than the threshold (guardrail partition_tombstones, 5.0;
	// "Writing N tombstones", 4.1).
	PartitionTombstones Kind = "partition_tombstones"
	// SlowRead: a read over slow_query_log_timeout (MonitoringTask, DEBUG).
	SlowRead Kind = "slow_read"
	// TimedOutRead: a read that timed out (MonitoringTask, DEBUG).
	TimedOutRead Kind = "timed_out_read"
	// WriteGuardrail: a guardrail that measures a value a statement writes
	// (collection_size, items_per_collection 4.1+; column_value_size and
	// the SAI term sizes 5.0) warned or failed. From the request path it
	// names only the column; from an sstable write (flush, compaction) it
	// names the row and table too and never refuses (guardrail_write.go).
	WriteGuardrail Kind = "write_guardrail"
)

// Event is one partition a message names, with the figure it gives.
type Event struct {
	Kind     Kind
	Keyspace string
	Table    string
	// Key is the partition key in Cassandra's text form when the message
	// prints it; for reads it comes from the query (Query.Key, which needs
	// the table's key columns).
	Key string
	// PrintedKey is the key as an aborted read's message prints it: values
	// joined by ", ", clustering values after it. Used only when the query
	// does not give the key.
	PrintedKey string
	Token      string // the partition's token, when the message gives it
	// Value is the figure: tombstones (TombstoneWarning, TombstoneAbort,
	// PartitionTombstones), bytes (PartitionSize) or how many times the
	// read was reported (SlowRead, TimedOutRead).
	Value    int64
	LiveRows int64 // TombstoneWarning: live rows the read returned
	// Threshold is Cassandra's configured limit when the message says it.
	Threshold int64
	// Failure: over a failure threshold (an aborted read, a guardrail's
	// fail level) rather than a warning.
	Failure bool
	Millis  int64 // SlowRead, TimedOutRead: the longest time reported
	Query   string
	// Parsed is the query's parse, when the message has a query.
	Parsed  *Query
	SSTable string
	// WriteGuardrail: the guardrail's name, the column Cassandra printed,
	// and, for a check at an sstable write (Stored), the row as a CQL
	// literal (partition key, then clustering).
	Guardrail, Column, Row string
	Stored                 bool
}

// ResolveKey fills Key from the query when the message did not print it;
// keyColumns are the table's partition key columns in order. It reports
// whether the event now names a key.
func (e *Event) ResolveKey(keyColumns []string) bool {
	if e.Key != "" {
		return true
	}
	if e.Parsed != nil {
		if k, ok := e.Parsed.Key(keyColumns); ok {
			e.Key = k
			return true
		}
	}
	if e.PrintedKey != "" && len(keyColumns) == 1 {
		e.Key = e.PrintedKey
		return true
	}
	return false
}

var (
	reTombstoneWarn = regexp.MustCompile(`^Read (\d+) live rows and (\d+) tombstone cells for query (.*); token (\S+) \(see tombstone_warn_threshold\)$`)
	reTombstoneFail = regexp.MustCompile(`^Scanned over (\d+) tombstones during query '(.*)' \(last scanned row token was (\S+) and partion key was \((.*)\)\); query aborted$`)
	reGuardrail     = regexp.MustCompile(`^Guardrail (partition_size|partition_tombstones) violated: Partition (.*) has (?:size )?(\d+)(?: tombstones)?, this exceeds the (warning|failure) threshold of (\d+)\.`)
	reLargePart     = regexp.MustCompile(`^Writing large partition (.*) \((\d+(?:[.,]\d+)?) ?([KMG]iB|B|bytes)\) to sstable (.*)$`)
	reManyTombs     = regexp.MustCompile(`^Writing (\d+) tombstones to (.*) in sstable (.*)$`)
	reSlowHead      = regexp.MustCompile(`^\d+ operations (were slow|timed out) in the last \d+ msecs:`)
	reSlowOnce      = regexp.MustCompile(`^<(.*)>, time (\d+) msec - slow timeout (\d+) msec(?:/cross-node)?$`)
	reSlowMany      = regexp.MustCompile(`^<(.*)>, was slow (\d+) times: avg/min/max \d+/\d+/(\d+) msec - slow timeout (\d+) msec(?:/cross-node)?$`)
	reTimedOutOnce  = regexp.MustCompile(`^<(.*)>, total time (\d+) msec, timeout (\d+) msec(?:/cross-node)?$`)
	reTimedOutMany  = regexp.MustCompile(`^<(.*)> timed out (\d+) times, avg/min/max \d+/\d+/(\d+) msec, timeout (\d+) msec(?:/cross-node)?$`)
)

// Parse returns the partitions a log message names: none for the
// messages it does not know, several for a slow-query report.
func Parse(msg string) []Event {
	// Cheap tests first: nearly every message is none of these.
	switch {
	case strings.HasPrefix(msg, "Read ") && strings.HasSuffix(msg, "(see tombstone_warn_threshold)"):
		return one(tombstoneWarning(msg))
	case strings.HasPrefix(msg, "Scanned over "):
		return one(tombstoneAbort(msg))
	case strings.HasPrefix(msg, "Guardrail partition_"):
		return one(guardrail(msg))
	case strings.HasPrefix(msg, "Guardrail "):
		return one(writeGuardrail(msg))
	case strings.HasPrefix(msg, "Writing large partition "):
		return one(largePartition(msg))
	case strings.HasPrefix(msg, "Writing ") && strings.Contains(msg, " tombstones to "):
		return one(manyTombstones(msg))
	case strings.Contains(msg, " operations ") && reSlowHead.MatchString(msg):
		return slowReads(msg)
	}
	return nil
}

func one(e Event, ok bool) []Event {
	if !ok {
		return nil
	}
	return []Event{e}
}

func tombstoneWarning(msg string) (Event, bool) {
	m := reTombstoneWarn.FindStringSubmatch(msg)
	if m == nil {
		return Event{}, false
	}
	e := Event{Kind: TombstoneWarning, LiveRows: atoi(m[1]), Value: atoi(m[2]), Token: m[4]}
	return e, e.withQuery(completePart(m[3]))
}

// warnQueryChars is where ReadCommand cuts the query of a tombstone
// warning ("%1.512s").
const warnQueryChars = 512

// completePart drops what may be cut from a query printed at its length
// limit: everything after the last clause boundary, so a half-printed key
// value is never taken for the key. The table stays.
func completePart(q string) string {
	if utf8.RuneCountInString(q) < warnQueryChars {
		return q
	}
	end := -1
	for _, p := range []string{" AND ", " LIMIT ", " WHERE "} {
		if j := lastIndexOutsideQuotes(q, p); j > end {
			end = j
		}
	}
	if end < 0 {
		return q
	}
	return q[:end]
}

// lastIndexOutsideQuotes finds the last p in q outside '...' and "...".
func lastIndexOutsideQuotes(q, p string) int {
	last := -1
	for off := 0; off < len(q); {
		j := indexOutsideQuotes(q[off:], p)
		if j < 0 {
			break
		}
		last = off + j
		off = last + 1
	}
	return last
}

func tombstoneAbort(msg string) (Event, bool) {
	m := reTombstoneFail.FindStringSubmatch(msg)
	if m == nil {
		return Event{}, false
	}
	e := Event{Kind: TombstoneAbort, Value: atoi(m[1]), Token: m[3], Failure: true, PrintedKey: printedPartitionKey(m[4])}
	return e, e.withQuery(m[2])
}

// withQuery keeps the query and takes the table from it.
func (e *Event) withQuery(q string) bool {
	e.Query = q
	p, err := ParseQuery(q)
	if err != nil {
		return false
	}
	e.Parsed, e.Keyspace, e.Table = &p, p.Keyspace, p.Table
	return true
}

// printedPartitionKey strips the clustering part of the key an aborted
// read prints: "(k1, k2), c1" when the last row had clustering values
// (TombstoneOverwhelmingException.makePKString), else "k1, k2". Text values
// are unquoted there, so a key holding "), " cannot be told apart; the
// query's restrictions are preferred over this.
func printedPartitionKey(s string) string {
	if strings.HasPrefix(s, "(") {
		if j := strings.Index(s, "), "); j > 0 {
			return s[1:j]
		}
		if strings.HasSuffix(s, ")") {
			return s[1 : len(s)-1]
		}
	}
	return s
}

func guardrail(msg string) (Event, bool) {
	m := reGuardrail.FindStringSubmatch(msg)
	if m == nil {
		return Event{}, false
	}
	kind := PartitionSize
	if m[1] == "partition_tombstones" {
		kind = PartitionTombstones
	}
	// what is "ks.tbl:key on sstable PATH" (SortedTableWriter.guardPartitionThreshold).
	what := m[2]
	j := strings.LastIndex(what, " on sstable ")
	if j < 0 {
		return Event{}, false
	}
	e := Event{Kind: kind, Value: atoi(m[3]), Threshold: atoi(m[5]), Failure: m[4] == "failure", SSTable: what[j+len(" on sstable "):]}
	return e, e.tableKey(what[:j], '.')
}

// tableKey splits "ks<sep>tbl:key"; keyspace and table names hold neither
// the separator nor ':'.
func (e *Event) tableKey(s string, sep byte) bool {
	i := strings.IndexByte(s, sep)
	if i <= 0 {
		return false
	}
	j := strings.IndexByte(s[i+1:], ':')
	if j <= 0 {
		return false
	}
	e.Keyspace, e.Table, e.Key = s[:i], s[i+1:i+1+j], s[i+2+j:]
	return e.Key != ""
}

func largePartition(msg string) (Event, bool) {
	m := reLargePart.FindStringSubmatch(msg)
	if m == nil {
		return Event{}, false
	}
	size, ok := prettyBytes(m[2], m[3])
	if !ok {
		return Event{}, false
	}
	e := Event{Kind: PartitionSize, Value: size, SSTable: m[4]}
	return e, e.tableKey(m[1], '/')
}

func manyTombstones(msg string) (Event, bool) {
	m := reManyTombs.FindStringSubmatch(msg)
	if m == nil {
		return Event{}, false
	}
	e := Event{Kind: PartitionTombstones, Value: atoi(m[1]), SSTable: m[3]}
	return e, e.tableKey(m[2], '/')
}

// prettyBytes reads FBUtilities.prettyPrintMemory ("%.3fMiB", in the JVM's
// locale: the decimal separator may be a comma). Three decimals of a MiB or
// GiB leave the figure exact to about 0.1 %.
func prettyBytes(num, unit string) (int64, bool) {
	f, err := strconv.ParseFloat(strings.Replace(num, ",", ".", 1), 64)
	if err != nil || f < 0 {
		return 0, false
	}
	mult := 1.0
	switch unit {
	case "KiB":
		mult = 1 << 10
	case "MiB":
		mult = 1 << 20
	case "GiB":
		mult = 1 << 30
	}
	return int64(f * mult), true
}

// slowReads reads MonitoringTask's report: a header line, then one line
// per operation (MonitoringTask.SlowOperation / FailedOperation).
func slowReads(msg string) []Event {
	var out []Event
	for _, line := range strings.Split(msg, "\n")[1:] {
		line = strings.TrimSuffix(line, "\r")
		e, ok := slowLine(line)
		if !ok {
			continue
		}
		if !e.withQuery(e.Query) {
			continue
		}
		out = append(out, e)
	}
	return out
}

func slowLine(line string) (Event, bool) {
	if m := reSlowOnce.FindStringSubmatch(line); m != nil {
		return Event{Kind: SlowRead, Query: m[1], Value: 1, Millis: atoi(m[2]), Threshold: atoi(m[3])}, true
	}
	if m := reSlowMany.FindStringSubmatch(line); m != nil {
		return Event{Kind: SlowRead, Query: m[1], Value: atoi(m[2]), Millis: atoi(m[3]), Threshold: atoi(m[4])}, true
	}
	if m := reTimedOutOnce.FindStringSubmatch(line); m != nil {
		return Event{Kind: TimedOutRead, Query: m[1], Value: 1, Millis: atoi(m[2]), Threshold: atoi(m[3]), Failure: true}, true
	}
	if m := reTimedOutMany.FindStringSubmatch(line); m != nil {
		return Event{Kind: TimedOutRead, Query: m[1], Value: atoi(m[2]), Millis: atoi(m[3]), Threshold: atoi(m[4]), Failure: true}, true
	}
	return Event{}, false
}

// atoi reads a count the regexp matched as digits; one too large for int64
// saturates rather than wraps.
func atoi(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 1<<63 - 1
	}
	return n
}
