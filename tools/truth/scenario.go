// Package truth is partmon's truth corpus: a library of schemas and
// workloads written from public references (tools/truth/scenarios/*.yaml), each
// with the findings it must give ("expect"), may give ("allow") or must not
// give (a good design is "silent"). The runner loads them on a real local
// Cassandra cluster, drives production-like traffic, runs the real partmon
// binary (one-shot and daemon), reads its JSON, checks the figures against
// the real nodetool on the same node and prints a confusion table.
//
// The truth lives in the scenario files as data; nothing here knows a rule's
// threshold, and the rules know nothing of the corpus.
package truth

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Design says whether a scenario plants problems or must stay silent.
const (
	DesignGood = "good"
	DesignBad  = "bad"
)

// Clusters a scenario can run on (scripts/truth.sh starts them).
const (
	ClusterSingle = "single" // 3 nodes, one DC, racks r1-r3
	ClusterTwoDC  = "twodc"  // dc1 racks r1,r1,r2 and dc2 rack r1 (scripts/truth.sh: 16 tokens a node, or 256)
	ClusterHeavy  = "heavy"  // 3 nodes, dc1 racks r1-r3, --num-tokens 16,16,32: the r3 node owns more
	// ClusterGuardrail: 3 nodes, dc1 racks r1-r3, started with its scenarios' guardrails (guardrail.go)
	ClusterGuardrail = "guardrail"
)

// Phases in which an expectation holds.
const (
	PhaseOneShot = "oneshot"
	PhaseDaemon  = "daemon"
	PhaseBoth    = "both"
)

// Scenario is one file of tools/truth/scenarios.
type Scenario struct {
	File       string   `yaml:"-"`
	Name       string   `yaml:"name"`
	Title      string   `yaml:"title"`
	Design     string   `yaml:"design"`
	References []string `yaml:"references"`
	Cluster    string   `yaml:"cluster"`
	CI         bool     `yaml:"ci"`
	Keyspace   string   `yaml:"keyspace"`
	// Replication is the keyspace's replication map, as CQL takes it:
	// {class: SimpleStrategy, replication_factor: 1} or
	// {class: NetworkTopologyStrategy, dc1: 2, dc2: 1}.
	Replication map[string]string `yaml:"replication"`
	Tables      []Table           `yaml:"tables"`
	Traffic     []Traffic         `yaml:"traffic"`
	Grow        []Grow            `yaml:"grow"`
	// CollectionWrites rewrite one row's collection during the daemon
	// phase through an ordinary role (collections.go).
	CollectionWrites []CollectionWrite `yaml:"collection_writes"`
	Expect           []Expectation     `yaml:"expect"`
	Allow            []Expectation     `yaml:"allow"`
	// Decided are the judgements partmon's evidence settles for a table
	// (the schema, or a bound the sources give): a "<kind> of <table>
	// unknown" note on one is a defect, as a false finding is.
	Decided []Expectation `yaml:"decided"`
	// Guardrails are cassandra.yaml settings its cluster runs with, and
	// Crossings the planted keys' guardrail crossings (guardrail.go).
	Guardrails map[string]string `yaml:"guardrails"`
	Crossings  []CrossingTruth   `yaml:"crossings"`
}

// Table is one table of a scenario and the data loaded into it.
type Table struct {
	Name string `yaml:"name"`
	// CQL creates the table; {ks} stands for the scenario's keyspace.
	CQL        string `yaml:"cql"`
	Partitions int    `yaml:"partitions"`
	Rows       int    `yaml:"rows"` // rows per partition
	// Outliers are partitions with another row count than Rows.
	Outliers []Outlier `yaml:"outliers"`
	// DeleteFirst deletes, row by row, the first N rows of every partition
	// after loading: what the consumers of a queue table do.
	DeleteFirst int               `yaml:"delete_first"`
	Columns     map[string]Column `yaml:"columns"`
}

// Outlier is a partition with its own row count.
type Outlier struct {
	Partition int `yaml:"partition"`
	Rows      int `yaml:"rows"`
}

// Column overrides how one column's values are made (values.go).
type Column struct {
	// Values are the partition key values, in partition order (cardinality = len).
	Values []string `yaml:"values"`
	// Count is the cardinality of one column of a compound partition key.
	Count int `yaml:"count"`
	// Format is a fmt verb for text values made from an index ("user-%06d").
	Format string `yaml:"format"`
	// Size is the length of a text or blob payload, in bytes.
	Size int `yaml:"size"`
	// Step is the time between two rows of a time column (default 1s).
	Step time.Duration `yaml:"step"`
}

