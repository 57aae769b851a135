package truth

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The corpus as the issue asks for it: at least 16 scenarios from public
// references, half of them good designs, RF 1 and RF 3, NetworkTopology
// scenarios on the two-DC cluster, and the issue's three cases in the CI
// subset with the truth they must hold to.
func TestCorpusShape(t *testing.T) {
	all, err := LoadDir("scenarios")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 16 {
		t.Fatalf("%d scenarios, want at least 16", len(all))
	}
	good, rf := 0, map[string]bool{}
	var twodcNTS, ci int
	for _, s := range all {
		if s.Design == DesignGood {
			good++
		}
		if f := s.Replication["replication_factor"]; f != "" {
			rf[f] = true
		}
		if s.Cluster == ClusterTwoDC && s.Replication["class"] == "NetworkTopologyStrategy" {
			twodcNTS++
		}
		if s.CI {
			ci++
		}
	}
	if 2*good < len(all)-1 || 2*good > len(all)+1 {
		t.Errorf("%d good designs of %d scenarios, want half", good, len(all))
	}
	if !rf["1"] || !rf["3"] {
		t.Errorf("replication factors %v, want both 1 and 3", rf)
	}
	if twodcNTS < 2 {
		t.Errorf("%d NetworkTopologyStrategy scenarios on the two-DC cluster, want the ownership and hot-range cases there", twodcNTS)
	}
	if ci == 0 || ci == len(all) {
		t.Errorf("CI subset has %d of %d scenarios, want a proper subset", ci, len(all))
	}
}

func TestIssueCases(t *testing.T) {
	all, err := LoadDir("scenarios")
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*Scenario{}
	for _, s := range all {
		byName[s.Name] = s
	}
	cases := []struct {
		name, table string
		check       func(*Scenario, *Table) string
	}{
		{"orders_by_country", "orders_by_country", func(s *Scenario, tb *Table) string {
			total := 0
			for p := 0; p < tb.Partitions; p++ {
				total += tb.RowsOf(p)
			}
			if tb.Partitions != 5 || total != 200000 || s.Replication["replication_factor"] != "1" || !expects(s, "low_cardinality_key") {
				return "want 5 countries, 200,000 rows, RF 1, expecting low_cardinality_key"
			}
			return ""
		}},
		{"user_timeline_hot_user", "user_timeline", func(s *Scenario, tb *Table) string {
			tr := s.Traffic[0]
			if tr.Hot == nil || len(tr.Reads) != 1 || !strings.HasPrefix(tr.Reads[0], "SELECT count(*)") || expects(s, "wide_partition") || allows(s, "wide_partition") {
				return "want one hot user, count(*) reads and no wide_partition expected or allowed"
			}
			return ""
		}},
		{"viewing_history", "viewing_history", func(s *Scenario, tb *Table) string {
			if s.Design != DesignGood || tb.Rows != 20 || len(s.Allow) != 0 {
				return "want a silent good design with 20 rows per user and nothing allowed"
			}
			return ""
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := byName[c.name]
			if s == nil {
				t.Fatalf("no scenario %s", c.name)
			}
			if !s.CI {
				t.Errorf("%s is not in the CI subset", c.name)
			}
			if msg := c.check(s, s.Table(c.table)); msg != "" {
				t.Error(msg)
			}
		})
	}
}

func expects(s *Scenario, kind string) bool { return hasKind(s.Expect, kind) }
func allows(s *Scenario, kind string) bool  { return hasKind(s.Allow, kind) }

func hasKind(list []Expectation, kind string) bool {
	for _, e := range list {
		if e.Kind == kind {
			return true
		}
	}
	return false
}

const validScenario = `name: demo
title: a demo
design: bad
references: [somewhere]
cluster: single
keyspace: truth_demo
replication: {class: SimpleStrategy, replication_factor: "1"}
tables:
  - name: t
    cql: CREATE TABLE {ks}.t (k text, c int, v text, PRIMARY KEY (k, c))
    partitions: 10
    rows: 5
traffic:
  - table: t
    rate: 10
    read_ratio: 0.5
    reads: ["SELECT * FROM {table} WHERE k = ?"]
expect:
  - kind: hot_partition
    table: t
    key: {table: t, partition: 0}
`

// Each bad file gives one message naming what to fix.
func TestValidateRejects(t *testing.T) {
	cases := []struct {
		name, from, to, want string
	}{
		{"unknown key", "design: bad", "design: bad\ncolour: red", "field colour not found"},
		{"keyspace prefix", "keyspace: truth_demo", "keyspace: demo", "starting with truth_"},
		{"design", "design: bad", "design: fine", `design "fine"`},
		{"good expects", "design: bad", "design: good", "a good design expects nothing"},
		{"cluster", "cluster: single", "cluster: three", `cluster "three": want single, twodc, heavy or guardrail`},
		{"replication", `replication_factor: "1"`, `replication_factor: "one"`, "SimpleStrategy takes exactly"},
		{"table cql", "CREATE TABLE {ks}.t", "CREATE TABLE other.t", "cql must be a CREATE TABLE of {ks}.t"},
		{"rows", "rows: 5", "rows: 0", "must be positive"},
		{"traffic table", "  - table: t\n    rate", "  - table: u\n    rate", `traffic on "u": no such table`},
		{"ratio", "read_ratio: 0.5", "read_ratio: 1.5", "read_ratio + delete_ratio"},
		{"reads", `reads: ["SELECT * FROM {table} WHERE k = ?"]`, `reads: ["SELECT * FROM t WHERE k = ?"]`, "must name its table as {table}"},
		{"key range", "partition: 0}", "partition: 10}", "partition in range"},
		{"severity", "    key: {table: t, partition: 0}", "    key: {table: t, partition: 0}\n    min_severity: loud", `min_severity "loud"`},
		{"phase", "    key: {table: t, partition: 0}", "    key: {table: t, partition: 0}\n    phase: later", `phase "later"`},
		{"references", "references: [somewhere]", "references: []", "title and references are required"},
		{"node and node_in", "    key: {table: t, partition: 0}", "    key: {table: t, partition: 0}\n    node: 10.0.0.1\n    node_in: {dc: dc1, rack: r1}", "one of node, node_of and node_in"},
		{"node_in rack", "    key: {table: t, partition: 0}", "    key: {table: t, partition: 0}\n    node_in: {dc: dc1}", "node_in needs both dc and rack"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(validScenario, c.from) {
				t.Fatalf("test case edits %q, which the valid scenario lacks", c.from)
			}
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".yaml")
			if err := os.WriteFile(path, []byte(strings.Replace(validScenario, c.from, c.to, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadFile(path)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

func TestValidScenarioLoads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ok.yaml")
	if err := os.WriteFile(path, []byte(validScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tr := s.Traffic[0]
	if tr.Popularity != "zipf" || tr.ZipfS != 0.9 || tr.Writes != "append" || tr.Consistency != "ONE" {
		t.Errorf("traffic defaults %+v", tr)
	}
	if e := s.Expect[0]; e.MinSeverity != "warning" || e.Phase != PhaseBoth {
		t.Errorf("expectation defaults %+v", e)
	}
	if got := s.ReplicationCQL(); got != "{'class': 'SimpleStrategy', 'replication_factor': '1'}" {
		t.Errorf("replication CQL %s", got)
	}
}

func TestDuplicateKeyspace(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a.yaml", "b.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(validScenario), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := LoadDir(dir)
	if err == nil || !strings.Contains(err.Error(), "keyspace truth_demo is also used by") {
		t.Fatalf("got %v", err)
	}
}
