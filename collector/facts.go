package collector

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/partmon/partmon/model"
)

// Facts are what a source declares about itself, in one value beside its
// code, as mysqld_exporter's scrapers declare Name, Help and Version: the
// registry, the sources off by default, the version gate every run passes
// and the docs' tables of sources and grants (go generate ./tools/cmd/docgen)
// are all built from them.
type Facts struct {
	// Reads is what the source reads, plain text ("system_views.gossip_info"):
	// error messages name it.
	Reads string
	// Help says more for the docs' sources table (Markdown, may be empty).
	Help string
	// Gate is the engines and versions that have what the source reads.
	Gate Gate
	// Schedule is the default cron spec of its runs.
	Schedule string
	// Timeout bounds one run on one node; 0 is defaultTimeout.
	Timeout time.Duration
	// Grants are the keyspaces the role needs SELECT on for this source.
	Grants []string
	// OffUnless is the config key without which the source stays off (it
	// needs something only the user can name); empty: on by default.
	OffUnless string
	// configured says whether OffUnless is set in the config the source
	// was built with.
	configured bool

	// Nodetool: each run on a node starts a nodetool JVM, so it waits for
	// one of collector.nodetool_sampler.max_concurrent_runs slots, and its
	// schedule is staggered against the other nodetool sources'.
	Nodetool bool
	// Rates: the source's counters give operation rates, read again at the
	// end of a one-shot collection (Collector.RecollectRates).
	Rates bool
	// Sampler: the source samples each node's hottest keys over a window,
	// run twice by a one-shot collection (Collector.SampleAgain).
	Sampler bool
	// Window, when set, is how long one run samples (the config key
	// WindowKey sets it): a timeout must be longer (Config.Validate).
	Window    time.Duration
	WindowKey string
}

// Default schedules. The daemon shifts the slower periods apart (schedule.go).
const (
	everyMinute      = "@every 1m"
	everyFiveMinutes = "@every 5m"
	everyTenMinutes  = "@every 10m"
	everyHalfHour    = "@every 30m"
)

// Keyspaces a source reads, for its Grants.
const (
	ksSystem              = "system"
	ksSystemSchema        = "system_schema"
	ksSystemViews         = "system_views"
	ksSystemVirtualSchema = "system_virtual_schema"
)

// oldestCassandra is the first Cassandra release partmon supports.
const oldestCassandra = "4.0"

// Gate is a source's version gate, in its one form: which engines have
// what the source reads, from which Cassandra release, and the table whose
// presence on the node proves it. The probe's tables decide where one is
// named, never the version string alone (capabilities.go).
type Gate struct {
	// Cassandra is the first Cassandra release that has it ("4.1"); empty
	// when Cassandra has none.
	Cassandra string
	// Table, when set, is the Cassandra table ("system.top_partitions",
	// "system_views.gossip_info") a node must have.
	Table string
	// Why, for a gate without a Table, says why an older release is left out.
	Why string
	// ScyllaDB says whether ScyllaDB has it; ScyllaTable, when set, is the
	// table a ScyllaDB node must have ("system.config").
	ScyllaDB    bool
	ScyllaTable string
	// ScyllaInstead, when ScyllaDB has none, says what it has instead.
	ScyllaInstead string
}

// cassandraOnly is the gate of what every supported Cassandra has and
// ScyllaDB does not; instead says what ScyllaDB has.
func cassandraOnly(since, table, instead string) Gate {
	return Gate{Cassandra: since, Table: table, ScyllaInstead: instead}
}

// virtualTable is the gate of a system_views table Cassandra added in since.
func virtualTable(name, since string) Gate {
	return Gate{Cassandra: since, Table: "system_views." + name}
}

// everywhere is the gate of what every supported engine and version has.
var everywhere = Gate{Cassandra: oldestCassandra, ScyllaDB: true}

