package model

import "testing"

func TestParseGuardrailValue(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		unit GuardrailUnit
		want float64
		set  bool
	}{
		{"2MiB", UnitBytes, 2 << 20, true},
		{"64KiB", UnitBytes, 64 << 10, true},
		{"1GiB", UnitBytes, 1 << 30, true},
		{"500B", UnitBytes, 500, true},
		{"", UnitBytes, 0, false},     // 5.0 prints a null size as empty
		{"null", UnitBytes, 0, false}, // as some drivers render it
		{"-1", UnitCount, 0, false},   // GuardrailsOptions' off
		{"0", UnitCount, 0, false},
		{"10000", UnitCount, 10000, true},
		{"90", UnitPercent, 90, true},
		{"2XB", UnitBytes, 0, false},
		{"12MiB", UnitCount, 0, false}, // a count never carries a unit
	} {
		got, set := ParseGuardrailValue(tc.raw, tc.unit)
		if got != tc.want || set != tc.set {
			t.Errorf("ParseGuardrailValue(%q, %s) = %v, %v; want %v, %v", tc.raw, tc.unit, got, set, tc.want, tc.set)
		}
	}
}

// The settings of a real 5.0.8 node (thresholds set by system properties),
// of 4.1 (no partition guardrails, the compaction warnings) and of 4.0.
func TestNodeGuardrails(t *testing.T) {
	v50 := map[string]string{
		"partition_size_warn_threshold": "2MiB", "partition_size_fail_threshold": "4MiB",
		"partition_tombstones_warn_threshold": "10000", "partition_tombstones_fail_threshold": "-1",
		"compaction_large_partition_warning_threshold": "2MiB", "compaction_tombstone_warning_threshold": "10000",
		"collection_size_warn_threshold": "", "tombstone_warn_threshold": "1000", "tombstone_failure_threshold": "100000",
	}
	v41 := map[string]string{"compaction_large_partition_warning_threshold": "100MiB", "compaction_tombstone_warning_threshold": "100000"}
	v40 := map[string]string{"compaction_large_partition_warning_threshold_mb": "100"}
	type want struct {
		value              float64
		set, known, absent bool
	}
	for _, tc := range []struct {
		name     string
		settings map[string]string
		want     map[string]want // guardrail/level
	}{
		{"5.0", v50, map[string]want{
			"partition_size/warn": {2 << 20, true, true, false}, "partition_size/fail": {4 << 20, true, true, false},
			"partition_tombstones/fail": {0, false, true, false}, "collection_size/warn": {0, false, true, false},
			"collection_size/fail": {0, false, false, false}, "tombstone_read/fail": {100000, true, true, false},
			"compaction_large_partition/warn": {absent: true}, // the 4.x alias is not counted twice
		}},
		{"4.1", v41, map[string]want{
			"partition_size/warn": {0, false, false, false}, "compaction_large_partition/warn": {100 << 20, true, true, false},
			"compaction_tombstone/warn": {100000, true, true, false},
		}},
		{"4.0", v40, map[string]want{"compaction_large_partition/warn": {100 << 20, true, true, false}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]GuardrailThreshold{}
			for _, g := range NodeGuardrails(tc.settings) {
				got[g.Guardrail+"/"+g.Level] = g
			}
			for k, w := range tc.want {
				g, ok := got[k]
				if w.absent {
					if ok {
						t.Errorf("%s: listed (%+v), want it left out", k, g)
					}
					continue
				}
				if !ok || g.Value != w.value || g.Set != w.set || g.Known != w.known {
					t.Errorf("%s = %+v (listed %v), want %+v", k, g, ok, w)
				}
			}
		})
	}
}

func TestGuardrailsGuardClients(t *testing.T) {
	for raw, want := range map[string][2]bool{
		"AllowAllAuthenticator":                           {false, true},
		"PasswordAuthenticator":                           {true, true},
		"org.apache.cassandra.auth.PasswordAuthenticator": {true, true},
		"": {false, false},
	} {
		g, k := GuardrailsGuardClients(map[string]string{"authenticator": raw})
		if g != want[0] || k != want[1] {
			t.Errorf("%q: guard %v known %v, want %v", raw, g, k, want)
		}
	}
}
