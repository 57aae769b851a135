package collector

import (
	"cmp"
	"sort"
	"sync"
	"time"

	"github.com/partmon/partmon/collector/internal/cassandralog"
	"github.com/partmon/partmon/collector/internal/logtail"
	"github.com/partmon/partmon/model"
)

// LogState is what the logs source keeps between runs and across restarts
// (in the daemon's state file): per node address, where it stopped reading
// and the evidence it still holds.
type LogState struct {
	Nodes map[string]*NodeLogState `json:"nodes"`
}

// NodeLogState is one node's log reading position and evidence.
type NodeLogState struct {
	SystemLogs *systemLogsCursor   `json:"system_logs,omitempty"`
	File       *logtail.Cursor     `json:"file,omitempty"`
	Evidence   []model.LogEvidence `json:"evidence,omitempty"`
}

// maxStatementChars bounds the query kept with a read's evidence.
const maxStatementChars = 300

// logStore folds events into evidence per node. Sources for different nodes
// run in parallel, so it locks.
type logStore struct {
	mu      sync.Mutex
	nodes   map[string]*nodeLogs
	maxAge  time.Duration
	maxKeys int
}

type evidenceKey struct {
	kind                   model.LogEvidenceKind
	keyspace, table, ident string // ident: the key, or "token:" and the token
}

type nodeLogs struct {
	mu        sync.Mutex // held for a whole run of the source on this node
	sysCursor *systemLogsCursor
	tailer    *logtail.Tailer
	asm       *cassandralog.Assembler
	fileSaved *logtail.Cursor // from the state file, until the tailer takes it
	evidence  map[evidenceKey]*model.LogEvidence
}

func newLogStore(cfg LogsConfig) *logStore {
	return &logStore{nodes: map[string]*nodeLogs{}, maxAge: cfg.MaxAge, maxKeys: cfg.MaxKeys}
}

func (s *logStore) node(addr string) *nodeLogs {
	n := s.nodes[addr]
	if n == nil {
		n = &nodeLogs{evidence: map[evidenceKey]*model.LogEvidence{}}
		s.nodes[addr] = n
	}
	return n
}

// restore seeds the store from a saved state.
func (s *logStore) restore(st *LogState) {
	if st == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for addr, ns := range st.Nodes {
		if ns == nil {
			continue
		}
		n := s.node(addr)
		n.mu.Lock()
		n.sysCursor = ns.SystemLogs
		n.fileSaved = ns.File
		for _, e := range ns.Evidence {
			e := e
			n.evidence[keyOf(&e)] = &e
		}
		n.mu.Unlock()
	}
}

// state is a copy of what the store holds, for the state file.
func (s *logStore) state() *LogState {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := &LogState{Nodes: map[string]*NodeLogState{}}
	for addr, n := range s.nodes {
		n.mu.Lock()
		ns := &NodeLogState{SystemLogs: n.sysCursor.clone(), Evidence: n.sorted()}
		if n.tailer != nil {
			c := n.tailer.Cursor()
			ns.File = &c
		} else if n.fileSaved != nil {
			c := *n.fileSaved
			ns.File = &c
		}
		n.mu.Unlock()
		out.Nodes[addr] = ns
	}
	return out
}

func keyOf(e *model.LogEvidence) evidenceKey {
	id := e.Key
	switch {
	case e.Kind == model.LogWriteGuardrail:
		id = guardrailIdent(e)
	case id == "":
		id = "token:" + e.Token
	}
	return evidenceKey{e.Kind, e.Keyspace, e.Table, id}
}

// evidenceKind maps a parser event to what the model says of the key.
func evidenceKind(k cassandralog.Kind) model.LogEvidenceKind {
	switch k {
	case cassandralog.TombstoneWarning:
		return model.LogTombstoneWarning
	case cassandralog.TombstoneAbort:
		return model.LogTombstoneAbort
	case cassandralog.PartitionSize:
		return model.LogPartitionSize
	case cassandralog.PartitionTombstones:
		return model.LogPartitionTombstones
	case cassandralog.WriteGuardrail:
		return model.LogWriteGuardrail
	}
	return model.LogSlowRead // SlowRead, TimedOutRead
}

