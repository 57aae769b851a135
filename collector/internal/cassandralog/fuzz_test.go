package cassandralog

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// The seed corpora (testdata/fuzz/Fuzz*) are messages and lines captured
// from real Cassandra 4.0.19, 4.1.10 and 5.0.8 nodes, plus the edges the
// unit tests name.

// FuzzParse: any message parses without panicking, and every event it
// yields names a table and a non-negative figure; resolving its key with
// any columns is safe.
func FuzzParse(f *testing.F) {
	f.Add("Read 5 live rows and 19995 tombstone cells for query SELECT * FROM pm_tomb.queue WHERE queue = 'jobs' LIMIT 5000 ALLOW FILTERING; token 2302286176393429925 (see tombstone_warn_threshold)", "queue")
	f.Fuzz(func(t *testing.T, msg, column string) {
		for _, e := range Parse(msg) {
			if e.Keyspace == "" || e.Table == "" {
				t.Fatalf("event without a table: %+v", e)
			}
			if e.Value < 0 || e.LiveRows < 0 || e.Millis < 0 || e.Threshold < 0 {
				t.Fatalf("negative figure: %+v", e)
			}
			switch e.Kind {
			case TombstoneWarning, TombstoneAbort, PartitionSize, PartitionTombstones, SlowRead, TimedOutRead:
			default:
				t.Fatalf("unknown kind %q", e.Kind)
			}
			e.ResolveKey([]string{column})
			e.ResolveKey([]string{column, column})
			e.ResolveKey(nil)
		}
	})
}

// FuzzParseQuery: any text parses or is refused; Key never panics, and a key
// from valid UTF-8 is valid UTF-8.
func FuzzParseQuery(f *testing.F) {
	f.Add("SELECT * FROM ks.t WHERE a = 'x''y' AND b = 0xCAFE LIMIT 1 ALLOW FILTERING", "a", "b")
	f.Fuzz(func(t *testing.T, q, c1, c2 string) {
		p, err := ParseQuery(q)
		if err != nil {
			return
		}
		for _, cols := range [][]string{{c1}, {c1, c2}} {
			k, ok := p.Key(cols)
			if ok && utf8.ValidString(q) && !utf8.ValidString(k) {
				t.Fatalf("Key(%q) of %q = %q: not UTF-8", cols, q, k)
			}
		}
	})
}

// FuzzAssembler: any text splits into entries that each start with a
// header, and no entry outgrows MaxMessageBytes.
func FuzzAssembler(f *testing.F) {
	f.Add("WARN  [ReadStage-1] 2026-12-01 12:23:35,104 ReadCommand - Read 5 live rows\n\tat x(Y.java:1)\n")
	f.Fuzz(func(t *testing.T, text string) {
		a := NewAssembler(time.UTC)
		lines := strings.Split(text, "\n")
		var entries int
		check := func(e Entry) {
			entries++
			if len(e.Message) > MaxMessageBytes {
				t.Fatalf("entry of %d bytes", len(e.Message))
			}
			if e.Level == "" || e.Time.IsZero() {
				t.Fatalf("entry without a header: %+v", e)
			}
			Parse(e.Message)
		}
		for _, l := range lines {
			if e, ok := a.Line(l); ok {
				check(e)
			}
		}
		if e, ok := a.Flush(); ok {
			check(e)
		}
		if entries+a.Orphans > len(lines) {
			t.Fatalf("%d entries and %d orphans from %d lines", entries, a.Orphans, len(lines))
		}
	})
}
