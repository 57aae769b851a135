package cassandralog

import "testing"

func TestParseWriteGuardrail(t *testing.T) {
	tests := []struct {
		name string
		msg  string
		want Event // zero Kind: no event
	}{
		{
			name: "collection_size warning, request path (5.0.8, seen on a real node)",
			msg:  "Guardrail collection_size violated: Detected collection items of size 4464, this exceeds the warning threshold of 4096.",
			want: Event{Kind: WriteGuardrail, Guardrail: "collection_size", Column: "items", Value: 4464, Threshold: 4096},
		},
		{
			name: "items_per_collection warning, request path",
			msg:  "Guardrail items_per_collection violated: Detected collection items with 124 items, this exceeds the warning threshold of 120.",
			want: Event{Kind: WriteGuardrail, Guardrail: "items_per_collection", Column: "items", Value: 124, Threshold: 120},
		},
		{
			name: "collection_size warning, 4.1.10 (seen on a real node)",
			msg:  "Guardrail collection_size violated: Detected collection items_654994 of size 4230, this exceeds the warning threshold of 4096.",
			want: Event{Kind: WriteGuardrail, Guardrail: "collection_size", Column: "items_654994", Value: 4230, Threshold: 4096},
		},
		{
			name: "collection_size failure: the refused write",
			msg:  "Guardrail collection_size violated: Detected collection items of size 8208, this exceeds the failure threshold of 8192.",
			want: Event{Kind: WriteGuardrail, Guardrail: "collection_size", Column: "items", Value: 8208, Threshold: 8192, Failure: true},
		},
		{
			name: "items_per_collection at an sstable write: row and table",
			msg:  "Guardrail items_per_collection violated: Detected collection s in row 'set2' in table h2.docs with 450 items, this exceeds the failure threshold of 200.",
			want: Event{Kind: WriteGuardrail, Guardrail: "items_per_collection", Column: "s", Row: "'set2'", Keyspace: "h2", Table: "docs", Stored: true, Value: 450, Threshold: 200, Failure: true},
		},
		{
			name: "collection_size at a flush (5.0.8, seen on a real node)",
			msg:  "Guardrail collection_size violated: Detected collection items_654829 in row 'hot' in table pm_wguard_1796654829.grow of size 8146, this exceeds the warning threshold of 4096.",
			want: Event{Kind: WriteGuardrail, Guardrail: "collection_size", Column: "items_654829", Row: "'hot'", Keyspace: "pm_wguard_1796654829", Table: "grow", Stored: true, Value: 8146, Threshold: 4096},
		},
		{
			name: "collection_size at an sstable write, a row with clustering",
			msg:  "Guardrail collection_size violated: Detected collection tags in row ('a', 3) in table ks.t of size 9000, this exceeds the warning threshold of 4096.",
			want: Event{Kind: WriteGuardrail, Guardrail: "collection_size", Column: "tags", Row: "('a', 3)", Keyspace: "ks", Table: "t", Stored: true, Value: 9000, Threshold: 4096},
		},
		{
			name: "column_value_size, 5.0",
			msg:  "Guardrail column_value_size violated: Value of column 'payload' has size 300000, this exceeds the failure threshold of 262144.",
			want: Event{Kind: WriteGuardrail, Guardrail: "column_value_size", Column: "payload", Value: 300000, Threshold: 262144, Failure: true},
		},
		{
			name: "SAI string term size, 5.0",
			msg:  "Guardrail sai_string_term_size violated: Value of column 'name' has size 2000, this exceeds the warning threshold of 1024.",
			want: Event{Kind: WriteGuardrail, Guardrail: "sai_string_term_size", Column: "name", Value: 2000, Threshold: 1024},
		},
		{name: "a guardrail without a measured value", msg: "Guardrail allow_filtering violated: Querying with ALLOW FILTERING is not allowed"},
		{name: "a disk guardrail (its own source)", msg: "Guardrail local_data_disk_usage violated: Local data disk usage 71(/data) exceeds failure threshold of 70, will stop accepting writes"},
		{name: "cut off", msg: "Guardrail collection_size violated: Detected collection items of size 4464, this exceeds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Parse(tt.msg)
			if tt.want.Kind == "" {
				if len(got) != 0 {
					t.Fatalf("got %+v, want nothing", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("got %d events, want 1", len(got))
			}
			if got[0] != tt.want {
				t.Errorf("got  %+v\nwant %+v", got[0], tt.want)
			}
		})
	}
}

func TestSingleValueKey(t *testing.T) {
	for row, want := range map[string]string{"'set2'": "set2", "'it''s'": "it's", "42": "42", "('a', 3)": "", "": "", "'": ""} {
		got, ok := SingleValueKey(row)
		if got != want || ok != (want != "") {
			t.Errorf("SingleValueKey(%q) = %q, %v; want %q", row, got, ok, want)
		}
	}
}
