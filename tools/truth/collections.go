package truth

import (
	"context"
	"fmt"
	"io"
	"log"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gocql/gocql"

	"github.com/partmon/partmon/tools/testcluster"
)

// CollectionWrite rewrites one row's set<text> column during the daemon
// phase, the whole set in each write (UPDATE … SET col = ?), as an
// application that reads a cart, adds to it and writes it back does.
// The writes go through an ordinary role: Cassandra checks the write
// guardrails (collection_size, items_per_collection) only for a role that
// is not a superuser on a cluster with authentication
// (docs/sources.md#write-guardrail-lines), so the cluster must run with
// --auth. The first write carries FirstItems items, each next one
// ItemsPerWrite more; with MaxItems the set keeps only the newest
// MaxItems (a bounded collection). Each item is ItemSize bytes.
type CollectionWrite struct {
	Table         string        `yaml:"table"`
	Partition     int           `yaml:"partition"`
	Column        string        `yaml:"column"`
	FirstItems    int           `yaml:"first_items"`
	ItemsPerWrite int           `yaml:"items_per_write"`
	MaxItems      int           `yaml:"max_items"` // 0: unbounded
	ItemSize      int           `yaml:"item_size"` // default 20
	Every         time.Duration `yaml:"every"`     // default 10s
}

// writeGuardrails are the guardrails Cassandra checks in the request path
// by the value a write carries: a fail refuses the write.
var writeGuardrails = []string{"collection_size", "items_per_collection", "column_value_size"}

// items is the set the write number step carries.
func (cw *CollectionWrite) items(step int) []string {
	n := cw.FirstItems + step*cw.ItemsPerWrite
	from := 0
	if cw.MaxItems > 0 && n > cw.MaxItems {
		from = n - cw.MaxItems
	}
	out := make([]string, 0, n-from)
	for i := from; i < n; i++ {
		out = append(out, fmt.Sprintf("%0*d", cw.ItemSize, i))
	}
	return out
}

func (s *Scenario) validateCollectionWrites() []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if len(s.CollectionWrites) > 0 && s.Cluster != ClusterGuardrail {
		bad("collection_writes: guardrails check only an ordinary role on a cluster with authentication (cluster: guardrail)")
	}
	for _, cw := range s.CollectionWrites {
		t := s.Table(cw.Table)
		switch {
		case t == nil || cw.Partition < 0 || cw.Partition >= t.Partitions:
			bad("collection write on %s/%d: want a table of the scenario and a partition in range", cw.Table, cw.Partition)
		case !identifier.MatchString(cw.Column) || !regexp.MustCompile(`(?i)\b`+cw.Column+`\s+set<text>`).MatchString(t.CQL):
			bad("collection write on %s: column %q: want a set<text> column of the table", cw.Table, cw.Column)
		case cw.FirstItems <= 0 || cw.ItemsPerWrite < 0 || cw.MaxItems < 0 || (cw.MaxItems > 0 && cw.MaxItems < cw.FirstItems):
			bad("collection write on %s.%s: want first_items > 0, items_per_write >= 0 and max_items 0 or at least first_items", cw.Table, cw.Column)
		case cw.ItemSize < 8 || cw.Every <= 0:
			bad("collection write on %s.%s: want item_size of 8 bytes or more and a positive every", cw.Table, cw.Column)
		}
	}
	return errs
}

// checkAuth stops a run whose collection writes the cluster would not
// guard, before anything is loaded.
func (r *runner) checkAuth() error {
	for _, sc := range r.scs {
		if len(sc.CollectionWrites) > 0 && r.c.env["AUTH"] != "true" {
			return fmt.Errorf("%s writes collections through an ordinary role, and the cluster in %s runs without authentication, "+
				"where every client is a superuser and no guardrail checks a write: start it with deploy/local/cluster up --auth "+
				"(scripts/truth.sh does)", sc.File, r.c.Dir)
		}
	}
	return nil
}

// ordinaryRole is the role the collection writes go through.
const ordinaryRole = "truth_writer"

