package model

import (
	"strconv"
	"strings"
)

// GuardrailUnit is what a guardrail's threshold counts.
type GuardrailUnit string

const (
	UnitBytes   GuardrailUnit = "bytes"
	UnitCount   GuardrailUnit = "count"
	UnitPercent GuardrailUnit = "percent"
)

// GuardrailFacts is what Cassandra does with one guardrail that bears on
// partitions (docs/sources.md#guardrails, read from 5.0.8). The table below
// is their one home: the collector asks for their settings by name, the
// exporter publishes them, the analyzer measures keys against them.
type GuardrailFacts struct {
	// Name is the guardrail's own name, as its log lines say it.
	Name string
	Unit GuardrailUnit
	// Warn and Fail are the settings that hold the thresholds; Fail is
	// empty where the version has no fail level.
	Warn, Fail string
	// Refuses says what a crossed fail threshold refuses ("" when it only
	// logs): only these may be called "will refuse".
	Refuses string
	// Checked says where Cassandra compares a value with the thresholds.
	Checked string
	// PerKey: the guardrail judges one partition (or a value in one), so
	// partmon can measure a named key against it.
	PerKey bool
	// AliasOf names the 5.0 guardrail whose value 5.0 also shows under
	// this 4.x name: read only where that guardrail's setting is absent.
	AliasOf string
}

// Guardrails is the table of guardrails partmon reads, 5.0's first, then
// the 4.x thresholds that play their part.
var Guardrails = []GuardrailFacts{
	{Name: "partition_size", Unit: UnitBytes, Warn: "partition_size_warn_threshold", Fail: "partition_size_fail_threshold",
		Checked: "sstable write (flush, compaction, streaming): ERROR log only, the write already happened", PerKey: true},
	{Name: "partition_tombstones", Unit: UnitCount, Warn: "partition_tombstones_warn_threshold", Fail: "partition_tombstones_fail_threshold",
		Checked: "sstable write (flush, compaction, streaming): ERROR log only, the write already happened", PerKey: true},
	{Name: "column_value_size", Unit: UnitBytes, Warn: "column_value_size_warn_threshold", Fail: "column_value_size_fail_threshold",
		Refuses: "the write (INSERT, UPDATE, batch) carrying a larger value", Checked: "write path, each cell value of the statement"},
	{Name: "collection_size", Unit: UnitBytes, Warn: "collection_size_warn_threshold", Fail: "collection_size_fail_threshold",
		Refuses: "the write whose collection value (the part written) is larger",
		Checked: "write path (the written part of the collection) and sstable write (the whole collection, log only)"},
	{Name: "items_per_collection", Unit: UnitCount, Warn: "items_per_collection_warn_threshold", Fail: "items_per_collection_fail_threshold",
		Refuses: "the write whose collection value (the part written) has more items",
		Checked: "write path (the written part of the collection) and sstable write (the whole collection, log only)"},
	{Name: "data_disk_usage_percentage", Unit: UnitPercent, Warn: "data_disk_usage_percentage_warn_threshold", Fail: "data_disk_usage_percentage_fail_threshold",
		Refuses: "every write with a replica whose data disk is past it (replica_disk_usage)", Checked: "a periodic disk check on each node, gossiped; writes check their replicas"},
	{Name: "tables", Unit: UnitCount, Warn: "tables_warn_threshold", Fail: "tables_fail_threshold",
		Refuses: "CREATE TABLE", Checked: "CREATE TABLE"},
	{Name: "columns_per_table", Unit: UnitCount, Warn: "columns_per_table_warn_threshold", Fail: "columns_per_table_fail_threshold",
		Refuses: "CREATE TABLE and ALTER TABLE ADD past it", Checked: "CREATE and ALTER TABLE"},
	// 4.x: the compaction warnings and the read path's tombstone limits.
	{Name: "compaction_large_partition", Unit: UnitBytes, Warn: "compaction_large_partition_warning_threshold",
		Checked: "compaction (4.x): WARN log only", PerKey: true, AliasOf: "partition_size_warn_threshold"},
	{Name: "compaction_tombstone", Unit: UnitCount, Warn: "compaction_tombstone_warning_threshold",
		Checked: "compaction (4.1): WARN log only", PerKey: true, AliasOf: "partition_tombstones_warn_threshold"},
	{Name: "tombstone_read", Unit: UnitCount, Warn: "tombstone_warn_threshold", Fail: "tombstone_failure_threshold",
		Refuses: "the read that scans more tombstones (TombstoneOverwhelmingException)", Checked: "read path, tombstones scanned by one query on one replica"},
}