// Traffic is the steady workload on one table.
type Traffic struct {
	Table       string  `yaml:"table"`
	Rate        float64 `yaml:"rate"`         // operations per second
	ReadRatio   float64 `yaml:"read_ratio"`   // 0..1
	DeleteRatio float64 `yaml:"delete_ratio"` // share of operations deleting a partition's oldest live row
	// Popularity of partitions: zipf (exponent ZipfS) or uniform.
	Popularity string  `yaml:"popularity"`
	ZipfS      float64 `yaml:"zipf_s"`
	// Hot sends a share of all operations to one partition.
	Hot *Hot `yaml:"hot"`
	// Reads are statements whose ? markers take the partition key's values,
	// in key order; one is picked at random per read.
	Reads []string `yaml:"reads"`
	// Writes: append (a new row after the partition's last) or overwrite
	// (an existing row again).
	Writes      string `yaml:"writes"`
	Consistency string `yaml:"consistency"` // ONE (default) or LOCAL_ONE
	// FromDCs are the data centers whose nodes serve as coordinators
	// (two-DC scenarios); empty: every node.
	FromDCs []string `yaml:"from_dcs"`
}

// Hot is a partition that takes Share of a table's operations.
type Hot struct {
	Partition int     `yaml:"partition"`
	Share     float64 `yaml:"share"`
}

// Grow appends rows to one partition during the daemon phase, with a flush
// and a compaction every FlushEvery, so the partition's growth is on disk.
type Grow struct {
	Table         string        `yaml:"table"`
	Partition     int           `yaml:"partition"`
	RowsPerSecond float64       `yaml:"rows_per_second"`
	FlushEvery    time.Duration `yaml:"flush_every"`
}

// Expectation names a finding: one the scenario must give (expect) or may
// give (allow, true when present).
type Expectation struct {
	Kind  string `yaml:"kind"`
	Table string `yaml:"table"` // empty: keyspace-level (ownership_skew)
	// Node is a literal node address; NodeOf names the replicas of a
	// partition instead (asked of the real nodetool getendpoints); NodeIn
	// the nodes of one DC and rack, whatever addresses the cluster runs on.
	Node   string   `yaml:"node"`
	NodeOf *KeyRef  `yaml:"node_of"`
	NodeIn *NodeRef `yaml:"node_in"`
	// Key is the partition the finding must name, by index (rendered as
	// partmon prints keys); nil when the source cannot name one.
	Key         *KeyRef `yaml:"key"`
	MinSeverity string  `yaml:"min_severity"` // default warning
	Phase       string  `yaml:"phase"`        // oneshot, daemon or both (default)
	Why         string  `yaml:"why"`
}

// KeyRef is a partition of a table, by index, optionally limited to the
// replicas in one DC.
type KeyRef struct {
	Table     string `yaml:"table"`
	Partition int    `yaml:"partition"`
	DC        string `yaml:"dc"`
}

// NodeRef is the nodes of one rack of one DC (cluster.env's DCS and RACKS).
type NodeRef struct {
	DC   string `yaml:"dc"`
	Rack string `yaml:"rack"`
}

// LoadDir reads every *.yaml scenario of dir, sorted by file name, and
// validates each; the error names the file and what to fix.
func LoadDir(dir string) ([]*Scenario, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no scenario files (*.yaml) in %s", dir)
	}
	sort.Strings(paths)
	var out []*Scenario
	var errs []error
	keyspaces := map[string]string{}
	for _, p := range paths {
		s, err := LoadFile(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if other, dup := keyspaces[s.Keyspace]; dup {
			errs = append(errs, fmt.Errorf("%s: keyspace %s is also used by %s; every scenario needs its own", p, s.Keyspace, other))
			continue
		}
		keyspaces[s.Keyspace] = p
		out = append(out, s)
	}
	return out, errors.Join(errs...)
}

// LoadFile reads and validates one scenario file (strict: unknown keys are errors).
func LoadFile(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading scenario: %w", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var s Scenario
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s.File = path
	s.applyDefaults()
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &s, nil
}

func (s *Scenario) applyDefaults() {
	for i := range s.Traffic {
		t := &s.Traffic[i]
		if t.Popularity == "" {
			t.Popularity = "zipf"
		}
		if t.Popularity == "zipf" && t.ZipfS == 0 {
			t.ZipfS = 0.9
		}
		if t.Writes == "" {
			t.Writes = "append"
		}
		if t.Consistency == "" {
			t.Consistency = "ONE"
		}
	}
	for i := range s.CollectionWrites {
		if s.CollectionWrites[i].Every == 0 {
			s.CollectionWrites[i].Every = 10 * time.Second
		}
		if s.CollectionWrites[i].ItemSize == 0 {
			s.CollectionWrites[i].ItemSize = 20
		}
	}
	for i := range s.Grow {
		if s.Grow[i].FlushEvery == 0 {
			s.Grow[i].FlushEvery = 40 * time.Second
		}
	}
	for _, list := range [][]Expectation{s.Expect, s.Allow, s.Decided} {
		for i := range list {
			if list[i].MinSeverity == "" {
				list[i].MinSeverity = "warning"
			}
			if list[i].Phase == "" {
				list[i].Phase = PhaseBoth
			}
		}
	}
}

