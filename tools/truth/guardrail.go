package truth

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/partmon/partmon/tools/testcluster"
)

// CrossingTruth is a planted key's crossing of one level of a per-partition
// guardrail: the scenario grows the key (its grow entry) until Cassandra
// logs the crossing at the sstable write (flush or compaction) that first
// holds the partition past the threshold. The log line is the truth of when
// it happened; partmon's first forecast of it, made before it, is held to
// it within Tolerance (crossings.go).
//
// A write guardrail's crossing (collection_size, items_per_collection,
// column_value_size) is a column's instead: the scenario's collection
// writes (collections.go) grow the column of the partition's row until
// Cassandra refuses a write. The first refused write, the client's error,
// is the truth of the fail level; only the fail level is planted, since
// Cassandra logs nothing of a value under the warn level and partmon
// forecasts from the warn lines. The first warn line is kept beside it as
// the start of that evidence.
type CrossingTruth struct {
	Table     string `yaml:"table"`
	Partition int    `yaml:"partition"`
	Column    string `yaml:"column"`    // a write guardrail's column; empty for a per-partition guardrail
	Guardrail string `yaml:"guardrail"` // partition_size, partition_tombstones, or a write guardrail
	Level     string `yaml:"level"`     // warn or fail (a write guardrail: fail)
	// Tolerance is how far partmon's first forecast may be from the logged
	// crossing; Why says where it comes from (the resolution of the figures
	// the forecast is made of).
	Tolerance time.Duration `yaml:"tolerance"`
	Why       string        `yaml:"why"`
}

// partitionGuardrails are the guardrails Cassandra 5.0 checks per partition
// when it writes an sstable (docs/sources.md, Guardrails), the ones a
// crossing's log line names.
var partitionGuardrails = []string{"partition_size", "partition_tombstones"}

var (
	guardrailSetting = regexp.MustCompile(`^[a-z][a-z_]*_(warn|fail)_threshold$`)
	guardrailValue   = regexp.MustCompile(`^[0-9]+(B|KiB|MiB|GiB)?$`)
)

// setting is the cassandra.yaml name of a guardrail level.
func (c *CrossingTruth) setting() string { return c.Guardrail + "_" + c.Level + "_threshold" }

// validateGuardrails checks the guardrail settings and the crossings: the
// settings only where scripts/truth.sh starts a cluster with them, and
// each crossing on a key the scenario grows, against a level it sets.
func (s *Scenario) validateGuardrails() []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if len(s.Guardrails) > 0 && s.Cluster != ClusterGuardrail {
		bad("guardrails: only the guardrail cluster is started with a scenario's settings (cluster: guardrail)")
	}
	for k, v := range s.Guardrails {
		if !guardrailSetting.MatchString(k) || !guardrailValue.MatchString(v) {
			bad("guardrails: %s: %q: want a cassandra.yaml <guardrail>_warn_threshold or _fail_threshold and a count or size (16MiB)", k, v)
		}
	}
	for _, c := range s.Crossings {
		t := s.Table(c.Table)
		grows := slices.ContainsFunc(s.Grow, func(g Grow) bool { return g.Table == c.Table && g.Partition == c.Partition })
		writes := slices.ContainsFunc(s.CollectionWrites, func(w CollectionWrite) bool {
			return w.Table == c.Table && w.Partition == c.Partition && w.Column == c.Column
		})
		write := slices.Contains(writeGuardrails, c.Guardrail)
		switch {
		case t == nil || c.Partition < 0 || c.Partition >= t.Partitions:
			bad("crossing on %s/%d: want a table of the scenario and a partition in range", c.Table, c.Partition)
		case write && !writes:
			bad("crossing %s of %s/%d column %q: the scenario's collection_writes do not write that column of that partition, so nothing crosses", c.Guardrail, c.Table, c.Partition, c.Column)
		case write && c.Level != "fail":
			bad("crossing %s %s: only a write guardrail's fail level is planted (Cassandra logs nothing under the warn level, so nothing forecasts it; its first warn line is kept as evidence)", c.Guardrail, c.Level)
		case !write && c.Column != "":
			bad("crossing %s: a per-partition guardrail names no column", c.Guardrail)
		case write:
		case !grows:
			bad("crossing on %s/%d: the scenario does not grow that partition (grow), so nothing crosses", c.Table, c.Partition)
		case !slices.Contains(partitionGuardrails, c.Guardrail) || (c.Level != "warn" && c.Level != "fail"):
			bad("crossing %s %s: want guardrail %s and level warn or fail", c.Guardrail, c.Level, strings.Join(append(slices.Clone(partitionGuardrails), writeGuardrails...), ", "))
		}
		switch {
		case s.Guardrails[c.setting()] == "":
			bad("crossing %s %s: the scenario does not set %s (guardrails)", c.Guardrail, c.Level, c.setting())
		case c.Tolerance <= 0 || c.Why == "":
			bad("crossing %s %s: want a positive tolerance and why it is that wide", c.Guardrail, c.Level)
		}
	}
	return append(errs, s.validateCollectionWrites()...)
}

