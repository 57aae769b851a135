package main

import (
	"strings"
	"testing"
)

// check-config refuses history limits the state file cannot hold, and
// says which to lower; without a state file they are the history's own.
func TestHistoryLimitsMustFitTheStateFile(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		refused    bool
	}{
		{"a million keys", "state:\n  file: /tmp/s.json\nanalysis:\n  history:\n    max_keys: 1000000\n", true},
		{"1,000 × 1,000 heat", "state:\n  file: /tmp/s.json\nanalysis:\n  history:\n    heat_columns: 1000\n    heat_tables: 1000\n", true},
		{"1,000 points a key", "state:\n  file: /tmp/s.json\nanalysis:\n  history:\n    key_points: 1000\n", true},
		{"the defaults", "state:\n  file: /tmp/s.json\n", false},
		{"no state file", "state:\n  file: \"\"\nanalysis:\n  history:\n    max_keys: 1000000\n", false},
	} {
		_, err := parseConfig([]byte("collector:\n  hosts: [127.0.0.1]\n"+tc.yaml), "test.yml", nil)
		if tc.refused != (err != nil) {
			t.Errorf("%s: %v", tc.name, err)
		}
		if tc.refused && err != nil && !strings.Contains(err.Error(), "state file") {
			t.Errorf("%s: the error does not name the state file: %v", tc.name, err)
		}
	}
}
