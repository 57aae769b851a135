package collector

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/partmon/partmon/collector/internal/cassandralog"
	"github.com/partmon/partmon/collector/internal/cql"
)

// system_views.system_logs (Cassandra 5.0, CASSANDRA-17948) is an in-memory
// ring of the node's last log events (50,000 by default), filled only when
// logback's VirtualTableAppender (CQLLOG) is configured. Its partition key
// is the event's millisecond timestamp; order_in_millisecond is renumbered
// on every read (LogMessagesTable.data), so it cannot identify a row. A
// read therefore restarts a little before the newest timestamp it saw and
// skips the rows it already folded, by fingerprint.
const (
	systemLogsTable = "system_logs"
	systemLogsWhere = "system_views.system_logs"
	// systemLogsOverlap re-reads this much before the cursor: events are
	// stamped when logged and appended a moment later, so a late one can
	// land just behind rows already read.
	systemLogsOverlap = 2 * time.Second
)

// systemLogsCursor is where reading stopped: the newest timestamp read and
// the fingerprints (with multiplicity) of the rows read within
// systemLogsOverlap of it.
type systemLogsCursor struct {
	Last time.Time      `json:"last"`
	Seen map[string]int `json:"seen,omitempty"`
}

func (c *systemLogsCursor) clone() *systemLogsCursor {
	if c == nil {
		return nil
	}
	out := &systemLogsCursor{Last: c.Last, Seen: make(map[string]int, len(c.Seen))}
	for k, v := range c.Seen {
		out.Seen[k] = v
	}
	return out
}

// logRow is one system_logs row.
type logRow struct {
	at                     time.Time
	level, logger, message string
}

func (r logRow) fingerprint() string {
	h := sha256.New()
	for _, s := range []string{strconv.FormatInt(r.at.UnixMilli(), 10), r.level, r.logger, r.message} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// readSystemLogs reads the rows after cur, at most maxRows of them (a few
// more when rows share the boundary's millisecond), oldest first, and
// returns them with the cursor after them. Without a cursor it reads the
// newest maxRows. One statement, the rows since the cursor (less the
// overlap) with their text, in one page: LogMessagesTable builds its whole
// ring for every request and every page (data(), before any filtering), so
// a second statement or page costs the node the ring again, where the rows
// since the last read are usually few. The window is cut here.
func readSystemLogs(ctx context.Context, q cql.Querier, cur *systemLogsCursor, maxRows int) ([]logRow, *systemLogsCursor, error) {
	var lower time.Time
	if cur != nil {
		lower = cur.Last.Add(-systemLogsOverlap)
	}
	rows, err := logRowsSince(ctx, q, lower)
	if err != nil || len(rows) == 0 {
		return nil, cur, err
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].at.Before(rows[j].at) })
	from, to := rows[0].at, rows[len(rows)-1].at
	if cur == nil {
		if len(rows) > maxRows {
			from = rows[len(rows)-maxRows].at // the newest maxRows
		}
	} else {
		// The budget counts the rows after the cursor, not the overlap.
		after := sort.Search(len(rows), func(i int) bool { return rows[i].at.After(cur.Last) })
		if len(rows)-after > maxRows {
			to = rows[after+maxRows-1].at // the oldest maxRows after the cursor
		}
	}
	return skipSeen(within(rows, from, to), cur)
}

// logRowsSince reads the rows at or after lower (all when zero).
func logRowsSince(ctx context.Context, q cql.Querier, lower time.Time) ([]logRow, error) {
	stmt, args := "SELECT timestamp, level, logger, message FROM system_views.system_logs", []any(nil)
	if !lower.IsZero() {
		stmt, args = stmt+" WHERE timestamp >= ? ALLOW FILTERING", []any{lower}
	}
	var rows []logRow
	_, err := cql.SelectAllInOnePage(ctx, q, stmt, args, func(d *cql.Decoder) error {
		rows = append(rows, logRow{at: d.OptTime("timestamp"), level: d.OptString("level"), logger: d.OptString("logger"), message: d.OptString("message")})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", systemLogsWhere, err)
	}
	return rows, nil
}

// within keeps the rows (oldest first) stamped from..to, both included.
func within(rows []logRow, from, to time.Time) []logRow {
	lo := sort.Search(len(rows), func(i int) bool { return !rows[i].at.Before(from) })
	hi := sort.Search(len(rows), func(i int) bool { return rows[i].at.After(to) })
	return rows[lo:hi]
}

// skipSeen drops the rows cur already covers and builds the next cursor.
func skipSeen(rows []logRow, cur *systemLogsCursor) ([]logRow, *systemLogsCursor, error) {
	seen := map[string]int{}
	var last time.Time
	if cur != nil {
		for k, v := range cur.Seen {
			seen[k] = v
		}
		last = cur.Last
	}
	var fresh []logRow
	fps := make([]string, len(rows))
	for i, r := range rows {
		fps[i] = r.fingerprint()
		if !r.at.After(last) && seen[fps[i]] > 0 {
			seen[fps[i]]--
			continue
		}
		fresh = append(fresh, r)
	}
	next := &systemLogsCursor{Last: last, Seen: map[string]int{}}
	if n := len(rows); n > 0 && rows[n-1].at.After(next.Last) {
		next.Last = rows[n-1].at
	}
	for i, r := range rows {
		if !r.at.Before(next.Last.Add(-systemLogsOverlap)) {
			next.Seen[fps[i]]++
		}
	}
	return fresh, next, nil
}

// entry is the row as a log entry for the parser.
func (r logRow) entry() cassandralog.Entry {
	return cassandralog.Entry{Time: r.at, Level: r.level, Logger: r.logger, Message: r.message}
}