// check returns ErrUnsupported, with the reason, when the node c describes
// lacks what reads names. A nil c (a source run without a CQL session)
// passes: its Collect judges the node itself.
func (g Gate) check(reads string, c *Capabilities) error {
	if c == nil {
		return nil
	}
	if c.Engine == model.EngineScyllaDB {
		switch {
		case !g.ScyllaDB && g.ScyllaInstead != "":
			return fmt.Errorf("%w: %s is Cassandra-only (ScyllaDB: %s)", ErrUnsupported, reads, g.ScyllaInstead)
		case !g.ScyllaDB:
			return fmt.Errorf("%w: %s is Cassandra-only", ErrUnsupported, reads)
		case g.ScyllaTable != "" && !c.hasTable(g.ScyllaTable):
			return fmt.Errorf("%w: %s does not exist on this node", ErrUnsupported, g.ScyllaTable)
		}
		return nil
	}
	switch {
	case g.Cassandra == "":
		return fmt.Errorf("%w: %s is ScyllaDB-only", ErrUnsupported, reads)
	case g.Table != "" && !c.hasTable(g.Table):
		return fmt.Errorf("%w: %s does not exist on this node (Cassandra %s+)", ErrUnsupported, g.Table, g.Cassandra)
	case g.Table == "" && versionBelow(c.Version, g.Cassandra):
		msg := fmt.Sprintf("%s needs Cassandra %s+ (this node runs %s)", reads, g.Cassandra, c.Version)
		if g.Why != "" {
			msg += ": " + g.Why
		}
		return fmt.Errorf("%w: %s", ErrUnsupported, msg)
	}
	return nil
}

// On says, for the docs, where the gate lets a source run.
func (g Gate) On() string {
	var parts []string
	switch {
	case g.Cassandra == oldestCassandra && g.Table == "" && g.ScyllaDB && g.ScyllaTable == "":
		return "all"
	case g.Cassandra != "":
		parts = append(parts, "Cassandra "+g.Cassandra+"+")
	}
	if g.ScyllaDB {
		parts = append(parts, "ScyllaDB")
	}
	return strings.Join(parts, ", ")
}

// OnRelease says whether a Cassandra release ("4.1") has what the gate
// needs, by its version alone (what the probe finds there: docs/sources.md,
// Which tables each version has).
func (g Gate) OnRelease(cassandra string) bool {
	return g.Cassandra != "" && !versionBelow(cassandra, g.Cassandra)
}

// hasTable says whether the node has the table "system.x" or "system_views.x".
func (c *Capabilities) hasTable(table string) bool {
	ks, name, _ := strings.Cut(table, ".")
	switch ks {
	case ksSystemViews:
		return c.VirtualColumns[name] != nil
	case ksSystem:
		return c.SystemTables[name]
	}
	return false
}

// releaseVersion reads the major and minor of a release version such as
// "4.0.19", "5.0-rc1" or "4.1"; ok is false when it does not start with a
// number. It is the one parser of version strings in the collector.
func releaseVersion(v string) (major, minor int, ok bool) {
	num := func(s string) (int, string, bool) {
		end := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' })
		if end < 0 {
			end = len(s)
		}
		n, err := strconv.Atoi(s[:end])
		return n, s[end:], err == nil
	}
	major, rest, ok := num(v)
	if !ok {
		return 0, 0, false
	}
	if after, found := strings.CutPrefix(rest, "."); found {
		minor, _, _ = num(after)
	}
	return major, minor, true
}

// versionBelow says whether release v is older than since ("4.1"); a v
// that is no version is not below anything.
func versionBelow(v, since string) bool {
	vMaj, vMin, ok := releaseVersion(v)
	sMaj, sMin, sok := releaseVersion(since)
	if !ok || !sok {
		return false
	}
	return vMaj < sMaj || vMaj == sMaj && vMin < sMin
}

// Declaration is one source as it declares itself.
type Declaration struct {
	Name  string
	Scope Scope
	Facts
}

// Declarations lists every source's declaration, in registry order.
func Declarations() []Declaration {
	regs := registry(Config{}, nil)
	out := make([]Declaration, len(regs))
	for i, r := range regs {
		out[i] = Declaration{Name: r.src.Name(), Scope: r.src.Scope(), Facts: r.facts}
	}
	return out
}

// Grants lists the keyspaces partmon's role needs SELECT on: the probe's
// and every source's, sorted.
func Grants() []string {
	out := slices.Clone(probeGrants)
	for _, d := range Declarations() {
		out = append(out, d.Grants...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// gatedCollect runs src where its gate lets it: the one place a version
// gate is checked.
func gatedCollect(ctx context.Context, src Source, in Input, out *Output) (int, error) {
	f := src.Facts()
	if err := f.Gate.check(f.Reads, in.Caps); err != nil {
		return 0, err
	}
	return src.Collect(ctx, in, out)
}

// withHelp is a table's name in Markdown with more words after it.
func withHelp(table, help string) string {
	s := "`" + table + "`"
	if help != "" {
		s += " " + help
	}
	return s
}

// DocReads is what the docs' sources table says the source reads.
func (f Facts) DocReads() string {
	if f.Help != "" {
		return f.Help
	}
	return "`" + f.Reads + "`"
}
