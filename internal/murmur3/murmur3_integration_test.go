//go:build integration

package murmur3_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/partmon/partmon/internal/murmur3"
	"github.com/partmon/partmon/tools/testcluster"
)

// TestKeyTokenMatchesCassandra writes keys of every supported type to a
// scratch keyspace on the real cluster and holds KeyToken, fed the text
// nodetool prints for each key, to Cassandra's own SELECT token(...).
func TestKeyTokenMatchesCassandra(t *testing.T) {
	s := testcluster.Session(t, testcluster.Hosts()[0])
	if err := s.Query("DROP KEYSPACE IF EXISTS pm_tokens").Exec(); err != nil {
		t.Fatal(err)
	}
	if err := s.Query("CREATE KEYSPACE pm_tokens WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").Exec(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Query("DROP KEYSPACE IF EXISTS pm_tokens").Exec() })

	cases := []struct {
		types    []string
		literals []string // CQL literals of the key's columns
		printed  string   // the key as nodetool prints it
	}{
		{[]string{"text"}, []string{"'hot'"}, "hot"},
		{[]string{"text"}, []string{"'clé-à-été-ünïcödé'"}, "clé-à-été-ünïcödé"}, // bytes ≥ 0x80 in the tail
		{[]string{"text"}, []string{"'a:b'"}, "a:b"},
		{[]string{"ascii"}, []string{"'0123456789012345678'"}, "0123456789012345678"},
		{[]string{"int"}, []string{"-42"}, "-42"},
		{[]string{"bigint"}, []string{"9000000000"}, "9000000000"},
		{[]string{"smallint"}, []string{"-300"}, "-300"},
		{[]string{"tinyint"}, []string{"-7"}, "-7"},
		{[]string{"boolean"}, []string{"true"}, "true"},
		{[]string{"double"}, []string{"-1.25"}, "-1.25"},
		{[]string{"float"}, []string{"3.5"}, "3.5"},
		{[]string{"uuid"}, []string{"123e4567-e89b-12d3-a456-426614174000"}, "123e4567-e89b-12d3-a456-426614174000"},
		{[]string{"timeuuid"}, []string{"fe2b4360-28c6-11e2-81c1-0800200c9a66"}, "fe2b4360-28c6-11e2-81c1-0800200c9a66"},
		{[]string{"blob"}, []string{"0xcafebabe80ff"}, "cafebabe80ff"},
		{[]string{"date"}, []string{"'2026-12-01'"}, "2026-12-01"},
		{[]string{"date"}, []string{"'1969-07-20'"}, "1969-07-20"},
		{[]string{"timestamp"}, []string{"1764601320123"}, "2025-12-01T15:02:00.123Z"},
		{[]string{"inet"}, []string{"'10.1.2.3'"}, "/10.1.2.3"},
		{[]string{"text", "int"}, []string{"'sensor-7'", "20261201"}, "sensor-7:20261201"},
		{[]string{"uuid", "bigint", "text"}, []string{"123e4567-e89b-12d3-a456-426614174000", "-1", "'x:y'"},
			`123e4567-e89b-12d3-a456-426614174000:-1:x\:y`},
	}
	// Every case's table first, side by side: each CREATE waits for the
	// nodes to agree on the schema, and 20 in a row made this test ~23 s.
	names := make([][]string, len(cases))
	var ddl []string
	for i, c := range cases {
		var cols []string
		for j, typ := range c.types {
			cols = append(cols, fmt.Sprintf("k%d %s", j, typ))
			names[i] = append(names[i], fmt.Sprintf("k%d", j))
		}
		ddl = append(ddl, fmt.Sprintf("CREATE TABLE pm_tokens.t%d (%s, v int, PRIMARY KEY ((%s)))", i, strings.Join(cols, ", "), strings.Join(names[i], ", ")))
	}
	if err := testcluster.ExecSideBySide(s, ddl); err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		names := names[i]
		table := fmt.Sprintf("pm_tokens.t%d", i)
		// Literals go in as text: the test needs Cassandra's own parsing, not the driver's marshalling.
		insert := fmt.Sprintf("INSERT INTO %s (%s, v) VALUES (%s, 1)", table, strings.Join(names, ", "), strings.Join(c.literals, ", "))
		if err := s.Query(insert).Exec(); err != nil {
			t.Fatalf("%s: %v", insert, err)
		}
		var want int64
		if err := s.Query(fmt.Sprintf("SELECT token(%s) FROM %s", strings.Join(names, ", "), table)).Scan(&want); err != nil {
			t.Fatal(err)
		}
		got, err := murmur3.KeyToken(c.printed, c.types)
		if err != nil || got != want {
			t.Errorf("%v key %q: KeyToken = %d, %v; Cassandra's token = %d", c.types, c.printed, got, err, want)
		}
	}
}
