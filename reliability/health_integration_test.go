//go:build integration

package reliability

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/tools/testcluster"
)

// health is what partmon says about every node at one moment: /metrics and
// the stale_data findings of /api/v1/findings.
type health struct {
	at       time.Time
	stale    map[string]float64            // partmon_node_stale by node
	lastOK   map[string]map[string]float64 // node → collector → last success (unix s); node "" for cluster sources
	duration map[string]map[string]float64 // node → collector → duration of its last run (s)
	success  map[string]map[string]float64
	findings map[string]finding.Finding // stale_data finding by node
}

func (d *daemon) health() (health, error) {
	h := health{at: time.Now()}
	fams, err := d.metrics()
	if err != nil {
		return h, err
	}
	h.stale = map[string]float64{}
	for _, s := range samples(fams, "partmon_node_stale") {
		h.stale[s.labels["node"]] = s.value
	}
	h.lastOK = byNode(fams, "partmon_collector_last_success_timestamp_seconds")
	h.duration = byNode(fams, "partmon_collector_duration_seconds")
	h.success = byNode(fams, "partmon_collector_success")
	body, code, err := d.get("/api/v1/findings?kind=stale_data")
	if err != nil || code != 200 {
		return h, fmt.Errorf("GET /api/v1/findings: %d %v", code, err)
	}
	var resp struct {
		Findings []finding.Finding `json:"findings"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return h, err
	}
	h.findings = map[string]finding.Finding{}
	for _, f := range resp.Findings {
		h.findings[f.Node] = f
	}
	return h, nil
}

// markedBad: the node is published stale with a stale_data finding.
func (h health) markedBad(node string) (bool, string) {
	_, ok := h.findings[node]
	if h.stale[node] == 1 && ok {
		return true, ""
	}
	return false, fmt.Sprintf("partmon_node_stale{node=%q}=%v, stale_data finding %v", node, h.stale[node], ok)
}

// healthy: every node is published, none stale, no stale_data finding.
func (h health) healthy(nodes []string) (bool, string) {
	var bad []string
	for _, n := range nodes {
		v, ok := h.stale[n]
		if !ok || v != 0 {
			bad = append(bad, fmt.Sprintf("%s stale=%v (published %v)", n, v, ok))
		}
		if f, ok := h.findings[n]; ok {
			bad = append(bad, fmt.Sprintf("%s has a stale_data finding: %s", n, f.Summary))
		}
	}
	return len(bad) == 0, strings.Join(bad, "; ")
}

// waitHealthy waits until partmon sees every node fresh and returns how long that took.
func (c *cluster) waitHealthy(d *daemon, bound time.Duration) time.Duration {
	d.t.Helper()
	return d.waitFor(bound, "every node fresh", func() (bool, string) {
		h, err := d.health()
		if err != nil {
			return false, err.Error()
		}
		return h.healthy(c.hosts)
	})
}

// othersTracker follows the nodes that are not at fault from the moment a
// fault begins until partmon has recovered from it: they must never be
// marked stale, and each of their sources must keep succeeding, tick after
// tick. A source job held up by the bad node would skip ticks on every node
// (the scheduler skips a job still running), so each healthy (node, source)
// must succeed in every tick of the window but two (the ticks that overlap
// the fault's start and the node's return); and no run of a healthy node may
// take a whole source period.
type othersTracker struct {
	nodes       []string
	since       time.Time
	period      time.Duration
	successes   map[string]map[float64]bool // node+source → distinct last-success times
	maxDuration float64
	maxWhere    string
	violations  []string
	last        health
}

func newOthersTracker(c *cluster, bad string, since time.Time, period time.Duration) *othersTracker {
	o := &othersTracker{since: since, period: period, successes: map[string]map[float64]bool{}}
	for _, h := range c.hosts {
		if h != bad {
			o.nodes = append(o.nodes, h)
		}
	}
	return o
}

func (o *othersTracker) observe(h health) {
	o.last = h
	since := float64(o.since.UnixNano()) / 1e9
	for _, n := range o.nodes {
		if h.stale[n] != 0 {
			o.violations = append(o.violations, fmt.Sprintf("%s: healthy node %s published stale", h.at.Format("15:04:05.000"), n))
		}
		if f, ok := h.findings[n]; ok {
			o.violations = append(o.violations, fmt.Sprintf("%s: healthy node %s has a stale_data finding: %s", h.at.Format("15:04:05.000"), n, f.Summary))
		}
		for src, d := range h.duration[n] {
			if d > o.maxDuration {
				o.maxDuration, o.maxWhere = d, n+" "+src
			}
		}
		for src, ts := range h.lastOK[n] {
			if ts <= since {
				continue
			}
			k := n + " " + src
			if o.successes[k] == nil {
				o.successes[k] = map[float64]bool{}
			}
			o.successes[k][ts] = true
		}
	}
}

// check reports every violation seen, every healthy source that missed more
// than two of the window's ticks, and a run as long as a period.
func (o *othersTracker) check(t *testing.T) {
	t.Helper()
	for i, v := range o.violations {
		if i == 10 {
			t.Errorf("... and %d more", len(o.violations)-10)
			break
		}
		t.Error(v)
	}
	window := o.last.at.Sub(o.since)
	ticks := int(window / o.period)
	need := max(1, ticks-2)
	var behind []string
	minRuns := ticks
	for _, n := range o.nodes {
		if len(o.last.lastOK[n]) == 0 {
			t.Errorf("%s: no collector series", n)
		}
		for src := range o.last.lastOK[n] {
			runs := len(o.successes[n+" "+src])
			minRuns = min(minRuns, runs)
			if runs < need {
				behind = append(behind, fmt.Sprintf("%s %s (%d)", n, src, runs))
			}
		}
	}
	sort.Strings(behind)
	if len(behind) > 0 {
		t.Errorf("healthy sources that succeeded in fewer than %d of %d ticks over %s: %s",
			need, ticks, window.Round(time.Second), strings.Join(behind, ", "))
	}
	if o.maxDuration >= o.period.Seconds() {
		t.Errorf("a healthy node's source run took %.2f s (%s), a whole source period", o.maxDuration, o.maxWhere)
	}
	t.Logf("healthy nodes over %s (%d ticks): every source succeeded at least %d times; longest run %.3f s (%s)",
		window.Round(time.Second), ticks, minRuns, o.maxDuration, o.maxWhere)
}

// during runs action (a fault or a repair) while it keeps polling partmon:
// partmon must keep answering, and o sees every poll.
// onPoll, if not nil, sees every poll too.
func (d *daemon) during(o *othersTracker, action func() error, onPoll func(health)) error {
	d.t.Helper()
	done := make(chan error, 1)
	go func() { done <- action() }()
	for {
		select {
		case err := <-done:
			return err
		case <-time.After(500 * time.Millisecond):
		}
		d.alive()
		h, err := d.health()
		if err != nil {
			d.t.Fatalf("partmon stopped answering: %v", err)
		}
		o.observe(h)
		if onPoll != nil {
			onPoll(h)
		}
	}
}

// seedTraffic writes and reads a small user table on every replica, so the
// traffic counters move and partmon's history (rates, forecasts) has points
// to keep across a restart.
func (c *cluster) seedTraffic(t *testing.T) {
	t.Helper()
	cfg := testcluster.ClusterConfigFor(c.env, c.hosts...)
	cfg.Consistency = gocql.All
	s, err := cfg.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, stmt := range []string{
		// Every node a replica, up to 3 (make faults' cluster; a 1-node
		// cluster checks an older version's grants).
		fmt.Sprintf("CREATE KEYSPACE IF NOT EXISTS partmon_reliability WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': %d}", min(3, len(c.hosts))),
		"CREATE TABLE IF NOT EXISTS partmon_reliability.kv (k text PRIMARY KEY, v text)",
	} {
		if err := s.Query(stmt).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	for i := range 200 {
		k := fmt.Sprintf("key-%03d", i)
		if err := s.Query("INSERT INTO partmon_reliability.kv (k, v) VALUES (?, ?)", k, strings.Repeat("v", 100)).Exec(); err != nil {
			t.Fatal(err)
		}
		var v string
		if err := s.Query("SELECT v FROM partmon_reliability.kv WHERE k = ?", k).Scan(&v); err != nil {
			t.Fatal(err)
		}
	}
}

// stateDoc is cmd/partmon's state file.
type stateDoc struct {
	Format  string          `json:"format"`
	Version int             `json:"version"`
	Saved   time.Time       `json:"saved"`
	History history.History `json:"history"`
}

func readState(path string) (stateDoc, error) {
	var doc stateDoc
	data, err := os.ReadFile(path)
	if err != nil {
		return doc, err
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return doc, fmt.Errorf("decoding %s: %w", path, err)
	}
	if doc.Format != "partmon-state" || doc.Version != 1 {
		return doc, fmt.Errorf("%s: format %q version %d", path, doc.Format, doc.Version)
	}
	return doc, nil
}

// firstPoints are the oldest point of every history series, by series name.
func firstPoints(h history.History) map[string]int64 {
	out := map[string]int64{}
	for key, pts := range h.Sizes {
		if len(pts) > 0 {
			out["size "+key] = pts[0][0]
		}
	}
	for host, byTable := range h.Traffic {
		for key, pts := range byTable {
			if len(pts) > 0 {
				out["traffic "+host+" "+key] = pts[0][0]
			}
		}
	}
	return out
}
