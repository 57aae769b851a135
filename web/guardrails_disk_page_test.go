package web

import (
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer"
)

// A node's data disk is shown as the node, not as an empty table's
// largest partition; a partition's crossing keeps its table and key.
func TestPageCrossingNamesTheNodeOfADataDisk(t *testing.T) {
	taken := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		c          analyzer.GuardrailCrossing
		where, key string
		current    string
	}{
		{analyzer.GuardrailCrossing{Node: "10.0.0.1", Guardrail: "data_disk_usage_percentage", Level: "fail", Threshold: 70, Current: 48, Fraction: 48.0 / 70},
			"node 10.0.0.1", "(data disk)", "48 %"},
		{analyzer.GuardrailCrossing{Keyspace: "ks", Table: "t", Guardrail: "partition_size", Level: "warn", Threshold: 1 << 20, Current: 1 << 19, Fraction: 0.5},
			"ks.t", "(largest partition)", "512 KiB"},
	} {
		p := pageCrossingOf(tc.c, taken)
		if p.Where != tc.where || p.Key != tc.key || p.Current != tc.current {
			t.Errorf("%+v shown as %q %q %q, want %q %q %q", tc.c, p.Where, p.Key, p.Current, tc.where, tc.key, tc.current)
		}
	}
}
