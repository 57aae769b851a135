package main

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/gocql/gocql"
)

func TestRenamedSchemaRows(t *testing.T) {
	id := gocql.MustRandomUUID()
	// Shapes of Cassandra 5.0's SELECT JSON over system_schema.tables and .columns.
	table := `{"keyspace_name": "bench_00", "table_name": "t000", "id": "5a1c3f80-b0c1-11f0-8de9-0242ac120002", "caching": {"keys": "ALL", "rows_per_partition": "NONE"}, "extensions": {}, "flags": ["compound"], "gc_grace_seconds": 864000}`
	column := `{"keyspace_name": "bench_00", "table_name": "t000", "column_name": "ck", "clustering_order": "asc", "column_name_bytes": "0x636b", "kind": "clustering", "position": 0, "type": "int"}`
	tests := []struct {
		name    string
		rows    []string
		want    []map[string]any
		wantErr bool
	}{
		{"a tables row: new name and id, options kept", []string{table}, []map[string]any{{
			"keyspace_name": "bench_07", "table_name": "t042", "id": id.String(),
			"caching": map[string]any{"keys": "ALL", "rows_per_partition": "NONE"}, "extensions": map[string]any{},
			"flags": []any{"compound"}, "gc_grace_seconds": 864000.0, // read back by the test as float64,
		}}, false},
		{"a columns row has no id and gets none", []string{column}, []map[string]any{{
			"keyspace_name": "bench_07", "table_name": "t042", "column_name": "ck", "clustering_order": "asc",
			"column_name_bytes": "0x636b", "kind": "clustering", "position": 0.0, "type": "int",
		}}, false},
		{"not JSON", []string{`keyspace_name=bench_00`}, nil, true},
		{"no keyspace_name: not a schema row", []string{`{"table_name": "t000"}`}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := renamedSchemaRows(tt.rows, "bench_07", "t042", id)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error = %v, want error %v", err, tt.wantErr)
			}
			var gotRows []map[string]any
			for _, r := range got {
				var m map[string]any
				if err := json.Unmarshal([]byte(r), &m); err != nil {
					t.Fatal(err)
				}
				gotRows = append(gotRows, m)
			}
			if !reflect.DeepEqual(gotRows, tt.want) {
				t.Errorf("got %v\nwant %v", gotRows, tt.want)
			}
		})
	}
}
