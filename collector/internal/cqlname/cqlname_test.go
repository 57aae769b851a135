package cqlname

import (
	"strings"
	"testing"
)

func TestSplitTable(t *testing.T) {
	tests := []struct {
		in, keyspace, table, wantErr string
	}{
		{in: "pm_big.events", keyspace: "pm_big", table: "events"},
		{in: "KS1.T_2", keyspace: "KS1", table: "T_2"},
		{in: "ks." + strings.Repeat("t", maxLen), keyspace: "ks", table: strings.Repeat("t", maxLen)},
		{in: "events", wantErr: `table "events" is not of the form keyspace.table`},
		{in: ".events", wantErr: `invalid keyspace name ""`},
		{in: "ks.", wantErr: `invalid table name ""`},
		{in: "ks.a.b", wantErr: `invalid table name "a.b"`},
		{in: "ks.a b", wantErr: `invalid table name "a b"`},
		{in: "ks.a/../b", wantErr: `invalid table name "a/../b"`},
		{in: "ks.a;rm", wantErr: `invalid table name "a;rm"`},
		{in: "ks.é", wantErr: `invalid table name "é"`},
		{in: "ks." + strings.Repeat("t", maxLen+1), wantErr: `invalid table name "` + strings.Repeat("t", 120) + `…"`},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			ks, tbl, err := SplitTable(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || ks != tc.keyspace || tbl != tc.table {
				t.Fatalf("got %q, %q, %v; want %q, %q", ks, tbl, err, tc.keyspace, tc.table)
			}
		})
	}
}
