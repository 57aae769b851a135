package main

import (
	"reflect"
	"testing"
)

func TestParseSample(t *testing.T) {
	tests := []struct {
		line       string
		wantName   string
		wantLabels map[string]string
	}{
		{`partmon_up 1`, "partmon_up", map[string]string{}},
		{`go_goroutines{} 12`, "go_goroutines", map[string]string{}},
		{`partmon_table_partitions{cluster="c",dc="dc1",keyspace="ks",node="10.0.0.1",rack="r1",table="t"} 42`,
			"partmon_table_partitions", map[string]string{"cluster": "c", "dc": "dc1", "keyspace": "ks", "node": "10.0.0.1", "rack": "r1", "table": "t"}},
		{`partmon_partition_size_bytes{keyspace="ks",partition_key="a\"b,c=\\d}",table="t"} 1e+06`,
			"partmon_partition_size_bytes", map[string]string{"keyspace": "ks", "partition_key": `a"b,c=\d}`, "table": "t"}},
		{`x{a="line\nbreak"} 1`, "x", map[string]string{"a": "line\nbreak"}},
	}
	for _, tt := range tests {
		name, labels := parseSample(tt.line)
		if name != tt.wantName || !reflect.DeepEqual(labels, tt.wantLabels) {
			t.Errorf("parseSample(%s) = %q %v, want %q %v", tt.line, name, labels, tt.wantName, tt.wantLabels)
		}
	}
}

func TestCountSeries(t *testing.T) {
	body := []byte(`# HELP partmon_up Whether the last cycle worked.
# TYPE partmon_up gauge
partmon_up 1
go_goroutines 9
partmon_table_partitions{keyspace="bench_00",node="n1",table="t000"} 20
partmon_table_disk_usage_bytes{keyspace="bench_00",node="n1",table="t000"} 1.048576e+06
partmon_table_partitions{keyspace="system",node="n1",table="local"} 1
partmon_table_partition_growth_bytes_per_second{keyspace="bench_00",table="t000"} 0
partmon_finding_value{keyspace="bench_00",kind="x",node="n1",table="t000"} 3
`)
	got := countSeries(body)
	want := seriesCount{total: 7, partmon: 6, tableNode: 3, tableAny: 5, tables: 2, bench: 2, benchTables: 1, maxPerTable: 2}
	if got != want {
		t.Errorf("countSeries = %+v, want %+v", got, want)
	}
	if got.perTable() != 1.5 || got.perTableAll() != 2.5 {
		t.Errorf("per table %.2f, all per table %.2f; want 1.5 and 2.5", got.perTable(), got.perTableAll())
	}
}

func TestParseCounts(t *testing.T) {
	tests := []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{"10,100,1000", []int{10, 100, 1000}, false},
		{" 5 ", []int{5}, false},
		{"100,10", nil, true},
		{"10,x", nil, true},
		{"0", nil, true},
	}
	for _, tt := range tests {
		got, err := parseCounts(tt.in)
		if (err != nil) != tt.wantErr || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseCounts(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestMedian(t *testing.T) {
	tests := []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
	}
	for _, tt := range tests {
		if got := median(tt.in); got != tt.want {
			t.Errorf("median(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
