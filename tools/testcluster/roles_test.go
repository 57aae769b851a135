package testcluster

import (
	"testing"
	"time"
)

func TestPasswordChangeTooSoon(t *testing.T) {
	for _, tc := range []struct {
		msg     string
		wait    time.Duration
		tooSoon bool
	}{
		// As Cassandra 5.0.8 refused it in CI, right after CREATE ROLE.
		{"Password for role partmon_rotate can only be changed every 5000ms.", 5500 * time.Millisecond, true},
		{"Unauthorized: role partmon_rotate does not exist", 0, false},
		{"", 0, false},
	} {
		wait, tooSoon := passwordChangeTooSoon(tc.msg)
		if wait != tc.wait || tooSoon != tc.tooSoon {
			t.Errorf("passwordChangeTooSoon(%q) = %v, %v; want %v, %v", tc.msg, wait, tooSoon, tc.wait, tc.tooSoon)
		}
	}
}
