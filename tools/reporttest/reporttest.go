// Package reporttest holds hand-built analyzer reports for the tests of the
// packages that consume reports: the Prometheus collector, the web server,
// the Alertmanager pusher and the report command.
package reporttest

import (
	"time"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/model"
)

// Time is when the fixture's snapshot was taken.
var Time = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// Cluster is a hand-built report of a three-node cluster in one DC:
// node .1 holds a 200 MiB partition, node .2 is hot and stale, node .3 has
// no table figures. Only node .1 is Targeted (the sidecar's own node).
func Cluster() *analyzer.Report {
	const mib = 1 << 20
	taken := Time
	return &analyzer.Report{
		Generated: taken.Add(90 * time.Second), Taken: taken, CycleDuration: 90 * time.Second,
		Cluster: "demo", Engine: model.EngineCassandra, Version: "5.0.8",
		Thresholds: analyzer.DefaultThresholds(),
		Nodes: []analyzer.NodeSummary{
			{HostID: "h1", Address: "127.0.0.1", DC: "dc1", Rack: "r1", Tokens: 1, LoadBytes: 300 * mib, LoadSkew: 1.5, Targeted: true,
				TokenValues: []int64{-9223372036854775808}},
			{HostID: "h2", Address: "127.0.0.2", DC: "dc1", Rack: "r2", Tokens: 1, LoadBytes: 200 * mib, LoadSkew: 1, Stale: true, DataAgeSeconds: 600,
				TokenValues: []int64{-3074457345618258603}},
			{HostID: "h3", Address: "127.0.0.3", DC: "dc1", Rack: "r3", Tokens: 1, LoadBytes: 100 * mib, LoadSkew: 0.5,
				TokenValues: []int64{4611686018427387904}},
		},
		Ownership: []analyzer.Ownership{
			{Keyspace: "", HostID: "h1", Node: "127.0.0.1", DC: "dc1", Rack: "r1", Owns: 0.25, Skew: 0.75},
			{Keyspace: "", HostID: "h2", Node: "127.0.0.2", DC: "dc1", Rack: "r2", Owns: 1.0 / 3, Skew: 1},
			{Keyspace: "", HostID: "h3", Node: "127.0.0.3", DC: "dc1", Rack: "r3", Owns: 5.0 / 12, Skew: 1.25},
			{Keyspace: "shop", HostID: "h1", Node: "127.0.0.1", DC: "dc1", Rack: "r1", Owns: 0.5, Skew: 0.75},
			{Keyspace: "shop", HostID: "h2", Node: "127.0.0.2", DC: "dc1", Rack: "r2", Owns: 2.0 / 3, Skew: 1},
			{Keyspace: "shop", HostID: "h3", Node: "127.0.0.3", DC: "dc1", Rack: "r3", Owns: 5.0 / 6, Skew: 1.25},
		},
		Tables: []analyzer.TableSummary{
			{Keyspace: "shop", Table: "orders", MaxPartitionBytes: 200 * mib, MeanPartitionBytes: mib, PartitionsEstimate: 1000,
				GrowthBytesPerSecond: 12.5, SecondsToCritical: 0},
			{Keyspace: "shop", Table: "events", MaxPartitionBytes: 60 * mib, GrowthBytesPerSecond: 100, SecondsToCritical: 86400},
			{Keyspace: "shop", Table: "users", MaxPartitionBytes: 2048, SecondsToCritical: -1},
		},
		TableNodes: []analyzer.TableNode{
			{Keyspace: "shop", Table: "orders", HostID: "h1", Node: "127.0.0.1", DC: "dc1", Rack: "r1",
				TableStats: model.TableStats{Keyspace: "shop", Table: "orders",
					MaxPartitionBytes: 200 * mib, MeanPartitionBytes: mib, PartitionsEstimate: 600, DiskUsageBytes: 250 * mib,
					LocalReads: model.Ops{Count: 1500, PerSecond: 5}, LocalWrites: model.Ops{Count: 4200, PerSecond: 14},
					TombstonesPerRead: model.Distribution{Count: 1500, P99: 0}},
				ReadRate: 5, WriteRate: 14, ReadSkew: 0.5, WriteSkew: 0.8},
			{Keyspace: "shop", Table: "orders", HostID: "h2", Node: "127.0.0.2", DC: "dc1", Rack: "r2",
				TableStats: model.TableStats{Keyspace: "shop", Table: "orders",
					MaxPartitionBytes: 10 * mib, MeanPartitionBytes: mib, PartitionsEstimate: 400, DiskUsageBytes: 50 * mib,
					LocalReads: model.Ops{Count: 90000, PerSecond: 300}, LocalWrites: model.Ops{Count: 100, PerSecond: 0.3},
					TombstonesPerRead: model.Distribution{Count: 90000, P99: 1109}},
				ReadRate: 300, WriteRate: 0.3, ReadSkew: 3.2, WriteSkew: 0.1},
			// A table the sources said nothing about on node .3: no series at all.
			{Keyspace: "shop", Table: "orders", HostID: "h3", Node: "127.0.0.3", DC: "dc1", Rack: "r3"},
		},
		TopPartitions: []analyzer.PartitionEntry{
			{Keyspace: "shop", Table: "orders", Key: "customer|42", SizeBytes: 200 * mib, Rows: 150000, Nodes: []string{"127.0.0.1", "127.0.0.2"}, Source: "top_partitions"},
			{Keyspace: "shop", Table: "orders", Key: "customer|7", Tombstones: 52000, Nodes: []string{"127.0.0.2"}, Source: "top_partitions"},
			{Keyspace: "shop", Table: "orders", Key: "customer|9", OpsShare: 0.4, Nodes: []string{"127.0.0.2"}, Source: "profileload"},
		},
		Findings: []finding.Finding{
			{ID: "f-oversized", Kind: analyzer.KindOversizedPartition, Severity: finding.SeverityCritical, Cluster: "demo",
				DC: "dc1", Rack: "r1", Node: "127.0.0.1", Keyspace: "shop", Table: "orders", PartitionKey: "customer|42",
				Value: 200 * mib, Threshold: 100 * mib, Unit: "bytes", Summary: "partition customer|42 is 200 MiB",
				Advice: "add a month bucket to the partition key: 200 MiB → 17 MiB", Source: "top_partitions"},
			{ID: "f-hotrange", Kind: analyzer.KindHotTokenRange, Severity: finding.SeverityWarning, Cluster: "demo",
				DC: "dc1", Rack: "r2", Node: "127.0.0.2", Keyspace: "shop", Table: "orders",
				Value: 3.2, Threshold: 2, Unit: "ratio", Summary: "127.0.0.2 serves 3.2× its fair share of shop.orders reads",
				Advice: "look for a hot key", Source: "local_read_latency", IDNamesDC: true},
			{ID: "f-skew", Kind: analyzer.KindOwnershipSkew, Severity: finding.SeverityWarning, Cluster: "demo",
				DC: "dc1", Rack: "r3", Node: "127.0.0.3", Keyspace: "shop",
				Value: 1.25, Threshold: 1.2, Unit: "ratio", Summary: "127.0.0.3 owns 83% of shop for a fair 67%",
				Advice: "move tokens", Source: "topology", IDNamesDC: true},
			{ID: "f-lowcard", Kind: analyzer.KindLowCardinalityKey, Severity: finding.SeverityInfo, Cluster: "demo",
				Keyspace: "shop", Table: "orders", Value: 3, Threshold: 1000, Unit: "partitions",
				Summary: "shop.orders has 3 partitions", Advice: "use a key with more values", Source: "size_estimates"},
		},
		Sources: []model.SourceStatus{
			{Source: "topology", State: model.StateOK, Taken: taken, LastSuccess: taken, Duration: 250 * time.Millisecond, Rows: 3},
			{Source: "size_estimates", Node: "127.0.0.1", State: model.StateOK, Taken: taken, LastSuccess: taken, Duration: 1500 * time.Millisecond, Rows: 42},
			{Source: "size_estimates", Node: "127.0.0.2", State: model.StateError, Error: "timeout after 10s",
				Taken: taken, LastSuccess: taken.Add(-10 * time.Minute), Duration: 10 * time.Second},
			{Source: "top_partitions", Node: "127.0.0.3", State: model.StateUnsupported, Error: "Cassandra 4.0 has no system.top_partitions"},
		},
		Guardrails: guardrails(),
		KeyHistory: keyHistory(),
	}
}

