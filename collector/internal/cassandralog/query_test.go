package cassandralog

import (
	"reflect"
	"testing"
)

func TestParseQueryAndKey(t *testing.T) {
	tests := []struct {
		name       string
		query      string
		keyColumns []string
		wantKS     string
		wantTable  string
		wantKey    string
		wantOK     bool
		wantRange  bool
	}{
		{
			name:  "5.0 text key with limit",
			query: "SELECT * FROM pm_tomb.queue WHERE queue = 'jobs' LIMIT 5000 ALLOW FILTERING", keyColumns: []string{"queue"},
			wantKS: "pm_tomb", wantTable: "queue", wantKey: "jobs", wantOK: true,
		},
		{
			name:  "5.0 quote in text key",
			query: "SELECT id FROM ks.t WHERE k = 'it''s' ALLOW FILTERING", keyColumns: []string{"k"},
			wantKS: "ks", wantTable: "t", wantKey: "it's", wantOK: true,
		},
		{
			name:  "5.0 composite key with clustering slice",
			query: "SELECT * FROM ks.t WHERE tenant = 'a:b' AND day = 20261201 AND ts > 5 LIMIT 100 ALLOW FILTERING", keyColumns: []string{"tenant", "day"},
			wantKS: "ks", wantTable: "t", wantKey: `a\:b:20261201`, wantOK: true,
		},
		{
			name:  "quoted identifiers",
			query: `SELECT * FROM "MyKs"."My""Table" WHERE "Key" = 42 ALLOW FILTERING`, keyColumns: []string{"Key"},
			wantKS: "MyKs", wantTable: `My"Table`, wantKey: "42", wantOK: true,
		},
		{
			name:  "blob key",
			query: "SELECT * FROM ks.t WHERE k = 0xCAFE ALLOW FILTERING", keyColumns: []string{"k"},
			wantKS: "ks", wantTable: "t", wantKey: "cafe", wantOK: true,
		},
		{
			name:  "uuid key",
			query: "SELECT * FROM ks.t WHERE id = 5303e963-ca4d-4275-a757-1f71fb435839 LIMIT 10 ALLOW FILTERING", keyColumns: []string{"id"},
			wantKS: "ks", wantTable: "t", wantKey: "5303e963-ca4d-4275-a757-1f71fb435839", wantOK: true,
		},
		{
			name:  "frozen tuple key keeps its CQL form",
			query: "SELECT * FROM ks.t WHERE k = (1, 'a, b') ALLOW FILTERING", keyColumns: []string{"k"},
			wantKS: "ks", wantTable: "t", wantKey: "(1, 'a, b')", wantOK: true,
		},
		{
			name:  "4.0 single text key, unquoted",
			query: "SELECT * FROM pm_tomb.queue WHERE queue = jobs LIMIT 5000", keyColumns: []string{"queue"},
			wantKS: "pm_tomb", wantTable: "queue", wantKey: "jobs", wantOK: true,
		},
		{
			name:  "4.0 text key with spaces",
			query: "SELECT * FROM ks.t WHERE k = hello world AND c > 3 LIMIT 10", keyColumns: []string{"k"},
			wantKS: "ks", wantTable: "t", wantKey: "hello world", wantOK: true,
		},
		{
			name:  "4.0 composite key",
			query: "SELECT * FROM ks.t WHERE tenant, day = acme, 20261201 LIMIT 100", keyColumns: []string{"tenant", "day"},
			wantKS: "ks", wantTable: "t", wantKey: "acme:20261201", wantOK: true,
		},
		{
			name:  "4.0 composite key with an ambiguous comma",
			query: "SELECT * FROM ks.t WHERE tenant, day = a, b, 20261201", keyColumns: []string{"tenant", "day"},
			wantKS: "ks", wantTable: "t", wantOK: false,
		},
		{
			name:  "range read names no key",
			query: "SELECT * FROM ks.t WHERE token(k) > -9223372036854775808 AND token(k) <= 0 LIMIT 5000 ALLOW FILTERING", keyColumns: []string{"k"},
			wantKS: "ks", wantTable: "t", wantRange: true,
		},
		{
			name:  "no WHERE",
			query: "SELECT * FROM ks.t LIMIT 100 ALLOW FILTERING", keyColumns: []string{"k"},
			wantKS: "ks", wantTable: "t",
		},
		{
			name:  "truncated in the middle of the key",
			query: "SELECT * FROM ks.t WHERE k = 'abc", keyColumns: []string{"k"},
			wantKS: "ks", wantTable: "t", wantKey: "'abc", wantOK: true, // read as 4.0's raw text: the schema decides
		},
		{
			name:  "truncated before the second key column",
			query: "SELECT * FROM ks.t WHERE a = 1 AND b", keyColumns: []string{"a", "b"},
			wantKS: "ks", wantTable: "t",
		},
		{
			name:  "schema does not match the restriction",
			query: "SELECT * FROM ks.t WHERE other = 1 ALLOW FILTERING", keyColumns: []string{"k"},
			wantKS: "ks", wantTable: "t",
		},
		{
			name:  "FROM inside a quoted column name",
			query: `SELECT "a FROM b" FROM ks.t WHERE k = 1 ALLOW FILTERING`, keyColumns: []string{"k"},
			wantKS: "ks", wantTable: "t", wantKey: "1", wantOK: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := ParseQuery(tt.query)
			if err != nil {
				t.Fatalf("ParseQuery(%q): %v", tt.query, err)
			}
			if q.Keyspace != tt.wantKS || q.Table != tt.wantTable || q.TokenRange != tt.wantRange {
				t.Fatalf("ParseQuery(%q) = %s.%s range=%v, want %s.%s range=%v", tt.query, q.Keyspace, q.Table, q.TokenRange, tt.wantKS, tt.wantTable, tt.wantRange)
			}
			key, ok := q.Key(tt.keyColumns)
			if key != tt.wantKey || ok != tt.wantOK {
				t.Fatalf("Key(%v) of %q = %q, %v; want %q, %v (where %+v)", tt.keyColumns, tt.query, key, ok, tt.wantKey, tt.wantOK, q.Where)
			}
		})
	}
}

func TestParseQueryRejects(t *testing.T) {
	for _, q := range []string{"", "UPDATE ks.t SET a = 1", "SELECT * FROM", "SELECT * FROM ks", "SELECT * FROM .t WHERE k = 1", `SELECT * FROM "ks.t`} {
		if got, err := ParseQuery(q); err == nil {
			t.Errorf("ParseQuery(%q) = %+v, want an error", q, got)
		}
	}
}

func TestRestrictionsOrder(t *testing.T) {
	q, err := ParseQuery("SELECT * FROM ks.t WHERE a = 'x' AND b = 2 AND c >= 3 LIMIT 1 ALLOW FILTERING")
	if err != nil {
		t.Fatal(err)
	}
	want := []Restriction{
		{Columns: []string{"a"}, Op: "=", Value: "'x'"},
		{Columns: []string{"b"}, Op: "=", Value: "2"},
		{Columns: []string{"c"}, Op: ">=", Value: "3"},
	}
	if !reflect.DeepEqual(q.Where, want) {
		t.Fatalf("Where = %+v, want %+v", q.Where, want)
	}
}

func TestEscapeComponent(t *testing.T) {
	for in, want := range map[string]string{"": "", "a": "a", "a:b": `a\:b`, `a\`: `a\!`, "x!": "x!!"} {
		if got := escapeComponent(in); got != want {
			t.Errorf("escapeComponent(%q) = %q, want %q", in, got, want)
		}
	}
}