// add folds one event seen at t in where into n's evidence. Events of
// system keyspaces and events naming neither a key nor a token are dropped.
func (n *nodeLogs) add(ev cassandralog.Event, t time.Time, where string, schema *model.Schema) {
	if isSystemKeyspaceIn(ev.Keyspace, schema) {
		return
	}
	if ev.Kind == cassandralog.WriteGuardrail {
		n.put(guardrailEvidence(ev, t, where, schema))
		return
	}
	ev.ResolveKey(partitionKeyColumns(schema, ev.Keyspace, ev.Table))
	if ev.Key == "" && ev.Token == "" {
		return
	}
	e := model.LogEvidence{
		Kind: evidenceKind(ev.Kind), Keyspace: ev.Keyspace, Table: ev.Table, Key: ev.Key, Token: ev.Token,
		Value: ev.Value, Threshold: ev.Threshold, Failure: ev.Failure, LiveRows: ev.LiveRows, MaxMillis: ev.Millis,
		Count: 1, First: t, Last: t, Where: where, Statement: cut(ev.Query, maxStatementChars),
	}
	if ev.Kind == cassandralog.SlowRead || ev.Kind == cassandralog.TimedOutRead {
		// Value is the number of slow reads this report line stands for.
		e.Count, e.Value = ev.Value, ev.Value
		if ev.Kind == cassandralog.TimedOutRead {
			e.TimedOut = ev.Value
		}
	}
	n.put(e)
}

// put folds e into n's evidence.
func (n *nodeLogs) put(e model.LogEvidence) {
	k := keyOf(&e)
	cur := n.evidence[k]
	if cur == nil {
		n.evidence[k] = &e
		return
	}
	fold(cur, &e)
}

// fold merges e into cur: the largest figure, every occurrence counted.
func fold(cur, e *model.LogEvidence) {
	if e.Kind == model.LogSlowRead {
		cur.Value += e.Value
	} else if e.Value >= cur.Value {
		cur.Value, cur.LiveRows = e.Value, e.LiveRows
	}
	foldSeries(cur, e)
	cur.Count += e.Count
	cur.TimedOut += e.TimedOut
	cur.MaxMillis = max(cur.MaxMillis, e.MaxMillis)
	cur.Failure = cur.Failure || e.Failure
	if e.Threshold != 0 {
		cur.Threshold = e.Threshold
	}
	if e.First.Before(cur.First) {
		cur.First = e.First
	}
	if e.Last.After(cur.Last) {
		cur.Last, cur.Where = e.Last, e.Where
		if e.Statement != "" {
			cur.Statement = e.Statement
		}
	}
}

// prune drops evidence last seen before now − maxAge, then the oldest
// beyond maxKeys.
func (n *nodeLogs) prune(now time.Time, maxAge time.Duration, maxKeys int) {
	for k, e := range n.evidence {
		if now.Sub(e.Last) > maxAge {
			delete(n.evidence, k)
		}
	}
	if len(n.evidence) <= maxKeys {
		return
	}
	all := n.sorted()
	sort.SliceStable(all, func(i, j int) bool { return all[i].Last.After(all[j].Last) })
	for _, e := range all[maxKeys:] {
		delete(n.evidence, keyOf(&e))
	}
}

// sorted is the evidence in a stable order: by table, kind, key.
func (n *nodeLogs) sorted() []model.LogEvidence {
	out := make([]model.LogEvidence, 0, len(n.evidence))
	for _, e := range n.evidence {
		out = append(out, *e)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := &out[i], &out[j]
		return cmp.Or(
			cmp.Compare(a.Keyspace, b.Keyspace),
			cmp.Compare(a.Table, b.Table),
			cmp.Compare(a.Kind, b.Kind),
			cmp.Compare(a.Key, b.Key),
			cmp.Compare(a.Token, b.Token),
			cmp.Compare(guardrailIdent(a), guardrailIdent(b)),
		) < 0
	})
	return out
}

// partitionKeyColumns are a table's partition key columns by position, nil
// when the schema does not know the table.
func partitionKeyColumns(s *model.Schema, keyspace, table string) []string {
	if s == nil {
		return nil
	}
	for _, ks := range s.Keyspaces {
		if ks.Name != keyspace {
			continue
		}
		for _, t := range ks.Tables {
			if t.Name != table {
				continue
			}
			var cols []model.Column
			for _, c := range t.Columns {
				if c.Kind == "partition_key" {
					cols = append(cols, c)
				}
			}
			sort.Slice(cols, func(i, j int) bool { return cols[i].Position < cols[j].Position })
			names := make([]string, len(cols))
			for i, c := range cols {
				names[i] = c.Name
			}
			return names
		}
	}
	return nil
}

// isSystemKeyspaceIn: the schema's own flag, or the names the schema
// source marks system when the schema is not read yet.
func isSystemKeyspaceIn(name string, s *model.Schema) bool {
	if s != nil {
		for _, ks := range s.Keyspaces {
			if ks.Name == name {
				return ks.System
			}
		}
	}
	return isSystemKeyspace(name)
}

func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