// JVMOpts are the node JVM options (deploy/local/cluster's
// PARTMON_NODE_JVM_OPTS) that start a cluster with its scenarios'
// guardrail settings: Cassandra 5.0 reads -Dcassandra.settings.NAME as
// cassandra.yaml's NAME when system properties are allowed. Empty when no
// scenario sets one; an error when two set one setting differently.
func JVMOpts(scs []*Scenario) (string, error) {
	set, from := map[string]string{}, map[string]string{}
	var errs []error
	for _, s := range scs {
		for k, v := range s.Guardrails {
			if old, ok := set[k]; ok && old != v {
				errs = append(errs, fmt.Errorf("%s: %s is %s here and %s in %s; scenarios on one cluster share its settings", s.File, k, v, old, from[k]))
				continue
			}
			set[k], from[k] = v, s.File
		}
	}
	if len(set) == 0 || len(errs) > 0 {
		return "", errors.Join(errs...)
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	opts := []string{"-Dcassandra.config.allow_system_properties=true"}
	for _, k := range keys {
		opts = append(opts, "-Dcassandra.settings."+k+"="+set[k])
	}
	return strings.Join(opts, " "), nil
}

// CheckGuardrails asks every node's system_views.settings for each
// scenario's guardrail settings, so a cluster started without them (its
// crossings would never be logged) stops the run at once, saying how to
// start it.
func (c *Cluster) CheckGuardrails(ctx context.Context, scs []*Scenario) error {
	want := map[string]string{}
	for _, s := range scs {
		for k, v := range s.Guardrails {
			want[k] = v
		}
	}
	if len(want) == 0 {
		return nil
	}
	var errs []error
	for _, h := range c.Hosts {
		cfg := testcluster.ClusterConfigFor(c.env, h)
		cfg.HostFilter = gocql.WhiteListHostFilter(h)
		s, err := cfg.CreateSession()
		if err != nil {
			return fmt.Errorf("connecting to %s: %w", h, err)
		}
		for k, v := range want {
			var got *string
			if err := s.Query("SELECT value FROM system_views.settings WHERE name = ?", k).WithContext(ctx).Scan(&got); err != nil {
				errs = append(errs, fmt.Errorf("%s: reading %s: %w", h, k, err))
			} else if got == nil || !sameSetting(*got, v) {
				errs = append(errs, fmt.Errorf("%s runs %s = %v, the scenarios want %s", h, k, deref(got), v))
			}
		}
		s.Close()
	}
	if len(errs) > 0 {
		errs = append(errs, errors.New("start the cluster with PARTMON_NODE_JVM_OPTS=\"$(truthcorpus jvm-opts --cluster "+c.Name+")\" (scripts/truth.sh does)"))
	}
	return errors.Join(errs...)
}

// sameSetting compares a setting as the node prints it with the scenario's
// value: 5.0 prints a data storage spec as written ("16MiB"), a count as a
// number; units are normalised so "16384KiB" and "16MiB" agree.
func sameSetting(got, want string) bool {
	return strings.TrimSpace(got) == want || bytesOf(got) > 0 && bytesOf(got) == bytesOf(want)
}

func bytesOf(v string) int64 {
	m := guardrailValue.FindStringSubmatch(strings.TrimSpace(v))
	if m == nil {
		return 0
	}
	var n int64
	if _, err := fmt.Sscanf(v, "%d", &n); err != nil {
		return 0 // past int64: not a size this comparison knows
	}
	mult := map[string]int64{"": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[m[1]]
	return n * mult
}

func deref(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}