// collectionWriters opens the ordinary role's session, creating the role
// with MODIFY on the keyspaces whose collections it writes; nil when no
// scenario writes one.
func (r *runner) collectionWriters(ctx context.Context) error {
	var keyspaces []string
	for _, sc := range r.scs {
		if len(sc.CollectionWrites) > 0 {
			keyspaces = append(keyspaces, sc.Keyspace)
		}
	}
	if len(keyspaces) == 0 {
		return nil
	}
	for _, sc := range r.scs {
		for _, cw := range sc.CollectionWrites {
			if l := r.tables[sc.Keyspace+"."+cw.Table]; len(l.gen.schema.Clustering) > 0 {
				return fmt.Errorf("%s: collection writes to %s: a table with clustering columns is not written (one row a partition)", sc.File, cw.Table)
			}
		}
	}
	password := ordinaryRole + "-pw"
	stmts := []string{"DROP ROLE IF EXISTS " + ordinaryRole,
		"CREATE ROLE " + ordinaryRole + " WITH LOGIN = true AND SUPERUSER = false AND PASSWORD = '" + password + "'"}
	for _, ks := range keyspaces {
		stmts = append(stmts, "GRANT MODIFY ON KEYSPACE "+ks+" TO "+ordinaryRole)
	}
	for _, q := range stmts {
		if err := r.sessions[""].Query(q).WithContext(ctx).Consistency(gocql.All).Exec(); err != nil {
			return fmt.Errorf("%s: %w", strings.Replace(q, password, "***", 1), err)
		}
	}
	cfg := testcluster.ClusterConfigFor(r.c.env, r.c.Hosts...)
	cfg.Authenticator = gocql.PasswordAuthenticator{Username: ordinaryRole, Password: password}
	cfg.Timeout = 15 * time.Second
	cfg.Logger = log.New(io.Discard, "", 0) // logins refused while the role spreads are expected
	var err error
	for deadline := time.Now().Add(2 * time.Minute); ; {
		var s *gocql.Session
		if s, err = cfg.CreateSession(); err == nil {
			r.sessions[ordinaryRole] = s
			return nil
		}
		if time.Now().After(deadline) || sleep(ctx, 2*time.Second) != nil {
			return fmt.Errorf("logging in as %s: %w", ordinaryRole, err)
		}
	}
}

// collectionWriter runs one CollectionWrite until a write is refused or
// ctx ends.
type collectionWriter struct {
	sc  *Scenario
	cw  CollectionWrite
	key string
	s   *gocql.Session
	l   *loaded

	mu      sync.Mutex
	writes  int
	refused *Refusal
	err     string
}

// Refusal is the first write Cassandra refused: the client's error, the
// truth of a write guardrail's fail crossing. At is when the error came
// back, Sent when the write went out.
type Refusal struct {
	At        time.Time `json:"at"`
	Sent      time.Time `json:"sent"`
	Guardrail string    `json:"guardrail"`
	Column    string    `json:"column"`
	Value     float64   `json:"value"`
	Items     int       `json:"items"`
	Message   string    `json:"message"`
}

func (w *collectionWriter) run(ctx context.Context, logf func(string, ...any)) {
	pk := w.l.gen.PartitionKey(w.cw.Partition)
	var where []string
	for _, c := range w.l.gen.schema.Partition {
		where = append(where, c.Name+" = ?")
	}
	stmt := fmt.Sprintf("UPDATE %s.%s SET %s = ? WHERE %s", w.sc.Keyspace, w.cw.Table, w.cw.Column, strings.Join(where, " AND "))
	start := time.Now()
	for step := 0; ctx.Err() == nil; step++ {
		// On a schedule, not after each write: a slow write must not slow
		// the pace the truth's tolerance is derived from.
		if sleep(ctx, time.Until(start.Add(time.Duration(step)*w.cw.Every))) != nil {
			break
		}
		items := w.cw.items(step)
		sent := time.Now()
		err := w.s.Query(stmt, append([]any{items}, pk...)...).WithContext(ctx).Exec()
		now := time.Now()
		w.mu.Lock()
		if err == nil {
			w.writes++
			w.mu.Unlock()
			continue
		}
		if ctx.Err() != nil {
			w.mu.Unlock()
			break
		}
		if g, col, v, ok := parseRefusal(err.Error()); ok {
			w.refused = &Refusal{At: now, Sent: sent, Guardrail: g, Column: col, Value: v, Items: len(items), Message: err.Error()}
			w.mu.Unlock()
			logf("%s.%s key %s: write %d (%d items) refused: %v", w.sc.Keyspace, w.cw.Table, w.key, step, len(items), err)
			return
		}
		if w.err == "" {
			w.err = fmt.Sprintf("write %d (%d items): %v", step, len(items), err)
		}
		w.mu.Unlock()
	}
	logf("%s.%s key %s: %d writes of %s, none refused", w.sc.Keyspace, w.cw.Table, w.key, w.writes, w.cw.Column)
}

