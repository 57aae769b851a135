package collector

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
)

// settingsSource keeps the server settings that bear on partition health:
// Cassandra's system_views.settings, ScyllaDB's system.config.
type settingsSource struct{}

func (settingsSource) Name() string { return "settings" }
func (settingsSource) Scope() Scope { return NodeScope }
func (settingsSource) Facts() Facts {
	return Facts{Reads: "system_views.settings (ScyllaDB: system.config)",
		Help:     "`system_views.settings` (thresholds, top_partitions settings); ScyllaDB's `system.config`",
		Gate:     Gate{Cassandra: oldestCassandra, Table: "system_views.settings", ScyllaDB: true, ScyllaTable: "system.config"},
		Schedule: everyHalfHour, Grants: []string{ksSystemViews, ksSystem}}
}

// relevantSettings are kept: the thresholds behind large-partition and
// tombstone warnings, every guardrail threshold partmon measures keys
// against (model.Guardrails; docs/sources.md#guardrails) and the top
// partitions tracker (docs/sources.md, system_views.settings; ScyllaDB's
// compaction_large_* thresholds: docs/sources.md, ScyllaDB
// system.large_partitions).
var relevantSettings = appendNew([]string{
	"compaction_large_partition_warning_threshold_mb", // 4.0; 4.1+ as the old name; ScyllaDB
	"compaction_large_row_warning_threshold_mb",
	"compaction_large_cell_warning_threshold_mb",
	"compaction_rows_count_warning_threshold",
	"compaction_collection_elements_count_warning_threshold",
	"top_partitions_enabled",
	"max_top_size_partition_count",
	"max_top_tombstone_partition_count",
	"min_tracked_partition_size",
	"min_tracked_partition_tombstone_count",
	"num_tokens",
	"authenticator", // without authentication no client is guarded (model.GuardrailsGuardClients)
	model.DataDiskMaxSizeSetting,
}, model.GuardrailSettings())

func appendNew(names, more []string) []string {
	for _, n := range more {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

// cassandraSettingsQuery asks for the relevant settings by name: Cassandra's
// SettingsTable answers a partition-key restriction by looking up each name
// (its data(DecoratedKey)), where a read of the whole table renders every
// one of its ~640 settings; names the version does not know are left out of
// the answer.
var cassandraSettingsQuery = "SELECT name, value FROM system_views.settings WHERE name IN ('" + strings.Join(relevantSettings, "', '") + "')"

func isRelevantSetting(name string) bool { return slices.Contains(relevantSettings, name) }

func (settingsSource) Collect(ctx context.Context, in Input, out *Output) (int, error) {
	stmt, table := cassandraSettingsQuery, "system_views.settings"
	if in.Caps.Engine == model.EngineScyllaDB {
		stmt, table = "SELECT name, value FROM system.config", "system.config"
	}
	settings := map[string]string{}
	n, err := cql.SelectAllInOnePage(ctx, in.Q, stmt, nil, func(row *cql.Decoder) error {
		if name := row.String("name"); isRelevantSetting(name) {
			settings[name] = row.OptString("value") // null: unset (5.0 guardrails default to null)
		}
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("reading %s on %s: %w", table, in.Address, err)
	}
	out.Node.Settings = settings
	return n, nil
}