// guardrails: 127.0.0.1 runs with a partition size warning and a disk
// usage fail level, its fail size off; 127.0.0.3 is 4.0, with only the
// compaction warning.
func guardrails() *analyzer.GuardrailReport {
	const mib = 1 << 20
	return &analyzer.GuardrailReport{Clients: "not guarded",
		Settings: []analyzer.GuardrailSetting{
			{Node: "127.0.0.1", DC: "dc1", Rack: "r1", Guardrail: "partition_size", Level: "warn", Setting: "partition_size_warn_threshold",
				Unit: model.UnitBytes, Set: true, Value: 50 * mib, Raw: "50MiB"},
			{Node: "127.0.0.1", DC: "dc1", Rack: "r1", Guardrail: "partition_size", Level: "fail", Setting: "partition_size_fail_threshold",
				Unit: model.UnitBytes, Raw: ""},
			{Node: "127.0.0.1", DC: "dc1", Rack: "r1", Guardrail: "partition_tombstones", Level: "warn", Setting: "partition_tombstones_warn_threshold",
				Unit: model.UnitCount, Set: true, Value: 10000, Raw: "10000"},
			{Node: "127.0.0.1", DC: "dc1", Rack: "r1", Guardrail: "data_disk_usage_percentage", Level: "fail", Setting: "data_disk_usage_percentage_fail_threshold",
				Unit: model.UnitPercent, Set: true, Value: 90, Raw: "90", Refuses: "every write with a replica whose data disk is past it (replica_disk_usage)"},
			{Node: "127.0.0.3", DC: "dc1", Rack: "r3", Guardrail: "compaction_large_partition", Level: "warn", Setting: "compaction_large_partition_warning_threshold_mb",
				Unit: model.UnitBytes, Set: true, Value: 100 * mib, Raw: "100MiB"},
		},
		Crossings: []analyzer.GuardrailCrossing{
			{Keyspace: "shop", Table: "events", Key: "acme", Guardrail: "partition_size", Level: "warn", Threshold: 50 * mib,
				Current: 40 * mib, Fraction: 0.8, At: Time.Add(50 * time.Hour).Unix(), Earliest: Time.Add(40 * time.Hour).Unix(), Latest: Time.Add(70 * time.Hour).Unix()},
		},
		Suggested: []analyzer.SuggestedGuardrail{
			{Guardrail: "partition_size", Unit: model.UnitBytes, Warn: 100 * mib, Fail: 500 * mib,
				Evidence: "3 figures: largest 200 MiB, largest healthy 60 MiB",
				YAML:     "partition_size_warn_threshold: 100MiB\npartition_size_fail_threshold: 500MiB\n"},
			{Guardrail: "collection_size", Unit: model.UnitBytes, Why: "unknown: no source partmon reads measures collections per key on Cassandra"},
		},
	}
}

