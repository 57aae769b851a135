package cassandralog

import (
	"regexp"
	"strings"
)

// The messages, Guardrails.java (4.1.10, 5.0.8), after Guardrail's
// "Guardrail NAME violated: " (5.0 appends the guardrail's reason, none
// for these):
//
//	Detected collection %s of size %s, this exceeds the %s threshold of %s.
//	Detected collection %s with %s items, this exceeds the %s threshold of %s.
//	Value of column '%s' has size %s, this exceeds the %s threshold of %s.
//
// The first %s is the column (request path: UpdateParameters, Sets/Lists/
// Maps adders) or "COLUMN in row ROW in table KS.TBL" (SortedTableWriter
// 5.0, SSTableWriter 4.1). 4.1 writes "warning"/"failure" the same way.
var (
	reCollection  = regexp.MustCompile(`^Guardrail (collection_size|items_per_collection) violated: Detected collection (.+) (?:of size|with) (\d+)(?: items)?, this exceeds the (warning|failure) threshold of (\d+)\.`)
	reColumnValue = regexp.MustCompile(`^Guardrail (column_value_size|sai_[a-z]+_term_size) violated: Value of column '(.*)' has size (\d+), this exceeds the (warning|failure) threshold of (\d+)\.`)
)

// writeGuardrail reads one of those lines. Column is what Cassandra
// printed as the column; Row and the table are set only for the sstable
// write's form.
func writeGuardrail(msg string) (Event, bool) {
	m := reCollection.FindStringSubmatch(msg)
	if m == nil {
		m = reColumnValue.FindStringSubmatch(msg)
	}
	if m == nil {
		return Event{}, false
	}
	e := Event{Kind: WriteGuardrail, Guardrail: m[1], Column: m[2], Value: atoi(m[3]), Failure: m[4] == "failure", Threshold: atoi(m[5])}
	if !strings.HasPrefix(m[1], "sai_") && m[1] != "column_value_size" {
		e.stored()
	}
	return e, e.Column != ""
}

// stored splits "COL in row ROW in table KS.TBL" (an sstable write's check)
// into its parts. A column name with " in row " in it is read as the
// request path's; keyspace and table names hold no dot.
func (e *Event) stored() {
	i := strings.LastIndex(e.Column, " in table ")
	if i < 0 {
		return
	}
	j := strings.Index(e.Column[:i], " in row ")
	ks, tbl, ok := strings.Cut(e.Column[i+len(" in table "):], ".")
	if j <= 0 || !ok || ks == "" || tbl == "" || strings.ContainsAny(tbl, ". ") {
		return
	}
	e.Row = e.Column[j+len(" in row ") : i]
	e.Keyspace, e.Table, e.Column, e.Stored = ks, tbl, e.Column[:j], true
}

// SingleValueKey is the partition key a row printed as a CQL literal
// (TableMetadata.primaryKeyAsCQLLiteral) holds when the table has one
// partition key column and no clustering: the literal itself, a text value
// unquoted. Any other shape names no key partmon can split: ok false.
func SingleValueKey(row string) (string, bool) {
	if row == "" || strings.HasPrefix(row, "(") {
		return "", false
	}
	if strings.HasPrefix(row, "'") {
		if len(row) < 2 || !strings.HasSuffix(row, "'") {
			return "", false
		}
		return strings.ReplaceAll(row[1:len(row)-1], "''", "'"), true
	}
	return row, true
}
