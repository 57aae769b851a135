package nodetool

import (
	"math"
	"os"
	"strings"
	"testing"
)

func TestParseCellCounts(t *testing.T) {
	real, err := os.ReadFile("testdata/tablehistograms_all_tables_5.0.8.txt")
	if err != nil {
		t.Fatal(err)
	}
	block := func(table, max string) string {
		return table + " histograms\nPercentile      Read Latency     Write Latency          SSTables    Partition Size        Cell Count\n" +
			"Max                     0.00              0.00              0.00                35  " + max + "\n\n"
	}
	cases := []struct {
		name    string
		out     string
		want    map[string]HistogramMax
		wantErr string
	}{
		{name: "real 5.0.8, every table", out: string(real),
			want: map[string]HistogramMax{"th.wide": {61214, 654949}, "th.coll": {179, 4768}, "Th2.KV": {1, 35}}},
		{name: "no sstables: NaN, left out", out: block("ks/t", "NaN"), want: map[string]HistogramMax{}},
		{name: "overflowed histogram", out: block("ks/t", "9223372036854775807"), want: map[string]HistogramMax{"ks.t": {math.MaxInt64, 35}}},
		{name: "garbage value", out: block("ks/t", "lots"), wantErr: `ks.t: Cell Count Max "lots" is not a number`},
		{name: "negative", out: block("ks/t", "-3"), wantErr: "negative"},
		{name: "garbage partition size", out: strings.Replace(block("ks/t", "7"), "35", "big", 1), wantErr: `ks.t: Partition Size Max "big" is not a number`},
		{name: "not tablehistograms output", out: "error: Failed to connect to '127.0.0.1:7199'", wantErr: "no \"keyspace/table histograms\" block"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseCellCounts(strings.NewReader(c.out), nil)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range c.want {
				if got[k] != v {
					t.Errorf("%s: %+v, want %+v", k, got[k], v)
				}
			}
			if _, ok := got["th.empty"]; ok {
				t.Errorf("th.empty has no sstables, got %+v", got["th.empty"])
			}
			if c.name != "real 5.0.8, every table" && len(got) != len(c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}
