package render

import (
	"strings"
	"testing"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/keyadvice"
)

// TestMeasureCommandKeyIsOneTheAdvisorReads: the key a finding suggests is
// one `partmon advise --key` parses back to itself, and a finding with
// none gives no command.
func TestMeasureCommandKeyIsOneTheAdvisorReads(t *testing.T) {
	cases := []struct {
		key, want string
	}{
		{"((sensor_id, bucket(ts, 1d)), ts)", `partmon advise --hosts HOST --table ks.readings --key "((sensor_id, bucket(ts, 1d)), ts)"`},
		{"((site, sensor_id, bucket(ts, 1h)), ts, seq)", `partmon advise --hosts HOST --table ks.readings --key "((site, sensor_id, bucket(ts, 1h)), ts, seq)"`},
		{"((a, bucket(ts, 1m)), ts)", `partmon advise --hosts HOST --table ks.readings --key "((a, bucket(ts, 1m)), ts)"`},
		{"((a, bucket(ts, 365d)), ts)", `partmon advise --hosts HOST --table ks.readings --key "((a, bucket(ts, 365d)), ts)"`},
		{"", ""},
	}
	for _, c := range cases {
		f := finding.Finding{Keyspace: "ks", Table: "readings", SuggestedKey: c.key}
		if got := MeasureCommand(f); got != c.want {
			t.Errorf("MeasureCommand(%q) = %q, want %q", c.key, got, c.want)
		}
		if c.key == "" {
			continue
		}
		k, err := keyadvice.ParseKey(c.key)
		if err != nil {
			t.Errorf("the advisor cannot read %q: %v", c.key, err)
			continue
		}
		if k.String() != c.key {
			t.Errorf("%q reads back as %q", c.key, k.String())
		}
		if !strings.Contains(c.key, "bucket(") {
			t.Errorf("%q proposes no bucket", c.key)
		}
	}
}