// keyHistory: shop.events' key acme growing over three hours, and a key
// seen once.
func keyHistory() map[string][]history.NamedKeySeries {
	const mib = 1 << 20
	at := func(h int) int64 { return Time.Add(time.Duration(h-3) * time.Hour).Unix() }
	return map[string][]history.NamedKeySeries{
		"shop.events": {
			{Key: "acme", KeySeries: history.KeySeries{First: at(0), Last: at(3), Replicas: []string{"127.0.0.1", "127.0.0.2"},
				Points: []history.KeyPoint{{at(0), 34 * mib, 0, 0}, {at(1), 36 * mib, 0, 0}, {at(2), 38 * mib, 120, 0}, {at(3), 40 * mib, 150, 410000}}}},
			{Key: "globex", KeySeries: history.KeySeries{First: at(1), Last: at(1), Replicas: []string{"127.0.0.3"},
				Points: []history.KeyPoint{{at(1), 2 * mib, 0, 0}}}},
		},
	}
}

// Failed is a cycle after Cluster's in which every source failed.
func Failed() *analyzer.Report {
	later := Time.Add(5 * time.Minute)
	return &analyzer.Report{
		Generated: later, Taken: later, Cluster: "demo",
		Sources: []model.SourceStatus{
			{Source: "topology", State: model.StateError, Error: "no hosts available", Taken: later, LastSuccess: Time},
		},
	}
}
