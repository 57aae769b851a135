package truth

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ForecastSample is one guardrail crossing partmon's daemon published
// (/api/v1/guardrails) on a corpus keyspace, as the runner saw it: a
// forecast (At) or a crossing partmon measured (Crossed). Seen is when the
// runner first read it, the forecast's "made at".
type ForecastSample struct {
	Seen     time.Time `json:"seen"`
	Keyspace string    `json:"keyspace"`
	Table    string    `json:"table"`
	Key      string    `json:"key,omitempty"` // empty: the table's largest partition, or a write guardrail's column
	// Column is a write guardrail's column (Cassandra's lines name no key).
	Column    string  `json:"column,omitempty"`
	Guardrail string  `json:"guardrail"`
	Level     string  `json:"level"`
	Current   float64 `json:"current"`
	Crossed   bool    `json:"crossed"`
	At        int64   `json:"at,omitempty"`
	Earliest  int64   `json:"earliest,omitempty"`
	Latest    int64   `json:"latest,omitempty"`
}

// LoggedCrossing is the first line in which Cassandra logged a key past a
// guardrail level.
type LoggedCrossing struct {
	At    time.Time `json:"at"`
	Node  string    `json:"node"`
	Value float64   `json:"value"` // bytes or tombstones, as logged
}

// CrossingResult is one planted crossing and partmon's forecast of it.
type CrossingResult struct {
	Scenario  string `json:"scenario"`
	Keyspace  string `json:"keyspace"`
	Table     string `json:"table"`
	Key       string `json:"key"`
	Column    string `json:"column,omitempty"` // a write guardrail's column
	Guardrail string `json:"guardrail"`
	Level     string `json:"level"`
	// Logged is Cassandra's line (nil: not crossed during the run); for a
	// write guardrail the first refused write, as the client saw it.
	Logged *LoggedCrossing `json:"logged,omitempty"`
	// Warned and FailLine are a write guardrail's first warn line and
	// first fail line in the node logs: where partmon's evidence starts,
	// and the node's side of the refusal.
	Warned   *LoggedCrossing `json:"warned,omitempty"`
	FailLine *LoggedCrossing `json:"fail_line,omitempty"`
	// First is partmon's first forecast made before the logged crossing,
	// Last its last one; nil when it made none.
	First *ForecastSample `json:"first,omitempty"`
	Last  *ForecastSample `json:"last,omitempty"`
	// Lead is how long before the logged crossing the first forecast was
	// made; Error its forecast minus the logged time (negative: early).
	Lead      time.Duration `json:"lead_ns"`
	Error     time.Duration `json:"error_ns"`
	LastError time.Duration `json:"last_error_ns"`
	Tolerance time.Duration `json:"tolerance_ns"`
	Found     bool          `json:"found"`
	Note      string        `json:"note,omitempty"`
}

// FalseForecast is a forecast or crossing partmon published for a corpus
// table with no planted crossing of that guardrail level (a good design,
// or another key): the truth says it stays silent.
type FalseForecast struct {
	Scenario string         `json:"scenario"`
	Design   string         `json:"design"`
	Sample   ForecastSample `json:"sample"`
}

// guardrailWatch records what the daemon's /api/v1/guardrails says while
// the planted keys grow.
type guardrailWatch struct {
	mu      sync.Mutex
	samples []ForecastSample
	seen    map[string]bool
	errs    int
	lastErr error
	ready   bool // a read has succeeded: a 503 before the first report is no failure
}