// requestPathLine is a write guardrail's request-path line (5.0's formats,
// docs/sources.md#write-guardrail-lines), in system.log or in a client's
// error: the column and the figure, never the table or the key. The
// sstable form ("Detected collection COL in row …") does not match: it is
// written at a flush, where nothing is refused.
var requestPathLine = regexp.MustCompile(`Guardrail (collection_size|items_per_collection|column_value_size) violated: (?:Detected collection (\S+) (?:of size|with) (\d+)(?: items)?|Value of column '([^']*)' has size (\d+)), this exceeds the (warning|failure) threshold`)

// parseRefusal reads a refused write's error.
func parseRefusal(msg string) (guardrail, column string, value float64, ok bool) {
	m := requestPathLine.FindStringSubmatch(msg)
	if m == nil || m[6] != "failure" {
		return "", "", 0, false
	}
	column, v := m[2], m[3]
	if m[4] != "" || m[5] != "" {
		column, v = m[4], m[5]
	}
	value, _ = strconv.ParseFloat(v, 64)
	return m[1], column, value, true
}

// writeCrossingID names a write guardrail's crossing of one column:
// Cassandra's lines name the column only.
func writeCrossingID(column, guardrail, level string) string {
	return "column " + column + "|" + guardrail + "|" + level
}

// loggedWriteLine reads one system.log line as a request-path write
// guardrail line: its crossing id, time and figure.
func loggedWriteLine(line string) (id string, at time.Time, value float64, ok bool) {
	m := guardrailTimed.FindStringSubmatch(line)
	if m == nil {
		return "", time.Time{}, 0, false
	}
	w := requestPathLine.FindStringSubmatch(m[2])
	if w == nil {
		return "", time.Time{}, 0, false
	}
	at, err := time.ParseInLocation("2006-01-02 15:04:05,000", m[1], time.Local)
	if err != nil {
		return "", time.Time{}, 0, false
	}
	column, v := w[2], w[3]
	if w[4] != "" || w[5] != "" {
		column, v = w[4], w[5]
	}
	value, _ = strconv.ParseFloat(v, 64)
	level := map[string]string{"warning": "warn", "failure": "fail"}[w[6]]
	return writeCrossingID(column, w[1], level), at, value, true
}

// guardrailTimed is a guardrail line of deploy/local's logback pattern:
// its time and its message.
var guardrailTimed = regexp.MustCompile(`^(?:WARN|ERROR)\s+\[[^\]]*\] (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) Guardrail - (.*)$`)

// startCollectionWrites starts every scenario's collection writes.
func (r *runner) startCollectionWrites(ctx context.Context) (wait func() []*collectionWriter) {
	var ws []*collectionWriter
	var wg sync.WaitGroup
	for _, sc := range r.scs {
		for _, cw := range sc.CollectionWrites {
			l := r.tables[sc.Keyspace+"."+cw.Table]
			w := &collectionWriter{sc: sc, cw: cw, key: l.gen.KeyString(cw.Partition), s: r.sessions[ordinaryRole], l: l}
			ws = append(ws, w)
			wg.Add(1)
			go func() { defer wg.Done(); w.run(ctx, r.logf) }()
		}
	}
	return func() []*collectionWriter {
		wg.Wait()
		for _, w := range ws {
			if w.err != "" {
				r.res.Notes = append(r.res.Notes, fmt.Sprintf("collection writes to %s.%s.%s: %s", w.sc.Keyspace, w.cw.Table, w.cw.Column, w.err))
			}
		}
		return ws
	}
}

// refusalOf is the writer's refusal of a crossing's column, as a logged
// crossing (the client's error is the truth of a write guardrail's fail).
func refusalOf(ws []*collectionWriter, sc *Scenario, ct CrossingTruth) *LoggedCrossing {
	i := slices.IndexFunc(ws, func(w *collectionWriter) bool {
		return w.sc == sc && w.cw.Table == ct.Table && w.cw.Partition == ct.Partition && w.cw.Column == ct.Column
	})
	if i < 0 {
		return nil
	}
	w := ws[i]
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.refused == nil || w.refused.Guardrail != ct.Guardrail {
		return nil
	}
	return &LoggedCrossing{At: w.refused.At, Node: "client (" + ordinaryRole + ")", Value: w.refused.Value}
}
