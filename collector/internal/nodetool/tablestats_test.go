package nodetool

import (
	"maps"
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestParseDistinctPartitions(t *testing.T) {
	real, err := os.ReadFile("testdata/tablestats_json_5.0.8.json")
	if err != nil {
		t.Fatal(err)
	}
	one := func(v string) string {
		return `{"total_number_of_tables" : 1, "ks" : {"tables" : {"t" : {"number_of_partitions_estimate" : ` + v + `}}}}`
	}
	cases := []struct {
		name    string
		out     string
		want    map[string]int64
		wantErr string
	}{
		// hll.t: 7 keys, RF 1, 5 of them on this node in 12 sstables and in
		// the memtable: 5 (merged) + 5 (memtable partitions).
		{name: "real 5.0.8", out: string(real), want: map[string]int64{"hll.t": 10, "hll.many": 2569}},
		{name: "a JVM line before the document", out: "[0.412s][warning][os] ignored\n" + one("7"), want: map[string]int64{"ks.t": 7}},
		{name: "nothing on disk or in memory: none on the node", out: one("0"), want: map[string]int64{"ks.t": 0}},
		{name: "not a number", out: one(`"lots"`), wantErr: "ks.t: number_of_partitions_estimate \"lots\" is not a number"},
		{name: "negative", out: one("-3"), wantErr: "is not a count"},
		{name: "fraction", out: one("2.5"), wantErr: "is not a count"},
		{name: "field missing", out: `{"ks" : {"tables" : {"t" : {}}}}`, wantErr: "ks.t: no number_of_partitions_estimate"},
		{name: "not JSON", out: "nodetool: Unknown keyspace: nosuch", wantErr: "no JSON object"},
		{name: "cut short", out: `{"ks" : {"tables" : {"t" : {"number_of_partitions_estimate" : 1`, wantErr: "unexpected EOF"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseDistinctPartitions(strings.NewReader(c.out), nil)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestTablestatsArgs(t *testing.T) {
	wanted := map[string]bool{"a.t1": true, "a.t2": true, "b.t1": true, "c.t9": true}
	tests := []struct {
		name  string
		whole map[string]bool
		want  []string
	}{
		{"every keyspace whole: by keyspace", map[string]bool{"a": true, "b": true, "c": true}, []string{"a", "b", "c"}},
		{"a keyspace partly wanted: its tables by name", map[string]bool{"b": true, "c": true}, []string{"a.t1", "a.t2", "b", "c"}},
		{"none whole", nil, []string{"a.t1", "a.t2", "b.t1", "c.t9"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tablestatsArgs(wanted, tt.whole)
			if want := append([]string{"tablestats", "-F", "json"}, tt.want...); !reflect.DeepEqual(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}