func (w *guardrailWatch) run(ctx context.Context, d *Daemon, keyspaces []string, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		var body struct {
			Crossings []ForecastSample `json:"crossings"`
		}
		err := d.get(ctx, "/api/v1/guardrails", &body)
		now := time.Now()
		w.mu.Lock()
		w.ready = w.ready || err == nil
		if err != nil && ctx.Err() == nil && w.ready {
			w.errs++
			w.lastErr = err
		}
		for _, c := range body.Crossings {
			if !strings.HasPrefix(c.Keyspace, "truth_") || !contains(keyspaces, c.Keyspace) || (c.At == 0 && !c.Crossed) {
				continue
			}
			// One sample per published figure: the report changes every
			// analysis cycle, the runner polls more often.
			id := fmt.Sprintf("%s.%s/%s/%s/%s/%s/%v/%d/%g", c.Keyspace, c.Table, c.Key, c.Column, c.Guardrail, c.Level, c.Crossed, c.At, c.Current)
			if w.seen[id] {
				continue
			}
			w.seen[id] = true
			c.Seen = now
			w.samples = append(w.samples, c)
		}
		w.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// watchGuardrails polls the daemon's /api/v1/guardrails every 5 s while
// scenarios with planted crossings run; the returned function stops it and
// gives what it saw.
func (r *runner) watchGuardrails(ctx context.Context, d *Daemon) func() []ForecastSample {
	var keyspaces []string
	for _, sc := range r.scs {
		if len(sc.Crossings) > 0 || len(sc.Guardrails) > 0 {
			keyspaces = r.keyspaces()
		}
	}
	if keyspaces == nil {
		return func() []ForecastSample { return nil }
	}
	r.daemonStart = time.Now().Truncate(time.Second)
	ctx, cancel := context.WithCancel(ctx)
	w := &guardrailWatch{seen: map[string]bool{}}
	done := make(chan struct{})
	go func() { defer close(done); w.run(ctx, d, keyspaces, 5*time.Second) }()
	stopped := false
	return func() []ForecastSample {
		cancel()
		<-done
		if w.errs > 0 && !stopped {
			r.res.Notes = append(r.res.Notes, fmt.Sprintf("%d reads of /api/v1/guardrails failed, the last: %v", w.errs, w.lastErr))
		}
		stopped = true
		return w.samples
	}
}

// judgeCrossingsOf judges the daemon's forecasts against the node logs
// and the collection writers' refusals.
func (r *runner) judgeCrossingsOf(res *PhaseResult, samples []ForecastSample, writers []*collectionWriter) {
	if !slices.ContainsFunc(r.scs, func(s *Scenario) bool { return len(s.Crossings) > 0 || len(s.Guardrails) > 0 }) {
		return
	}
	logged, err := firstLoggedCrossings(r.c.nodeLogs(), r.daemonStart)
	if err != nil {
		r.res.Notes = append(r.res.Notes, "reading the node logs for guardrail crossings: "+err.Error())
	}
	keyOf := func(sc *Scenario, table string, p int) string {
		return r.tables[sc.Keyspace+"."+table].gen.KeyString(p)
	}
	refused := func(sc *Scenario, ct CrossingTruth) *LoggedCrossing { return refusalOf(writers, sc, ct) }
	res.Crossings, res.FalseForecasts = judgeCrossings(r.scs, keyOf, refused, samples, logged)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// guardrailLine is a 5.0 guardrail line in system.log (deploy/local's
// logback pattern "%-5level [%thread] %date{ISO8601} %logger{0} - %msg"):
// WARN  [CompactionExecutor:2] 2026-12-05 11:40:01,234 Guardrail - Guardrail partition_size violated: Partition ks.t:key on sstable PATH has size 17000000, this exceeds the warning threshold of 16777216. ...
var guardrailLine = regexp.MustCompile(`^(?:WARN|ERROR)\s+\[[^\]]*\] (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) .*?Guardrail (partition_size|partition_tombstones) violated: Partition (.*) on sstable .* has (?:size )?(\d+)(?: tombstones)?, this exceeds the (warning|failure) threshold`)

// crossingID names a logged crossing: keyspace.table:key, guardrail, level.
func crossingID(ksTableKey, guardrail, level string) string {
	return ksTableKey + "|" + guardrail + "|" + level
}

// firstLoggedCrossings reads each node's system.log and keeps, per key,
// guardrail and level, the earliest line at or after since (the log's
// times are the node's local time, this machine's): a cluster kept from an
// earlier run still has that run's lines for the same keys.
func firstLoggedCrossings(logs map[string]string, since time.Time) (map[string]LoggedCrossing, error) {
	out := map[string]LoggedCrossing{}
	for node, path := range logs {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		keep := func(id string, at time.Time, v float64) {
			if old, ok := out[id]; !at.Before(since) && (!ok || at.Before(old.At)) {
				out[id] = LoggedCrossing{At: at, Node: node, Value: v}
			}
		}
		for sc.Scan() {
			if id, at, v, ok := loggedWriteLine(sc.Text()); ok {
				keep(id, at, v)
				continue
			}
			m := guardrailLine.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			at, err := time.ParseInLocation("2006-01-02 15:04:05,000", m[1], time.Local)
			if err != nil || at.Before(since) {
				continue
			}
			level := map[string]string{"warning": "warn", "failure": "fail"}[m[5]]
			v, _ := strconv.ParseFloat(m[4], 64)
			keep(crossingID(m[3], m[2], level), at, v)
		}
		err = sc.Err()
		_ = f.Close() // only read
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return out, nil
}

// nodeLogs are the system.log files of the cluster's nodes
// (deploy/local/cluster: DIR/nodeN/logs, N in HOSTS order from 1).
func (c *Cluster) nodeLogs() map[string]string {
	out := map[string]string{}
	for i, h := range c.Hosts {
		out[h] = filepath.Join(c.Dir, fmt.Sprintf("node%d", i+1), "logs", "system.log")
	}
	return out
}

// judgeCrossings holds partmon's forecasts to the crossings Cassandra
// logged. A planted crossing is found when partmon forecast it before the
// logged line, the table's largest partition or the planted key itself
// (both are the same partition: the scenario plants the table's largest),
// and its first such forecast is within the tolerance of the line. Every
// other forecast or crossing on a scenario table is false: the truth says
// nothing else there nears a threshold. keys renders a scenario's
// partition as Cassandra prints it.
//
// A write guardrail's crossing is the column's: found when partmon
// forecast the fail level of that column, naming the table, before the
// first refused write (refused; nil: none) and within the tolerance of it.
func judgeCrossings(scs []*Scenario, keys func(sc *Scenario, table string, p int) string,
	refused func(sc *Scenario, ct CrossingTruth) *LoggedCrossing,
	samples []ForecastSample, logged map[string]LoggedCrossing) ([]CrossingResult, []FalseForecast) {
	var results []CrossingResult
	claimed := make([]bool, len(samples))
	byKS := map[string]*Scenario{}
	for _, sc := range scs {
		byKS[sc.Keyspace] = sc
		for _, ct := range sc.Crossings {
			key := keys(sc, ct.Table, ct.Partition)
			r := CrossingResult{Scenario: sc.Name, Keyspace: sc.Keyspace, Table: ct.Table, Key: key, Column: ct.Column,
				Guardrail: ct.Guardrail, Level: ct.Level, Tolerance: ct.Tolerance}
			if ct.Column == "" {
				if l, ok := logged[crossingID(sc.Keyspace+"."+ct.Table+":"+key, ct.Guardrail, ct.Level)]; ok {
					r.Logged = &l
				}
			} else {
				if refused != nil {
					r.Logged = refused(sc, ct)
				}
				for level, to := range map[string]**LoggedCrossing{"warn": &r.Warned, "fail": &r.FailLine} {
					if l, ok := logged[writeCrossingID(ct.Column, ct.Guardrail, level)]; ok {
						*to = &l
					}
				}
			}
			for i := range samples {
				s := &samples[i]
				if s.Keyspace != sc.Keyspace || s.Table != ct.Table || s.Guardrail != ct.Guardrail || s.Level != ct.Level ||
					s.Column != ct.Column || (s.Key != "" && s.Key != key) {
					continue
				}
				claimed[i] = true
				if s.Crossed || s.At == 0 || (r.Logged != nil && !s.Seen.Before(r.Logged.At)) {
					continue
				}
				if r.First == nil {
					r.First = s
				}
				r.Last = s
			}
			r.judge()
			results = append(results, r)
		}
	}
	var false_ []FalseForecast
	for i, s := range samples {
		if !claimed[i] && byKS[s.Keyspace] != nil {
			false_ = append(false_, FalseForecast{Scenario: byKS[s.Keyspace].Name, Design: byKS[s.Keyspace].Design, Sample: s})
		}
	}
	return results, false_
}

func (r *CrossingResult) judge() {
	switch {
	case r.Logged == nil && r.Column != "":
		r.Note = "no write was refused during the run: the collection did not reach the fail level in time"
	case r.Logged == nil:
		r.Note = "Cassandra logged no crossing during the run: the planted growth did not reach the threshold in time"
	case r.First == nil:
		r.Note = "no forecast made before the logged crossing"
	default:
		logged := r.Logged.At
		r.Lead = logged.Sub(r.First.Seen)
		r.Error = time.Unix(r.First.At, 0).Sub(logged)
		r.LastError = time.Unix(r.Last.At, 0).Sub(logged)
		r.Found = r.Error.Abs() <= r.Tolerance
		if !r.Found {
			r.Note = fmt.Sprintf("the first forecast is off by %s, beyond the tolerance %s", r.Error.Round(time.Second), r.Tolerance)
		}
	}
}