// GuardrailSettings are the setting names of every guardrail above (and the
// 4.0 name of the large-partition warning), for the settings source.
func GuardrailSettings() []string {
	out := []string{"compaction_large_partition_warning_threshold_mb"}
	for _, g := range Guardrails {
		out = append(out, g.Warn)
		if g.Fail != "" {
			out = append(out, g.Fail)
		}
	}
	return out
}

// GuardrailThreshold is one level of one guardrail on one node.
type GuardrailThreshold struct {
	Guardrail string
	Level     string // warn or fail
	Setting   string
	// Value is in the guardrail's unit; Set is false when the node says
	// null, empty or -1 (Cassandra's "off"), and Known false when the node
	// does not have the setting at all (another version).
	Value float64
	Set   bool
	Known bool
	// Raw is the setting as the node printed it.
	Raw string
}

// NodeGuardrails reads one node's thresholds from its settings: one entry
// per guardrail level, Known only where the node has the setting.
func NodeGuardrails(settings map[string]string) []GuardrailThreshold {
	var out []GuardrailThreshold
	for _, g := range Guardrails {
		if _, newer := settings[g.AliasOf]; newer {
			continue
		}
		for _, lv := range [][2]string{{"warn", g.Warn}, {"fail", g.Fail}} {
			if lv[1] == "" {
				continue
			}
			raw, known := settings[lv[1]]
			setting := lv[1]
			if !known && g.Name == "compaction_large_partition" {
				raw, known = settings["compaction_large_partition_warning_threshold_mb"]
				if known && raw != "" {
					raw += "MiB" // 4.0 says megabytes without a unit
				}
				setting = "compaction_large_partition_warning_threshold_mb"
			}
			t := GuardrailThreshold{Guardrail: g.Name, Level: lv[0], Setting: setting, Known: known, Raw: raw}
			if known {
				t.Value, t.Set = ParseGuardrailValue(raw, g.Unit)
			}
			out = append(out, t)
		}
	}
	return out
}

// ParseGuardrailValue reads a threshold as the settings table prints it:
// "50MiB" (DataStorageSpec: B, KiB, MiB, GiB), "10000", "90". Null, empty,
// and values ≤ 0 (Cassandra's -1 is off) are unset.
func ParseGuardrailValue(raw string, unit GuardrailUnit) (float64, bool) {
	s := strings.TrimSpace(raw)
	if s == "" || s == "null" {
		return 0, false
	}
	mult := 1.0
	if unit == UnitBytes {
		for _, u := range []struct {
			suffix string
			m      float64
		}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"B", 1}} {
			if strings.HasSuffix(s, u.suffix) {
				s, mult = strings.TrimSuffix(s, u.suffix), u.m
				break
			}
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 {
		return 0, false
	}
	return f * mult, true
}

// GuardrailsGuardClients says whether the write-path checks apply to
// clients at all: without authentication every client is a superuser, and
// superusers are never guarded (ClientState.isSuper, isOrdinaryUser, 5.0.8).
// known is false when the node does not say its authenticator.
func GuardrailsGuardClients(settings map[string]string) (guard, known bool) {
	a, ok := settings["authenticator"]
	if !ok || a == "" {
		return false, false
	}
	return !strings.Contains(a, "AllowAllAuthenticator"), true
}

// GuardrailFactsOf returns the facts of the named guardrail.
func GuardrailFactsOf(name string) (GuardrailFacts, bool) {
	for _, g := range Guardrails {
		if g.Name == name {
			return g, true
		}
	}
	return GuardrailFacts{}, false
}