var identifier = regexp.MustCompile(`^[a-z][a-z0-9_]{0,47}$`)

// Validate checks what the runner relies on, so a mistake in a scenario
// file is one clear message rather than a failed run half an hour later.
func (s *Scenario) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if !identifier.MatchString(s.Name) {
		bad("name %q: want a lower-case identifier", s.Name)
	}
	if !identifier.MatchString(s.Keyspace) || !strings.HasPrefix(s.Keyspace, "truth_") {
		bad("keyspace %q: want a lower-case identifier starting with truth_ (the runner drops only those)", s.Keyspace)
	}
	if s.Title == "" || len(s.References) == 0 {
		bad("title and references are required: say what public schema or guidance the scenario comes from")
	}
	if s.Design != DesignGood && s.Design != DesignBad {
		bad("design %q: want good or bad", s.Design)
	}
	if !slices.Contains([]string{ClusterSingle, ClusterTwoDC, ClusterHeavy, ClusterGuardrail}, s.Cluster) {
		bad("cluster %q: want single, twodc, heavy or guardrail", s.Cluster)
	}
	if s.Design == DesignGood && len(s.Expect) > 0 {
		bad("a good design expects nothing (it must stay silent); list true info findings under allow")
	}
	if s.Design == DesignBad && len(s.Expect) == 0 {
		bad("a bad design must expect at least one finding")
	}
	errs = append(errs, s.validateReplication()...)
	tables := map[string]*Table{}
	for i := range s.Tables {
		t := &s.Tables[i]
		if err := t.validate(s.Keyspace); err != nil {
			bad("table %q: %v", t.Name, err)
		}
		tables[t.Name] = t
	}
	if len(s.Tables) == 0 {
		bad("no tables")
	}
	for _, tr := range s.Traffic {
		if err := tr.validate(tables); err != nil {
			bad("traffic on %q: %v", tr.Table, err)
		}
	}
	for _, g := range s.Grow {
		if t := tables[g.Table]; t == nil || g.Partition < 0 || g.Partition >= t.Partitions || g.RowsPerSecond <= 0 {
			bad("grow: table %q partition %d rows_per_second %g: want a table of the scenario, a partition index in range and a positive rate", g.Table, g.Partition, g.RowsPerSecond)
		}
	}
	errs = append(errs, s.validateGuardrails()...)
	for _, e := range slices.Concat(s.Expect, s.Allow, s.Decided) {
		if err := e.validate(tables); err != nil {
			bad("expectation %s on %q: %v", e.Kind, e.Table, err)
		}
	}
	return errors.Join(errs...)
}

func (s *Scenario) validateReplication() []error {
	class := s.Replication["class"]
	switch class {
	case "SimpleStrategy":
		if len(s.Replication) != 2 || !positiveInt(s.Replication["replication_factor"]) {
			return []error{fmt.Errorf("replication: SimpleStrategy takes exactly replication_factor: N")}
		}
	case "NetworkTopologyStrategy":
		if len(s.Replication) < 2 {
			return []error{fmt.Errorf("replication: NetworkTopologyStrategy needs a factor per DC")}
		}
		for k, v := range s.Replication {
			if k != "class" && (!identifier.MatchString(k) || !positiveInt(v)) {
				return []error{fmt.Errorf("replication: %s: %q is not a DC with a positive factor", k, v)}
			}
		}
	default:
		return []error{fmt.Errorf("replication: class %q: want SimpleStrategy or NetworkTopologyStrategy", class)}
	}
	return nil
}

func positiveInt(s string) bool {
	var n int
	_, err := fmt.Sscanf(s, "%d", &n)
	return err == nil && n > 0 && fmt.Sprint(n) == s
}

// ReplicationCQL renders the replication map for CREATE KEYSPACE.
func (s *Scenario) ReplicationCQL() string {
	keys := make([]string, 0, len(s.Replication))
	for k := range s.Replication {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("'%s': '%s'", k, s.Replication[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// For selects the scenarios of one cluster (and, with ci, only the CI subset).
func For(all []*Scenario, cluster string, ci bool) []*Scenario {
	var out []*Scenario
	for _, s := range all {
		if s.Cluster == cluster && (!ci || s.CI) {
			out = append(out, s)
		}
	}
	return out
}

// RowsOf is the number of rows loaded into partition p of t.
func (t *Table) RowsOf(p int) int {
	for _, o := range t.Outliers {
		if o.Partition == p {
			return o.Rows
		}
	}
	return t.Rows
}

// Table finds a table of the scenario by name.
func (s *Scenario) Table(name string) *Table {
	for i := range s.Tables {
		if s.Tables[i].Name == name {
			return &s.Tables[i]
		}
	}
	return nil
}
