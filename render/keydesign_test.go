package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/keyadvice"
)

func TestKeyDesignSaysUnknownAndKeepsFigures(t *testing.T) {
	a := &keyadvice.Advice{Keyspace: "ks", Table: "t", Sample: keyadvice.Sample{Node: "10.0.0.1", Partitions: 120, Rows: 900, Ranges: 12, RingShare: 0.05, Stopped: "ring share limit reached"},
		Keys: []keyadvice.Projection{
			{Key: "(a, ts)", Current: true, Method: keyadvice.MethodCurrent, WrittenToday: -1,
				Partitions: keyadvice.Estimate{Value: 2400, Low: 2000, High: 2800, Known: true, Why: "token density"},
				Rows:       keyadvice.Sizes{P50: 7, P99: 20, Max: 21, Known: true, LargestShare: 0.001}},
			{Key: "(b, a, ts)", Method: keyadvice.MethodRegroups, WrittenToday: -1,
				Partitions: keyadvice.Estimate{Why: "unknown: 90 of the 100 values seen were seen in one sampled partition only"}},
		}}
	for _, f := range []Format{Text, Markdown} {
		var b bytes.Buffer
		if err := KeyDesign(&b, a, f); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, want := range []string{"Key design: ks.t", "(a, ts) (current)", "2,400 (95 %: 2,000 to 2,800)", "p50 7, p99 20, largest sampled 21",
			"unknown: 90 of the 100 values", "stopped: ring share limit reached"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: no %q in\n%s", f, want, out)
			}
		}
		if strings.Contains(out, "(b, a, ts)") && strings.Count(out, "p50") != 1 {
			t.Errorf("%s: sizes shown for the unknown key:\n%s", f, out)
		}
	}
	var b bytes.Buffer
	if err := KeyDesign(&b, a, JSON); err != nil {
		t.Fatal(err)
	}
	var back keyadvice.Advice
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back.Keys[1].Partitions.Known || back.Keys[0].Rows.P99 != 20 {
		t.Errorf("JSON: %v %+v", err, back)
	}
}

// The sample line names the replicas read and their requests, or why the
// first host alone was read.
func TestKeyDesignSampleNamesTheNodesRead(t *testing.T) {
	tests := []struct {
		name string
		s    keyadvice.Sample
		want string
		not  string
	}{
		{"one node", keyadvice.Sample{Node: "10.0.0.1", RequestsByNode: map[string]int{"10.0.0.1": 9}}, "sampled on 10.0.0.1:", "replicas"},
		{"three replicas", keyadvice.Sample{Node: "10.0.0.1", RequestsByNode: map[string]int{"10.0.0.2": 4, "10.0.0.1": 5, "10.0.0.3": 3}},
			"sampled on 3 replicas (requests: 10.0.0.1 5, 10.0.0.2 4, 10.0.0.3 3):", "read on the first host"},
		{"first host only", keyadvice.Sample{Node: "10.0.0.1", Routing: "the first host only, as its ring or the keyspace's replicas could not be placed: no replicas in DC \"dc2\""},
			"; read on the first host only, as its ring", "replicas ("},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := KeyDesignSample(&keyadvice.Advice{Keyspace: "ks", Table: "t", Sample: tt.s})
			if !strings.Contains(line, tt.want) || strings.Contains(line, tt.not) {
				t.Errorf("%s\nwant %q, not %q", line, tt.want, tt.not)
			}
		})
	}
}

// TestKeyDesignRatesAndWidths: a bucket line names one unit for its rate
// and writes a day as a day.
func TestKeyDesignRatesAndWidths(t *testing.T) {
	cases := []struct {
		rate  float64
		width time.Duration
		want  string
	}{
		{1, 24 * time.Hour, "ts at 1 rows/s (p99 partition): widest bucket under the warnings 1 day"},
		{0.000046, 7 * 24 * time.Hour, "ts at 4.6e-05 rows/s (p99 partition): widest bucket under the warnings 7 days"},
		{1234, time.Hour, "ts at 1,234 rows/s (p99 partition): widest bucket under the warnings 1 hour"},
		{2, 15 * time.Minute, "ts at 2 rows/s (p99 partition): widest bucket under the warnings 15 minutes"},
	}
	for _, c := range cases {
		p := keyadvice.Projection{Key: "((a, bucket(ts, 1d)), ts)", Method: keyadvice.MethodRefines, WrittenToday: -1,
			Bucket: &keyadvice.BucketWidth{Column: "ts", RowsPerSecond: c.rate, Width: c.width}}
		var got string
		for _, l := range KeyDesignLines(p) {
			if l[0] == "time bucket" {
				got = l[1]
			}
		}
		if got != c.want {
			t.Errorf("rate %v, width %v: %q, want %q", c.rate, c.width, got, c.want)
		}
	}
}
